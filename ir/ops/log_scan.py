"""cumulative_logsumexp: the running log(sum(exp(x))) along an axis, combined pairwise as
TF's scan does (no global shift that would underflow a value far below the maximum).
Floating types only; `exclusive` starts from log(0) = -inf."""
from __future__ import annotations

from ..infer import FLOATS, check_dtype
from ..registry import op
from .reduce import _scan


@op("cumulative_logsumexp", ("x",), attrs=(("axis", "int", 0), ("exclusive", "bool", False),
                                           ("reverse", "bool", False)))
def _cumulative_logsumexp(types, attrs):
    check_dtype(types[0], FLOATS)
    return _scan(types, attrs)
