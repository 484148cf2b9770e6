"""unique, bincount and searchsorted under XLA. `unique*` and a bincount of value-dependent
length are refused at compile time; a bincount pinned by minlength == maxlength is a
scatter-add (values outside [0, length) dropped, as XLA's scatter does); searchsorted
compares every value with every entry of its row and counts the entries before it."""
from __future__ import annotations

from jax._src.lib.mlir import ir
import jaxlib.mlir.dialects.stablehlo as hlo

from ...ir.errors import UnimplementedError
from .array import _is_empty, _scatter, _with_shape
from .core import _where, register_lowering
from .math import compare
from .reduce import _convert, reduce_dims


def _refuse(ctx, op, *operands):
    raise UnimplementedError(
        None, op.name, f"jit_compile=True: {op.name.removeprefix('df.')} at {_where(op)} "
                       f"returns as many elements as the values call for, a size known only "
                       f"at run time, and XLA needs static shapes; run this function without "
                       f"jit_compile (for bincount, minlength == maxlength fixes the size)")


register_lowering("unique")(_refuse)
register_lowering("unique_with_counts")(_refuse)


@register_lowering("bincount")
def _bincount(ctx, op, arr, weights):
    attrs = op.python_attrs()
    per_row, binary_output = attrs["per_row"], attrs["binary_output"]
    ty = ctx.result_type(op)
    zeros = ctx.splat(0, ty)
    if _is_empty(ty) or _is_empty(arr.type):
        return zeros
    shape = ctx.shape(arr)
    weights = ctx.broadcast(weights, _with_shape(weights, shape))
    if binary_output:
        weights = ctx.splat(1, _with_shape(weights, shape))
    idx_t = _with_shape(arr, shape + [1])
    index = hlo.reshape(idx_t, arr)
    if per_row:  # (row, value) pairs
        row = hlo.iota(idx_t, ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0))
        index = hlo.concatenate([row, index], len(shape))
    combine = hlo.maximum if binary_output else hlo.add
    return _scatter(ctx, zeros, index, weights, combine)


@register_lowering("searchsorted")
def _searchsorted(ctx, op, seq, values):
    attrs = op.python_attrs()
    vshape, sshape = ctx.shape(values), ctx.shape(seq)
    lead = len(vshape) - 1
    pair_t = _with_shape(values, vshape + [sshape[-1]])
    # [..., M, N]: values along the second-to-last axis, the sequence along the last.
    v = hlo.broadcast_in_dim(pair_t, values, ir.DenseI64ArrayAttr.get(list(range(lead + 1))))
    s = hlo.broadcast_in_dim(pair_t, seq,
                             ir.DenseI64ArrayAttr.get(list(range(lead)) + [lead + 1]))
    before = compare(ctx, s, v, "LT" if attrs["side"] == "left" else "LE")
    return reduce_dims(ctx, _convert(ctx, before, attrs["out_type"]), [lead + 1], "add")
