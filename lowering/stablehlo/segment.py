"""Segment reductions under XLA. The unsorted ones are a scatter of the rows into the
segments (combining with add, max, min or multiply); ids outside [0, num_segments) are dropped, as TF's
XLA kernels do (the eager kernel raises for ids >= num_segments, as TF's CPU kernel). The
sorted ones have a run-time size: refused, as TF's XLA has no SegmentSum kernel."""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...ir.errors import UnimplementedError
from ...ir.ops.segment import SORTED
from ...runtime.jax_internals import hlo
from .array import scatter
from .core import _where, register_lowering


def _lowest(dt: D.DType):
    return np.iinfo(dt.np).min if dt.is_integer else D.finfo(dt.np).min


def _highest(dt: D.DType):
    return np.iinfo(dt.np).max if dt.is_integer else D.finfo(dt.np).max


_INIT_AND_COMBINE = {
    "unsorted_segment_sum": (lambda dt: 0, hlo.add),
    "unsorted_segment_max": (_lowest, hlo.maximum),
    "unsorted_segment_min": (_highest, hlo.minimum),
    "unsorted_segment_prod": (lambda dt: 1, hlo.multiply),
}


def _unsorted(name):
    init, combine = _INIT_AND_COMBINE[name]

    def rule(ctx, op, data, ids):
        ty = ctx.result_type(op)
        base = ctx.splat(init(ctx.dtype(data)), ty)
        if ctx.is_empty(ty) or ctx.is_empty(ids):
            return base
        # One index row per id: ids gain a trailing index dim of size 1.
        index = ctx.reshape(ids, ctx.shape(ids) + [1])
        return scatter(ctx, base, index, data, combine)
    return rule


def _refuse(ctx, op, *operands):
    raise UnimplementedError(
        None, op.name, f"jit_compile=True: {op.name.removeprefix('df.')} at {_where(op)} has "
                       f"segment_ids[-1] + 1 segments, a size known only at run time, and XLA "
                       f"needs static shapes (TF's XLA has no kernel for it either). Use "
                       f"tf.math.unsorted_segment_* with num_segments, or run without "
                       f"jit_compile")


for _name in _INIT_AND_COMBINE:
    register_lowering(_name)(_unsorted(_name))
for _name in SORTED:
    register_lowering(_name)(_refuse)
