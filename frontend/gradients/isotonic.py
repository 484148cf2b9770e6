"""Gradient of `isotonic_regression` (TF's): each element of a pooled segment holds the
segment's mean, so it gets the mean of the upstream gradient over its segment."""
from __future__ import annotations

from ...ir import dtypes as D
from ..ops import array as A
from ..ops import math as M
from ..ops import segment as S
from ._util import gradient


@gradient("isotonic_regression")
def _isotonic_regression_grad(op, grad, _segments_grad):
    segments = A.reshape(op.outputs[1], [-1])
    flat = A.reshape(grad, [-1])
    count = A.size(flat, out_type=D.int32)
    width = M.maximum(A.shape(grad, out_type=D.int32)[-1], 1) if grad.shape.rank else 1
    # segment ids made distinct across rows: row r's segments start at r * width
    position = A.range(count)
    ids = segments + (position // width) * width
    sizes = S.unsorted_segment_sum(A.ones_like(flat), ids, count)
    means = S.unsorted_segment_sum(flat, ids, count) / M.maximum(sizes, A.ones_like(sizes))
    return [A.reshape(A.gather(means, ids), A.shape(grad))]
