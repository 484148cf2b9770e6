"""A Plan's steps, shared by the interpreter (executor.py) and the generated code
(codegen.py): the step kinds, a walk over nested regions, and how a failing step's error is
reported (both runners report it alike).

A step is a tuple `(kind, fn, ins, outs, attrs, label)`; see executor.py.
"""
from __future__ import annotations

import numpy as np

from ..ir import dtypes as D
from ..ir.errors import InvalidArgumentError, OpError
from ..ir.registry import OPS, TT, InferenceError, infer_types
from ..ir.shapes import format_shape

NONE, ONE, MANY, COND, CASE, WHILE = range(6)


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


def _walk(steps):
    """Every step of `steps`, those in regions included."""
    for step in steps:
        yield step
        kind, attrs = step[0], step[4]
        if kind in (COND, CASE):
            for region_steps, _ in attrs:
                yield from _walk(region_steps)
        elif kind == WHILE:
            yield from _walk(attrs[0])
            yield from _walk(attrs[3])


def locate_failure(error, step, read):
    """The error to raise for `error` raised by `step` (`read(slot)` gives its inputs), or
    None to let it pass unchanged: an OpError gets the step's node and line; a kernel failure
    (values that only the run shows: a `None` dim hid the mismatch at trace time) becomes TF's
    InvalidArgumentError naming the op, its inputs and the user's line."""
    if step is None or getattr(error, "_flowjit_located", False):
        return None
    label = step[5]
    if isinstance(error, OpError):
        located = type(error)(error.node_def, error.op, f"{error.message}\n  [[node {label}]]")
    elif isinstance(label, StepLabel):
        located = InvalidArgumentError(None, label.op, _explain(step, read, error))
    else:
        return None
    located._flowjit_located = True
    return located


_FAILURES = (OpError, ValueError, TypeError, IndexError, ArithmeticError)


def _explain(step, read, failure) -> str:
    """`op(inputs): why` with the op's own inference message for the concrete inputs (TF's
    text, e.g. "Matrix size-incompatible"), else the kernel's."""
    _, _, ins, _, attrs, label = step
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
