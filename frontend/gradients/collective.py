"""Gradients of the collective ops. `all_reduce`: a sum (mean) over the replicas sends
each replica the sum (mean) of every replica's upstream gradient, as in TF's
CollectiveReduce gradient. `relayout`: the values pass through unchanged, and so does the
gradient (XLA lays it out as it propagates)."""
from __future__ import annotations

from ..ops.collective import all_reduce
from ._util import gradient


@gradient("all_reduce")
def _all_reduce_grad(op, g):
    reduction = op.attrs["reduction"]
    if reduction not in ("sum", "mean"):
        raise NotImplementedError(f"all_reduce: no gradient for reduction {reduction!r}")
    return [all_reduce(g, reduction, op.attrs["group_size"])]


@gradient("relayout")
def _relayout_grad(op, g):
    return [g]
