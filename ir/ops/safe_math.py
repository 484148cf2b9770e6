"""mul_no_nan: x * y, and 0 wherever y is 0 (even where x is inf or NaN). An op of its own
rather than a composition: TF's gradient of it (mul_no_nan(x, g) for y) is not the
composition's. Floating and complex types, broadcasting."""
from __future__ import annotations

from ..infer import COMPLEX, FLOATS, binary
from ..registry import op


@op("mul_no_nan", ("x", "y"))
def _mul_no_nan(types, attrs):
    return binary(types, FLOATS + COMPLEX)
