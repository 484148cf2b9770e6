"""Gradients of the segment reductions (TF's math_grad rules): a sum sends each segment's
gradient back to its rows, a mean divides it by the segment's size first, and a max sends it
to the rows that equal the maximum, split evenly among ties. Rows with a negative id (dropped
by the unsorted ops) get zero."""
from __future__ import annotations

from ..ops import array as A
from ..ops import math as M
from ..ops import segment as S
from ._util import attr, gradient, need_rank


def _row_mask(mask, data, ids):
    """`mask` (shaped like ids) with trailing dims of size 1, to broadcast over data's rows."""
    for _ in range(need_rank(data, "segment gradient") - need_rank(ids, "segment gradient")):
        mask = A.expand_dims(mask, -1)
    return mask


def _gather_rows(t, ids, data):
    """t[ids] per row of data; zero where the id is negative (TF's _GatherDropNegatives)."""
    kept = M.greater_equal(ids, 0)
    rows = A.gather(t, M.maximum(ids, 0))
    return M.where(_row_mask(kept, data, ids), rows, A.zeros_like(rows))


def _segment_sum_like(op, values, ids):
    """The op's own summation (sorted or unsorted) applied to `values`."""
    if op.opdef.name.startswith("unsorted"):
        return S.unsorted_segment_sum(values, ids, attr(op, "num_segments"))
    return S.segment_sum(values, ids)


@gradient("segment_sum", "unsorted_segment_sum")
def _sum_grad(op, g):
    data, ids = op.inputs
    return [_gather_rows(g, ids, data), None]


@gradient("segment_mean")
def _mean_grad(op, g):
    data, ids = op.inputs
    sizes = _segment_sum_like(op, A.ones_like(data), ids)
    return [A.gather(M.truediv(g, sizes), ids), None]


@gradient("segment_max", "unsorted_segment_max")
def _max_grad(op, g):
    data, ids = op.inputs
    chosen = M.logical_and(M.equal(data, _gather_rows(op.outputs[0], ids, data)),
                           _row_mask(M.greater_equal(ids, 0), data, ids))
    ties = _segment_sum_like(op, M.cast(chosen, g.dtype), ids)
    share = _gather_rows(M.truediv(g, ties), ids, data)
    return [M.where(chosen, share, A.zeros_like(share)), None]
