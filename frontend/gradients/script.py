"""Gradient of `py_function` (see frontend/ops/script.py); `numpy_function` has none (TF)."""
from __future__ import annotations

from ..ops import array as A
from ..ops.script import gradient_call
from ._util import gradient


@gradient("py_function")
def _py_function_grad(op, *grads):
    upstream = [A.zeros_like(y) if g is None else g for g, y in zip(grads, op.outputs)]
    return gradient_call(op, upstream)
