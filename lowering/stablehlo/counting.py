"""unique, bincount and searchsorted under XLA. `unique*` and a bincount of value-dependent
length are refused at compile time; a bincount pinned by minlength == maxlength is a
scatter-add (values outside [0, length) dropped, as XLA's scatter does); searchsorted
compares every value with every entry of its row and counts the entries before it."""
from __future__ import annotations

from ...ir.errors import UnimplementedError
from ...runtime.jax_internals import hlo
from .array import scatter
from .core import _where, register_lowering


def _refuse(ctx, op, *operands):
    raise UnimplementedError(
        None, op.name, f"jit_compile=True: {op.name.removeprefix('df.')} at {_where(op)} "
                       f"returns as many elements as the values call for, a size known only "
                       f"at run time, and XLA needs static shapes; run this function without "
                       f"jit_compile (for bincount, minlength == maxlength fixes the size)")


register_lowering("unique")(_refuse)
register_lowering("unique_with_counts")(_refuse)


@register_lowering("bincount")
def _bincount(ctx, op, arr, weights, *, per_row, binary_output):
    ty = ctx.result_type(op)
    zeros = ctx.zeros(ty)
    if ctx.is_empty(ty) or ctx.is_empty(arr):
        return zeros
    shape = ctx.shape(arr)
    weights = ctx.broadcast(weights, ctx.like(weights, shape))
    if binary_output:
        weights = ctx.splat(1, ctx.like(weights, shape))
    index = ctx.reshape(arr, shape + [1])
    if per_row:  # (row, value) pairs
        row = ctx.iota(index.type, 0)
        index = hlo.concatenate([row, index], len(shape))
    combine = hlo.maximum if binary_output else hlo.add
    return scatter(ctx, zeros, index, weights, combine)


@register_lowering("searchsorted")
def _searchsorted(ctx, op, seq, values, *, side, out_type):
    vshape, sshape = ctx.shape(values), ctx.shape(seq)
    lead = len(vshape) - 1
    pair = vshape + [sshape[-1]]
    # [..., M, N]: values along the second-to-last axis, the sequence along the last.
    v = ctx.spread(values, pair, range(lead + 1))
    s = ctx.spread(seq, pair, list(range(lead)) + [lead + 1])
    before = ctx.compare(s, v, "LT" if side == "left" else "LE")
    return ctx.reduce(ctx.convert(before, out_type), [lead + 1], "add")
