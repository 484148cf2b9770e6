"""Reductions, arg-reductions and scans -> StableHLO.

The NumPy kernels (runtime/kernels/reduce.py) define the semantics: float16/bfloat16 sums,
products and means accumulate in float32 and round once at the end; integer sums and
products wrap in their own type; an integer mean sums in int64 and divides with C
truncation (an empty one is 0). Scans are reduce_windows over the whole axis (see `scan`).
"""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...runtime.jax_internals import hlo, ir
from .builders import identity
from .core import register_lowering


def _finish(ctx, op, value):
    """Reshape to the op's result type (keepdims) and convert back to its element type."""
    t = ctx.result_type(op)
    rt = ir.RankedTensorType(t)
    if ir.RankedTensorType(value.type).element_type != rt.element_type:
        value = hlo.convert(ctx.like(t, ctx.shape(value)), value)
    if ctx.shape(value) != list(rt.shape):
        value = hlo.reshape(t, value)
    return value


def _dims(ctx, axis, x) -> list:
    """The reduced dims: `axis` (non-negative already; None means all; a scalar has none)."""
    rank = ctx.rank(x)
    return list(range(rank)) if axis is None or not rank else sorted(set(axis))


# --- reductions ----------------------------------------------------------------------------
def _declare_reduction(name, kind, accumulate):
    def rule(ctx, op, x, *, axis):
        if accumulate:
            x = ctx.convert(x, D.compute_dtype(ctx.dtype(x)))
        return _finish(ctx, op, ctx.reduce(x, _dims(ctx, axis, x), kind))
    register_lowering(name)(rule)


for _name, _kind, _acc in (("reduce_sum", "add", True), ("reduce_prod", "mul", True),
                           ("reduce_max", "max", False), ("reduce_min", "min", False),
                           ("reduce_any", "or", False), ("reduce_all", "and", False)):
    _declare_reduction(_name, _kind, _acc)


@register_lowering("reduce_mean")
def _reduce_mean(ctx, op, x, *, axis):
    shape = ctx.shape(x)
    dims = _dims(ctx, axis, x)
    count = int(np.prod([shape[d] for d in dims], dtype=np.int64))
    dt = ctx.dtype(x)
    if dt.is_integer:
        if count == 0:
            return ctx.splat(0, ctx.result_type(op))
        # narrow integers must not overflow while summing: int64 (which wraps, like TF's)
        s = ctx.reduce(ctx.convert(x, D.int64), dims, "add")
        q = hlo.divide(s, ctx.splat(count, s.type))      # integer divide truncates, as in C
        return _finish(ctx, op, q)
    s = ctx.reduce(ctx.convert(x, D.compute_dtype(dt)), dims, "add")
    # an empty mean is 0/0 = NaN, as in the kernel
    return _finish(ctx, op, hlo.divide(s, ctx.splat(count, s.type)))


# --- argmax / argmin -----------------------------------------------------------------------
def _declare_arg(name, direction, nan_fill):
    def rule(ctx, op, x, *, axis, output_type):
        shape = ctx.shape(x)
        dt = ctx.dtype(x)
        if dt.is_floating:
            # The kernel replaces NaN by -inf (argmax) / +inf (argmin): NaN never wins, and an
            # all-NaN slice (or NaN next to the fill value) gives the first index.
            fill = ctx.splat(nan_fill, x.type)
            x = hlo.select(ctx.compare(x, x, "NE"), fill, x)
        idx_dt = output_type
        iota = ctx.iota(ctx.tensor_type(idx_dt, shape), axis)
        out_shape = shape[:axis] + shape[axis + 1:]
        val_s, idx_s = ctx.tensor_type(dt, ()), ctx.tensor_type(idx_dt, ())
        kind = "max" if direction == "GT" else "min"
        inits = [ctx.constant(identity(dt, kind), dt), ctx.constant(0, idx_dt)]
        out_types = [ctx.tensor_type(dt, out_shape), ctx.tensor_type(idx_dt, out_shape)]
        red = hlo.ReduceOp(out_types, [x, iota], inits, ctx.i64s([axis]))

        def better_of(av, ai, bv, bi):
            # the better value wins; among equal values the lower index (NumPy's first hit),
            # which keeps the combiner commutative and associative
            better = ctx.compare(av, bv, direction)
            tie = hlo.and_(ctx.compare(av, bv, "EQ"), ctx.compare(ai, bi, "LT"))
            take_a = hlo.or_(better, tie)
            return hlo.select(take_a, av, bv), hlo.select(take_a, ai, bi)
        ctx.body(red.body, (val_s, idx_s, val_s, idx_s), better_of)
        return red.results[1]
    register_lowering(name)(rule)


_declare_arg("argmax", "GT", -np.inf)
_declare_arg("argmin", "LT", np.inf)


# --- cumsum / cumprod ----------------------------------------------------------------------
def scan(ctx, x, axis, kind, exclusive=False, reverse=False, init=None, combine=None):
    """Inclusive (or exclusive) prefix combine of `x` along `axis` with `kind` (add/mul), or
    with the scalar function `combine` whose identity is `init`.

    A reduce_window whose window spans the whole axis, padded with n-1 identities in front:
    output i combines inputs 0..i. XLA recognises this form and rewrites it into a
    logarithmic-depth scan, so neither compile time nor run time grows like n**2 (a hand-made
    log-step scan of pads and slices compiled several times slower)."""
    shape = ctx.shape(x)
    n = shape[axis]
    if n == 0:
        return x
    rank = len(shape)
    window = [1] * rank
    window[axis] = n
    pad = n - 1
    if exclusive:
        # drop the element no output includes (the last; the first if reversed) and pad one
        # more identity: every window then ends one element earlier
        start, limit = [0] * rank, list(shape)
        if reverse:
            start[axis] = 1
        else:
            limit[axis] = n - 1
        x = ctx.slice(x, start, limit)
        pad = n
    padding = [(0, 0)] * rank
    padding[axis] = (0, pad) if reverse else (pad, 0)   # reversed windows look ahead
    return ctx.reduce_window(x, shape, kind, window, [1] * rank, padding, init=init,
                             combine=combine)


def _declare_scan(name, kind):
    def rule(ctx, op, x, *, axis, exclusive, reverse):
        dt = ctx.dtype(x)
        out = scan(ctx, ctx.convert(x, D.compute_dtype(dt)), axis, kind, exclusive, reverse)
        return ctx.convert(out, dt)
    register_lowering(name)(rule)


_declare_scan("cumsum", "add")
_declare_scan("cumprod", "mul")
