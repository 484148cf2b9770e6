"""`py_function` / `numpy_function`: call a Python function from a graph (TF's script ops).
The function is held by the runtime under the token in `func`; `Tout` lists the result dtypes.
Results have unknown shapes (as TF: only the function knows them)."""
from __future__ import annotations

from ..registry import TT, op


def _results(types, attrs):
    return tuple(TT(dt, None) for dt in attrs["Tout"])


op("py_function", ("inputs*",), attrs=(("func", "str"), ("Tout", "any")),
   stateful=True)(_results)
op("numpy_function", ("inputs*",), attrs=(("func", "str"), ("Tout", "any")),
   stateful=True, differentiable=False)(_results)
