"""The graph executor: runs a `Plan` (built from a df module by `lowering/plan.py`).

A Plan is a flat list of `Step`s over one array of slots: `fn` is the NumPy kernel resolved at
plan time, `ins` and `outs` slot indices, `label` the node name and user location for error
messages. Regions of `df.cond`/`df.case`/`df.while` are nested step lists over the same slots
(values from above are read directly). Token values take no slot: plan order already is program order.

A Plan runs as one generated Python function (`runtime/codegen.py`); the interpreter here
runs a straight-line plan's first call and plans whose generated source Python refuses, and
both report a failing step alike (`steps.locate_failure`).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

from .blas import BLAS_OPS, run_limited
from .steps import (CASE, COND, MANY, NONE, ONE, STEP_FAILURES, WHILE, StepLabel,
                    locate_failure, walk_steps)


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
        steps = list(walk_steps(self.steps))
        # a plan calling BLAS runs under the executor's BLAS thread policy (runtime/blas.py)
        self.calls_blas = any(isinstance(step.label, StepLabel) and step.label.op in BLAS_OPS
                              for step in steps)
        # Tiers, as a JIT's: a plan with a loop is compiled to Python at once (each iteration
        # gains); a straight-line plan runs its first call on the interpreter and is compiled
        # on the second, so a function called once does not pay Python's compiler (about as
        # much as a thousand interpreted steps).
        if any(step.kind == WHILE for step in steps):
            self._compile()
        else:
            self._tier(self._interpret_first)

    def _tier(self, run):
        """Make `run(args)` the plan's `run`."""
        self.run = functools.partial(run_limited, run) if self.calls_blas else run

    def _interpret_first(self, args):
        self._tier(self._compile_then_run)
        return self.interpret(args)

    def _compile_then_run(self, args):
        return self._compile()(args)

    def _compile(self):
        """Make the plan's generated function its `run` (the interpreter if Python refuses
        the source: more than 20 nested loops, 100 levels of indentation); return it."""
        from .codegen import GeneratedPlan
        try:
            self.generated = GeneratedPlan(self)
        except (SyntaxError, RecursionError, MemoryError):
            run = self.interpret
        else:
            run = self.generated.run
        self._tier(run)
        return run

    def interpret(self, args):
        slots = self._template[:]
        for i, v in zip(self.arg_slots, args):
            slots[i] = v
        run_steps(self.steps, slots)
        return [slots[i] for i in self.out_slots]



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
