"""mul_no_nan's gradient (TF's rule): mul_no_nan(g, y) for x and mul_no_nan(x, g) for y, so
y's gradient is x * g even where y is 0, and 0 only where g is."""
from __future__ import annotations

from ..ops import safe_math as SM
from ._util import gradient, unbroadcast


@gradient("mul_no_nan")
def _mul_no_nan_grad(op, g):
    x, y = op.inputs
    return [unbroadcast(SM.multiply_no_nan(g, y), x), unbroadcast(SM.multiply_no_nan(x, g), y)]
