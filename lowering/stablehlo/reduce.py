"""Reductions, arg-reductions and scans -> StableHLO.

The NumPy kernels (runtime/kernels/reduce.py) define the semantics: float16/bfloat16 sums,
products and means accumulate in float32 and round once at the end; integer sums and
products wrap in their own type; an integer mean sums in int64 and divides with C
truncation (an empty one is 0). Scans are reduce_windows over the whole axis (see `scan`).
"""
from __future__ import annotations

import numpy as np
from jax._src.lib.mlir import ir
import jaxlib.mlir.dialects.stablehlo as hlo

from ...ir import dtypes as D
from .core import register_lowering
from .math import compare

_HALF = (D.float16, D.bfloat16)


# --- helpers -------------------------------------------------------------------------------
def _acc_dtype(dt: D.DType) -> D.DType:
    return D.float32 if dt in _HALF else dt


def _convert(ctx, x, dt: D.DType):
    if ctx.dtype(x) is dt:
        return x
    return hlo.convert(ctx.tensor_type(dt, ctx.shape(x)), x)


def _identity(dt: D.DType, kind: str):
    """The init value of a reduction kind for the element type (max starts at the lowest
    value, min at the highest)."""
    if kind == "add":
        return 0
    if kind == "mul":
        return 1
    if kind == "and":
        return True
    if kind == "or":
        return False
    highest = kind == "min"
    if dt.is_floating:
        return np.inf if highest else -np.inf
    return dt.max if highest else dt.min


_COMBINE = {"add": hlo.add, "mul": hlo.multiply, "max": hlo.maximum, "min": hlo.minimum,
            "and": hlo.and_, "or": hlo.or_}


def reduce_dims(ctx, x, dims, kind: str):
    """stablehlo.reduce of `x` over `dims` with a monoid `kind` (add/mul/max/min/and/or);
    the result drops the reduced dims."""
    dt = ctx.dtype(x)
    shape = ctx.shape(x)
    scalar_t = ctx.tensor_type(dt, ())
    out_t = ctx.tensor_type(dt, [d for i, d in enumerate(shape) if i not in dims])
    init = ctx.constant(np.asarray(_identity(dt, kind), dtype=dt.np))
    red = hlo.ReduceOp([out_t], [x], [init], ir.DenseI64ArrayAttr.get(sorted(dims)))
    block = red.body.blocks.append(scalar_t, scalar_t)
    with ir.InsertionPoint(block):
        hlo.return_([_COMBINE[kind](*block.arguments)])
    return red.result


def _axes(axis, rank):
    if axis is None:
        return list(range(rank))
    return sorted({a % rank for a in axis}) if rank else []


def _finish(ctx, op, value):
    """Reshape to the op's result type (keepdims) and convert back to its element type."""
    t = ctx.result_type(op)
    rt = ir.RankedTensorType(t)
    if ir.RankedTensorType(value.type).element_type != rt.element_type:
        value = hlo.convert(ir.RankedTensorType.get(ctx.shape(value), rt.element_type), value)
    if ctx.shape(value) != list(rt.shape):
        value = hlo.reshape(t, value)
    return value


# --- reductions ----------------------------------------------------------------------------
def _declare_reduction(name, kind, accumulate):
    def rule(ctx, op, x):
        a = op.python_attrs()
        dims = _axes(a["axis"], len(ctx.shape(x)))
        if accumulate:
            x = _convert(ctx, x, _acc_dtype(ctx.dtype(x)))
        return _finish(ctx, op, reduce_dims(ctx, x, dims, kind))
    register_lowering(name)(rule)


for _name, _kind, _acc in (("reduce_sum", "add", True), ("reduce_prod", "mul", True),
                           ("reduce_max", "max", False), ("reduce_min", "min", False),
                           ("reduce_any", "or", False), ("reduce_all", "and", False)):
    _declare_reduction(_name, _kind, _acc)


@register_lowering("reduce_mean")
def _reduce_mean(ctx, op, x):
    a = op.python_attrs()
    shape = ctx.shape(x)
    dims = _axes(a["axis"], len(shape))
    count = int(np.prod([shape[d] for d in dims], dtype=np.int64))
    dt = ctx.dtype(x)
    if dt.is_integer:
        if count == 0:
            return ctx.splat(0, ctx.result_type(op))
        # narrow integers must not overflow while summing: int64 (which wraps, like TF's)
        s = reduce_dims(ctx, _convert(ctx, x, D.int64), dims, "add")
        q = hlo.divide(s, ctx.splat(count, s.type))      # integer divide truncates, as in C
        return _finish(ctx, op, q)
    s = reduce_dims(ctx, _convert(ctx, x, _acc_dtype(dt)), dims, "add")
    # an empty mean is 0/0 = NaN, as in the kernel
    return _finish(ctx, op, hlo.divide(s, ctx.splat(count, s.type)))


# --- argmax / argmin -----------------------------------------------------------------------
def _declare_arg(name, direction, nan_fill):
    def rule(ctx, op, x):
        a = op.python_attrs()
        shape = ctx.shape(x)
        axis = a["axis"] % len(shape)
        dt = ctx.dtype(x)
        if dt.is_floating:
            # The kernel replaces NaN by -inf (argmax) / +inf (argmin): NaN never wins, and an
            # all-NaN slice (or NaN next to the fill value) gives the first index.
            fill = ctx.splat(nan_fill, x.type)
            x = hlo.select(compare(ctx, x, x, "NE"), fill, x)
        idx_dt = a["output_type"]
        iota = hlo.iota(ctx.tensor_type(idx_dt, shape),
                        ir.IntegerAttr.get(ir.IntegerType.get_signless(64), axis))
        out_shape = shape[:axis] + shape[axis + 1:]
        val_s, idx_s = ctx.tensor_type(dt, ()), ctx.tensor_type(idx_dt, ())
        kind = "max" if direction == "GT" else "min"
        inits = [ctx.constant(np.asarray(_identity(dt, kind), dt.np)),
                 ctx.constant(np.asarray(0, idx_dt.np))]
        out_types = [ctx.tensor_type(dt, out_shape), ctx.tensor_type(idx_dt, out_shape)]
        red = hlo.ReduceOp(out_types, [x, iota], inits, ir.DenseI64ArrayAttr.get([axis]))
        block = red.body.blocks.append(val_s, idx_s, val_s, idx_s)
        with ir.InsertionPoint(block):
            av, ai, bv, bi = block.arguments
            # the better value wins; among equal values the lower index (NumPy's first hit),
            # which keeps the combiner commutative and associative
            better = compare(ctx, av, bv, direction)
            tie = hlo.and_(compare(ctx, av, bv, "EQ"), compare(ctx, ai, bi, "LT"))
            take_a = hlo.or_(better, tie)
            hlo.return_([hlo.select(take_a, av, bv), hlo.select(take_a, ai, bi)])
        return red.results[1]
    register_lowering(name)(rule)


_declare_arg("argmax", "GT", -np.inf)
_declare_arg("argmin", "LT", np.inf)


# --- cumsum / cumprod ----------------------------------------------------------------------
def scan(ctx, x, axis, kind, exclusive=False, reverse=False):
    """Inclusive (or exclusive) prefix combine of `x` along `axis` with `kind` (add/mul).

    A reduce_window whose window spans the whole axis, padded with n-1 identities in front:
    output i combines inputs 0..i. XLA recognises this form and rewrites it into a
    logarithmic-depth scan, so neither compile time nor run time grows like n**2 (a hand-made
    log-step scan of pads and slices compiled several times slower)."""
    shape = ctx.shape(x)
    n = shape[axis]
    if n == 0:
        return x
    dt = ctx.dtype(x)
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
        x = hlo.slice(x, ir.DenseI64ArrayAttr.get(start), ir.DenseI64ArrayAttr.get(limit),
                      ir.DenseI64ArrayAttr.get([1] * rank))
        pad = n
    padding = np.zeros((rank, 2), np.int64)
    padding[axis] = (0, pad) if reverse else (pad, 0)   # reversed windows look ahead
    scalar_t = ctx.tensor_type(dt, ())
    init = ctx.constant(np.asarray(_identity(dt, kind), dtype=dt.np))
    op = hlo.ReduceWindowOp(
        [ctx.tensor_type(dt, shape)], [x], [init], ir.DenseI64ArrayAttr.get(window),
        window_strides=ir.DenseI64ArrayAttr.get([1] * rank),
        padding=ir.DenseIntElementsAttr.get(padding))
    block = op.body.blocks.append(scalar_t, scalar_t)
    with ir.InsertionPoint(block):
        hlo.return_([_COMBINE[kind](*block.arguments)])
    return op.result


def _declare_scan(name, kind):
    def rule(ctx, op, x):
        a = op.python_attrs()
        axis = a["axis"] % len(ctx.shape(x))
        dt = ctx.dtype(x)
        out = scan(ctx, _convert(ctx, x, _acc_dtype(dt)), axis, kind, a["exclusive"],
                   a["reverse"])
        return _convert(ctx, out, dt)
    register_lowering(name)(rule)


_declare_scan("cumsum", "add")
_declare_scan("cumprod", "mul")
