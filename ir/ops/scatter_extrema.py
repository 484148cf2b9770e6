"""tensor_scatter_nd_min/max: a copy of `tensor` where each indexed element becomes the
minimum (maximum) of itself and every update sent to it."""
from __future__ import annotations

from ..infer import NUMERIC
from ..registry import op
from .array import _tensor_scatter

EXTREMA = ("tensor_scatter_nd_min", "tensor_scatter_nd_max")

for _name in EXTREMA:
    op(_name, ("tensor", "indices", "updates"))(
        lambda types, attrs: _tensor_scatter(types, NUMERIC))
