"""Gradients of the segment reductions (TF's math_grad rules): a sum sends each segment's
gradient back to its rows, a mean divides it by the segment's size first, a max (min) sends
it to the rows that equal the extreme, split evenly among ties, and a prod multiplies it by
the product of the segment's other rows (computed without dividing by a zero row: with one
zero in the segment only that row gets a gradient, with two none). Rows with a negative id
(dropped by the unsorted ops) get zero."""
from __future__ import annotations

from ...ir import dtypes as D
from ..ops import array as A
from ..ops import math as M
from ..ops import segment as S
from ._util import attr, gradient, graph_attrs, need_rank


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


def _like(op, sorted_fn, unsorted_fn, values, ids):
    """A segment reduction of the op's own kind (sorted or unsorted) applied to `values`."""
    if op.opdef.name.startswith("unsorted"):
        count = graph_attrs(op).get("num_segments", attr(op, "num_segments"))
        return unsorted_fn(values, ids, count)
    return sorted_fn(values, ids)


def _segment_sum_like(op, values, ids):
    return _like(op, S.segment_sum, S.unsorted_segment_sum, values, ids)


@gradient("segment_sum", "unsorted_segment_sum")
def _sum_grad(op, g):
    data, ids = op.inputs[:2]
    return [_gather_rows(g, ids, data), None]


@gradient("segment_mean")
def _mean_grad(op, g):
    data, ids = op.inputs[:2]
    sizes = _segment_sum_like(op, A.ones_like(data), ids)
    return [A.gather(M.truediv(g, sizes), ids), None]


@gradient("segment_max", "unsorted_segment_max", "segment_min", "unsorted_segment_min")
def _max_grad(op, g):
    data, ids = op.inputs[:2]
    chosen = M.logical_and(M.equal(data, _gather_rows(op.outputs[0], ids, data)),
                           _row_mask(M.greater_equal(ids, 0), data, ids))
    ties = _segment_sum_like(op, M.cast(chosen, g.dtype), ids)
    share = _gather_rows(M.truediv(g, ties), ids, data)
    return [M.where(chosen, share, A.zeros_like(share)), None]


@gradient("segment_prod", "unsorted_segment_prod")
def _prod_grad(op, g):
    data, ids = op.inputs[:2]
    zero = M.equal(data, A.zeros_like(data))
    zeros_in_segment = _segment_sum_like(op, M.cast(zero, D.int32), ids)
    # the product of the segment's nonzero rows, and the rows' gradient without their own
    safe_data = M.where(zero, A.ones_like(data), data)
    nonzero_prod = _like(op, S.segment_prod, S.unsorted_segment_prod, safe_data, ids)
    others = M.where(zero, _gather_rows(nonzero_prod, ids, data),
                     M.truediv(_gather_rows(op.outputs[0], ids, data), safe_data))
    g = M.where(M.greater(zeros_in_segment, 1), A.zeros_like(g), g)
    return [M.multiply(_gather_rows(g, ids, data), others), None]
