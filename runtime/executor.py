"""The graph executor: runs a `Plan` (built from a df module by `lowering/plan.py`).

A Plan is a flat list of `Step`s over one array of slots: `fn` is the NumPy kernel resolved at
plan time, `ins` and `outs` slot indices, `label` the node name and user location for error
messages. Regions of `df.cond`/`df.case`/`df.while` are nested step lists over the same slots
(values from above are read directly). Token values take no slot: plan order already is program order.

A Plan runs as one generated Python function (`runtime/codegen.py`); the interpreter here
runs a straight-line plan's first call and plans whose generated source Python refuses, and
both report a failing step alike (`locate_failure`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..ir import dtypes as D
from ..ir.errors import InvalidArgumentError, OpError
from ..ir.registry import OPS, TT, InferenceError, infer_types
from ..ir.shapes import format_shape

NONE, ONE, MANY, COND, CASE, WHILE = range(6)


class Step(NamedTuple):
    """One step of a plan (a tuple: the interpreter unpacks it in its loop)."""
    kind: int        # NONE, ONE, MANY (a kernel's result count) or COND, CASE, WHILE
    fn: object       # the kernel; None for region steps
    ins: tuple       # slots read
    outs: object     # slots written; one slot for ONE
    attrs: object    # the kernel's attributes; COND/CASE: the branches, each a `(steps,
    #                  yielded slots)`; WHILE: a `Loop`
    label: object    # a kernel step's `StepLabel`; a region step's location text


class Loop(NamedTuple):
    """The regions of a WHILE step: the condition's and the body's steps, the slots their
    block arguments take, and what they yield."""
    cond_steps: list
    cond_args: tuple
    cond_yield: int
    body_steps: list
    body_args: tuple
    body_yields: tuple


class StepLabel:
    """A kernel step's op name (to explain a failure) and its node and user location. The
    location is formatted only when an error shows it: printing 1k locations when a plan is
    built tripled the plan time."""

    __slots__ = ("op", "_location", "_format")

    def __init__(self, op: str, location, format_location):
        self.op, self._location, self._format = op, location, format_location

    @property
    def where(self) -> str:
        return self._format(self._location)

    def __str__(self):
        return self.where


@dataclass
class Plan:
    steps: list
    num_slots: int
    arg_slots: tuple
    out_slots: tuple
    out_types: tuple     # TT per output: results are wrapped with these dtypes
    constants: dict      # slot -> value, filled once (df.const never runs per call)
    scalar_slots: dict = field(default_factory=dict)  # slot -> dtype of 0-d plain numerics
    array_slots: dict = field(default_factory=dict)   # slot -> (dtype, shape), other static

    def __post_init__(self):
        self._template = [None] * self.num_slots
        for i, v in self.constants.items():
            self._template[i] = v
        self.generated = None
        # Tiers, as a JIT's: a plan with a loop is compiled to Python at once (each iteration
        # gains); a straight-line plan runs its first call on the interpreter and is compiled
        # on the second, so a function called once does not pay Python's compiler (about as
        # much as a thousand interpreted steps).
        if any(step.kind == WHILE for step in walk_steps(self.steps)):
            self._compile()
        else:
            self.run = self._interpret_first

    def _interpret_first(self, args):
        self.run = self._compile_then_run
        return self.interpret(args)

    def _compile_then_run(self, args):
        return self._compile()(args)

    def _compile(self):
        """Replace `run` by the plan's generated function (the interpreter if Python refuses
        the source: more than 20 nested loops, 100 levels of indentation); return it."""
        from .codegen import GeneratedPlan
        try:
            self.generated = GeneratedPlan(self)
        except (SyntaxError, RecursionError, MemoryError):
            self.run = self.interpret
        else:
            self.run = self.generated.run
        return self.run

    def interpret(self, args):
        slots = self._template[:]
        for i, v in zip(self.arg_slots, args):
            slots[i] = v
        run_steps(self.steps, slots)
        return [slots[i] for i in self.out_slots]


def walk_steps(steps):
    """Every step of `steps`, those in regions included."""
    for step in steps:
        yield step
        kind, attrs = step.kind, step.attrs
        if kind in (COND, CASE):
            for region_steps, _ in attrs:
                yield from walk_steps(region_steps)
        elif kind == WHILE:
            yield from walk_steps(attrs.cond_steps)
            yield from walk_steps(attrs.body_steps)


def run_steps(steps, slots):
    step = None
    try:
        for step in steps:
            kind, fn, ins, outs, attrs, _ = step
            if kind == ONE:
                slots[outs] = fn(*[slots[i] for i in ins], **attrs) if attrs else \
                    fn(*[slots[i] for i in ins])
            elif kind == NONE:
                fn(*[slots[i] for i in ins], **attrs)
            elif kind == MANY:
                for o, v in zip(outs, fn(*[slots[i] for i in ins], **attrs)):
                    slots[o] = v
            elif kind == COND:
                branch = attrs[0] if bool(slots[ins[0]]) else attrs[1]
                _run_region(branch, slots, outs)
            elif kind == CASE:
                i = int(slots[ins[0]])
                branches = attrs
                _run_region(branches[i if 0 <= i < len(branches) else -1], slots, outs)
            else:
                _run_while(attrs, slots, ins, outs)
    except STEP_FAILURES as e:
        located = locate_failure(e, step, slots.__getitem__)
        if located is None:
            raise
        raise located from None


def locate_failure(error, step, read):
    """The error to raise for `error` raised by `step` (`read(slot)` gives its inputs), or
    None to let it pass unchanged: an OpError gets the step's node and line; a kernel failure
    (values that only the run shows: a `None` dim hid the mismatch at trace time) becomes TF's
    InvalidArgumentError naming the op, its inputs and the user's line."""
    if step is None or getattr(error, "_flowjit_located", False):
        return None
    label = step.label
    if isinstance(error, OpError):
        located = type(error)(error.node_def, error.op, f"{error.message}\n  [[node {label}]]")
    elif isinstance(label, StepLabel):
        located = InvalidArgumentError(None, label.op, _explain(step, read, error))
    else:
        return None
    located._flowjit_located = True
    return located


# What a failing kernel raises; `locate_failure` names the step in it.
STEP_FAILURES = (OpError, ValueError, TypeError, IndexError, ArithmeticError)


def _explain(step, read, failure) -> str:
    """`op(inputs): why` with the op's own inference message for the concrete inputs (TF's
    text, e.g. "Matrix size-incompatible"), else the kernel's."""
    ins, attrs, label = step.ins, step.attrs, step.label
    values = [np.asarray(read(i)) for i in ins]
    why = str(failure)
    try:
        infer_types(OPS[label.op], [TT(D.from_numpy(v.dtype), v.shape) for v in values],
                    attrs or {})
    except InferenceError as e:
        why = str(e)
    except (KeyError, TypeError, ValueError):  # inputs it cannot type: keep the kernel's text
        pass
    inputs = ", ".join(f"{v.dtype.name}{format_shape(v.shape)}" for v in values)
    return f"{label.op}({inputs}): {why}\n  [[node {label}]]"


def _run_region(region, slots, outs):
    steps, yields = region
    run_steps(steps, slots)
    vals = [slots[y] for y in yields]
    for o, v in zip(outs, vals):
        slots[o] = v


def _run_while(attrs, slots, ins, outs):
    cond_steps, cond_args, cond_yield, body_steps, body_args, body_yields = attrs
    vals = [slots[i] for i in ins]
    while True:
        for a, v in zip(cond_args, vals):
            slots[a] = v
        run_steps(cond_steps, slots)
        if not bool(slots[cond_yield]):
            break
        for a, v in zip(body_args, vals):
            slots[a] = v
        run_steps(body_steps, slots)
        vals = [slots[y] for y in body_yields]
    for o, v in zip(outs, vals):
        slots[o] = v
