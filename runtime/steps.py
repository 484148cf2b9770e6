"""A Plan's steps, shared by the plan builder (lowering/plan.py), the interpreter
(executor.py) and the generated code (codegen.py): the `Step` type and its kinds, a walk over
nested regions, and how a failing step's error is reported (both runners report it alike).
"""
from __future__ import annotations

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
