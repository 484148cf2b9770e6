"""Kernels of `py_function` / `numpy_function`: the registered Python callable, which takes
and returns NumPy arrays (the API wraps the user's function with TF's conversions)."""
from __future__ import annotations

import itertools

from . import kernel

# token -> callable(*arrays) -> list of arrays. Graphs refer to functions by token only, so
# nothing that reads a graph's text can make it call code.
FUNCTIONS: dict = {}
_TOKENS = itertools.count()


def register_function(fn) -> str:
    token = f"pyfunc_{next(_TOKENS)}"
    FUNCTIONS[token] = fn
    return token


@kernel("py_function", "numpy_function")
def call_python(*inputs, func, Tout):
    outs = tuple(FUNCTIONS[func](*inputs))
    return outs[0] if len(outs) == 1 else outs   # one result is returned bare, as every kernel
