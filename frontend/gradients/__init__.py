"""Gradient functions, one module per op family (same file names as every other layer).

A gradient function gets the recorded op and one gradient per output (None where no gradient
flows) and returns one gradient per input (None for inputs without one). It is written with
flowjit's public ops, so the same function builds eager tensors or graph nodes (TF's design):

    @register_gradient("mul")
    def _mul_grad(op, grad):
        x, y = op.inputs
        return [unbroadcast(grad * y, x), unbroadcast(grad * x, y)]

`op` has `.inputs`, `.outputs` (tensors), `.attrs` (dict) and `.opdef` (the registry entry).
Ops declared `differentiable=False` need no entry: no gradient flows through them.
"""
from __future__ import annotations

GRADIENTS: dict = {}


def register_gradient(*opnames):
    def deco(fn):
        for n in opnames:
            if n in GRADIENTS:
                raise ValueError(f"gradient for '{n}' registered twice")
            GRADIENTS[n] = fn
        return fn
    return deco


from . import math, reduce, linalg, array, nn, checks, script  # noqa: E402,F401
from . import segment  # noqa: E402,F401  (issue 11)
from . import collective  # noqa: E402,F401  (issue 12)
