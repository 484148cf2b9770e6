"""StableHLO lowering rules: array family.

Every shape is static here (the graph was specialized to concrete argument shapes), so rules
read sizes from the MLIR types and the attributes, and shape queries (`shape`, `size`,
`range`) become constants or iotas.

Where XLA and the NumPy kernels part ways:
- Out-of-range indices. The kernels raise InvalidArgumentError; XLA cannot raise from compiled
  code. `gather`/`gather_nd` clamp each start index into the valid range (so -1 reads element
  0 and n reads element n-1), and `scatter_nd`/`tensor_scatter_nd_*` drop updates whose index
  falls outside the output. TF's own XLA kernels behave the same way.
- `where_indices` has a value-dependent output shape, which XLA cannot express: it raises
  UnimplementedError at lowering time.
"""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...ir.dialect import decode_attr, dtype_of
from ...ir.errors import UnimplementedError
from ...ir.ops.array import NEW_AXIS, gather_axes, range_size, strided_slice_plan
from ...runtime.jax_internals import hlo, ir
from .core import _where, register_lowering


# --- constants, identity ------------------------------------------------------------------
def _const_value(op) -> np.ndarray:
    """The `value` attribute as an array of the op's dtype. The xDSL attribute holds the raw
    little-endian element bytes, so reading them directly skips decoding a Python list (slow
    for large constants); any other layout goes through the dialect's decoder."""
    dt = decode_attr(op.attributes["dtype"], "dtype")
    attr = op.attributes["value"]
    raw = getattr(getattr(attr, "data", None), "data", None)
    if isinstance(raw, (bytes, bytearray)):
        ty = attr.get_type()
        shape = tuple(ty.get_shape())
        stored = np.dtype(dtype_of(ty.element_type).np).newbyteorder("<")
        if len(raw) == int(np.prod(shape, dtype=np.int64)) * stored.itemsize:
            return np.frombuffer(raw, dtype=stored).reshape(shape).astype(dt.np, copy=False)
    return np.asarray(decode_attr(attr, "array"), dtype=dt.np)


def _uniform(value: np.ndarray) -> bool:
    """All elements bit-identical (compared as bits: -0.0 is not 0.0, NaN payloads count)."""
    # each element's bytes as a row: NumPy has no 16-byte unsigned type to view complex128 as
    rows = np.ascontiguousarray(value).reshape(-1).view(np.uint8).reshape(value.size, -1)
    return bool((rows == rows[0]).all())


@register_lowering("const")
def _const(ctx, op, *_):
    # takes no decoded attributes: a large `value` is read from its raw bytes instead
    value = _const_value(op)
    # A uniform constant (zeros, ones) becomes a broadcast scalar: the module stays small
    # however large the tensor, and XLA folds the broadcast.
    if value.size > 1 and (not any(value.strides) or _uniform(value)):  # a splat view, or equal
        return ctx.splat(value.flat[0], ctx.result_type(op))
    return ctx.constant(value)


@register_lowering("identity")
@register_lowering("stop_gradient")
def _identity(ctx, op, x):
    return x


# --- reshaping ----------------------------------------------------------------------------
@register_lowering("reshape")
@register_lowering("expand_dims")
@register_lowering("squeeze")
def _reshape(ctx, op, x):
    # All three only relabel the dims of a row-major buffer.
    t = ctx.result_type(op)
    return x if x.type == t else hlo.reshape(t, x)


@register_lowering("transpose")
def _transpose(ctx, op, x, *, perm):
    if list(perm) == sorted(perm):
        return x
    return hlo.transpose(x, ctx.i64s(perm))


@register_lowering("broadcast_to")
def _broadcast_to(ctx, op, x):
    return ctx.broadcast(x, ctx.result_type(op))


@register_lowering("fill_like")
def _fill_like(ctx, op, x, value):
    return hlo.broadcast_in_dim(ctx.result_type(op), value, ctx.i64s(()))


# --- joining and splitting ----------------------------------------------------------------
@register_lowering("concat")
def _concat(ctx, op, *xs, axis):
    return hlo.concatenate(list(xs), axis)


@register_lowering("split")
def _split(ctx, op, x, *, axis):
    outs, lo = [], 0
    for t in ctx.result_types(op):
        size = ir.RankedTensorType(t).shape[axis]
        outs.append(ctx.slice_dim(x, axis, lo, lo + size))
        lo += size
    return outs


@register_lowering("tile")
def _tile(ctx, op, x, *, multiples):
    shape = ctx.shape(x)
    if all(m == 1 for m in multiples):
        return x
    # Broadcast into [m0, d0, m1, d1, ...] and merge each (m, d) pair: the copies of a dim
    # vary slowest, as in np.tile.
    wide = []
    for m, d in zip(multiples, shape):
        wide += [m, d]
    b = ctx.spread(x, wide, range(1, 2 * len(shape), 2))
    return hlo.reshape(ctx.result_type(op), b)


@register_lowering("pad")
def _pad(ctx, op, x, value, *, paddings, mode):
    rank = ctx.rank(x)
    before, after = paddings[0::2], paddings[1::2]
    if mode == "CONSTANT":
        return hlo.pad(x, value, ctx.i64s(before), ctx.i64s(after), ctx.i64s([0] * rank))
    # Mirror modes: concatenate reversed edge slices, one dim at a time. REFLECT leaves the
    # edge element out of the mirror, SYMMETRIC repeats it.
    skip = 1 if mode == "REFLECT" else 0
    for axis in range(rank):
        b, a = before[axis], after[axis]
        if not (b or a):
            continue
        d = ctx.shape(x)[axis]
        parts = []
        if b:
            parts.append(hlo.reverse(ctx.slice_dim(x, axis, skip, skip + b), ctx.i64s([axis])))
        parts.append(x)
        if a:
            parts.append(hlo.reverse(ctx.slice_dim(x, axis, d - skip - a, d - skip),
                                     ctx.i64s([axis])))
        x = hlo.concatenate(parts, axis)
    return x


@register_lowering("reverse")
def _reverse(ctx, op, x, *, axis):
    return hlo.reverse(x, ctx.i64s(sorted(axis))) if axis else x


# --- slicing ------------------------------------------------------------------------------
@register_lowering("slice")
def _slice_op(ctx, op, x, *, begin):
    size = ir.RankedTensorType(ctx.result_type(op)).shape
    return ctx.slice(x, begin, [b + s for b, s in zip(begin, size)])


@register_lowering("strided_slice")
def _strided_slice(ctx, op, x, **attrs):
    """The shared plan resolves masks and bounds; negative strides become a reverse of the
    dim followed by a positive-stride slice of the reversed coordinates."""
    shape = ctx.shape(x)
    index, _ = strided_slice_plan(tuple(shape), **attrs)
    start, limit, strides, flip = [], [], [], []
    dim = 0
    for entry in index:
        if entry is NEW_AXIS:
            continue
        d = shape[dim]
        if isinstance(entry, int):          # a shrunk dim: one element, dropped by reshape
            start.append(entry)
            limit.append(entry + 1)
            strides.append(1)
        else:
            b, size, s = entry
            if s < 0:
                flip.append(dim)
                b, s = d - 1 - b, -s
            if size == 0:
                b = 0
            start.append(b)
            limit.append(b + (size - 1) * s + 1 if size else b)
            strides.append(s)
        dim += 1
    if flip:
        x = hlo.reverse(x, ctx.i64s(flip))
    if start != [0] * len(shape) or limit != list(shape) or any(s != 1 for s in strides):
        x = ctx.slice(x, start, limit, strides)
    t = ctx.result_type(op)
    return x if x.type == t else hlo.reshape(t, x)


# --- gather and scatter -------------------------------------------------------------------
# XLA clamps gather start indices into range (no error is possible inside compiled code);
# the eager kernel raises InvalidArgumentError instead. TF's XLA GatherV2 clamps too.
@register_lowering("gather")
def _gather(ctx, op, params, indices, *, axis, batch_dims):
    pshape, ishape = ctx.shape(params), ctx.shape(indices)
    axis, bd = gather_axes(len(pshape), len(ishape), axis, batch_dims)
    t = ctx.result_type(op)
    if pshape[axis] == 0 or ctx.is_empty(t):
        # Nothing to read from (XLA would need a 1-wide slice of an empty dim); with
        # indices present the eager kernel raises here, XLA can only give zeros.
        return ctx.zeros(t)
    n_idx = len(ishape) - bd
    out_rank = len(ir.RankedTensorType(t).shape)
    # Output: batch dims, params[bd:axis], indices[bd:], params[axis+1:]. The indices' dims
    # (batch ones included) fill the positions that are not offset (slice) dims.
    offset = list(range(bd, axis)) + list(range(axis + n_idx, out_rank))
    dnums = hlo.GatherDimensionNumbers.get(
        offset_dims=offset, collapsed_slice_dims=[axis],
        operand_batching_dims=list(range(bd)), start_indices_batching_dims=list(range(bd)),
        start_index_map=[axis], index_vector_dim=len(ishape))
    sizes = [1 if i < bd or i == axis else d for i, d in enumerate(pshape)]
    return hlo.gather(params, indices, dnums, ctx.i64s(sizes), indices_are_sorted=False)


@register_lowering("gather_nd")
def _gather_nd(ctx, op, params, indices, *, batch_dims):
    bd = batch_dims
    pshape, ishape = ctx.shape(params), ctx.shape(indices)
    k = ishape[-1]
    t = ctx.result_type(op)
    if 0 in pshape[bd:bd + k] or ctx.is_empty(t):
        return ctx.zeros(t)               # see `gather`: no element to clamp onto
    lead = len(ishape) - 1
    indexed = list(range(bd, bd + k))
    dnums = hlo.GatherDimensionNumbers.get(
        offset_dims=list(range(lead, lead + len(pshape) - bd - k)),
        collapsed_slice_dims=indexed,
        operand_batching_dims=list(range(bd)), start_indices_batching_dims=list(range(bd)),
        start_index_map=indexed, index_vector_dim=lead)
    sizes = [1 if i < bd + k else d for i, d in enumerate(pshape)]
    return hlo.gather(params, indices, dnums, ctx.i64s(sizes), indices_are_sorted=False)


def scatter(ctx, base, indices, updates, combine, unique=False):
    """stablehlo.scatter of `updates` into `base` at the index rows in `indices`' last dim;
    `combine(old, new)` builds the update computation on scalars. XLA skips updates whose
    index is out of range (the eager kernel raises instead; TF's XLA skips them as well)."""
    ishape = ctx.shape(indices)
    k = ishape[-1]
    lead = len(ishape) - 1
    rank = len(ctx.shape(base))
    dnums = hlo.ScatterDimensionNumbers.get(
        update_window_dims=list(range(lead, lead + rank - k)),
        inserted_window_dims=list(range(k)), input_batching_dims=[],
        scatter_indices_batching_dims=[], scattered_dims_to_operand_dims=list(range(k)),
        index_vector_dim=lead)
    op = hlo.ScatterOp([base.type], [base], indices, [updates], dnums,
                       indices_are_sorted=False, unique_indices=unique)
    scalar = ctx.like(base, ())
    ctx.body(op.update_computation, (scalar, scalar), combine)
    return op.results[0]


def _nothing_to_scatter(ctx, base, indices) -> bool:
    return ctx.is_empty(base) or ctx.is_empty(indices)


def _scatter_add(ctx, base, indices, updates):
    add = hlo.or_ if ctx.dtype(base) is D.bool_ else hlo.add
    return scatter(ctx, base, indices, updates, add)


@register_lowering("scatter_nd")
def _scatter_nd(ctx, op, indices, updates):
    zeros = ctx.zeros(ctx.result_type(op))
    if _nothing_to_scatter(ctx, zeros, indices):
        return zeros
    return _scatter_add(ctx, zeros, indices, updates)


@register_lowering("tensor_scatter_nd_add")
def _tensor_scatter_nd_add(ctx, op, tensor, indices, updates):
    if _nothing_to_scatter(ctx, tensor, indices):
        return tensor
    return _scatter_add(ctx, tensor, indices, updates)


@register_lowering("tensor_scatter_nd_update")
def _tensor_scatter_nd_update(ctx, op, tensor, indices, updates):
    """Last duplicate wins, as in the kernel. XLA applies duplicate updates in an unspecified
    order (in parallel on GPU), so the losers are first sent out of range: a max-scatter of
    the update positions finds each target's last writer, deterministically."""
    if _nothing_to_scatter(ctx, tensor, indices):
        return tensor
    ishape = ctx.shape(indices)
    n = int(np.prod(ishape[:-1], dtype=np.int64))
    if n > 1:
        indices = _last_writers_only(ctx, ctx.shape(tensor), indices)
    return scatter(ctx, tensor, indices, updates, lambda old, new: new, unique=False)


def _last_writers_only(ctx, out_shape, indices):
    ishape = ctx.shape(indices)
    k, lead = ishape[-1], ishape[:-1]
    pos_dt = D.int32 if int(np.prod(lead, dtype=np.int64)) < 2 ** 31 else D.int64
    pos_t = ctx.tensor_type(pos_dt, lead)
    # Position of each update in row-major order over the leading index dims.
    pos = ctx.zeros(pos_t)
    stride = 1
    for dim in reversed(range(len(lead))):
        term = ctx.iota(pos_t, dim)
        if stride != 1:
            term = hlo.multiply(term, ctx.splat(stride, pos_t))
        pos = hlo.add(pos, term)
        stride *= lead[dim]
    owner = ctx.splat(-1, ctx.tensor_type(pos_dt, out_shape[:k]))
    owner = scatter(ctx, owner, indices, pos, hlo.maximum)
    # Reading back an out-of-range row clamps; such updates are dropped by XLA anyway.
    got = _gather_rows(ctx, owner, indices)
    keep = ctx.compare(got, pos, "EQ")
    keep = ctx.spread(keep, ishape, range(len(lead)))
    return hlo.select(keep, indices, ctx.splat(-1, indices.type))


def _gather_rows(ctx, table, indices):
    """table[indices[..., 0], ..., indices[..., k-1]] for a table of rank k."""
    ishape = ctx.shape(indices)
    k = ishape[-1]
    lead = len(ishape) - 1
    dnums = hlo.GatherDimensionNumbers.get(
        offset_dims=[], collapsed_slice_dims=list(range(k)), operand_batching_dims=[],
        start_indices_batching_dims=[], start_index_map=list(range(k)), index_vector_dim=lead)
    return hlo.gather(table, indices, dnums, ctx.i64s([1] * k), indices_are_sorted=False)


@register_lowering("where_indices")
def _where_indices(ctx, op, condition):
    raise UnimplementedError(
        None, op.name,
        f"jit_compile=True: where_indices (tf.where with only a condition) at {_where(op)} "
        f"returns one row per true element, a shape known only at run time, and XLA needs "
        f"static shapes. Use the 3-argument form tf.where(condition, x, y) (an "
        f"elementwise select), or run this function without jit_compile")


# --- generators and shape queries ---------------------------------------------------------
@register_lowering("range")
def _range(ctx, op, *, start, limit, delta, dtype):
    dt = D.as_dtype(dtype)
    t = ctx.result_type(op)
    n = range_size(start, limit, delta, dt)
    # As the kernel does: integers in int64 (exact; the bounds fit the dtype), floats in
    # float64 from the bounds rounded to the dtype, then one conversion.
    wide = D.int64 if dt.is_integer else D.float64
    if dt.is_integer:
        start, delta = int(start), int(delta)
    else:
        cast = dt.np.type
        start, delta = float(cast(start)), float(cast(delta))
    wide_t = ctx.tensor_type(wide, (n,))
    i = ctx.iota(wide_t, 0)
    v = hlo.add(ctx.splat(start, wide_t), hlo.multiply(i, ctx.splat(delta, wide_t)))
    return v if wide is dt else hlo.convert(t, v)


@register_lowering("shape")
def _shape(ctx, op, x, *, out_type):
    dt = D.as_dtype(out_type)
    return ctx.constant(np.array(ctx.shape(x), dtype=dt.np))


@register_lowering("size")
def _size(ctx, op, x, *, out_type):
    dt = D.as_dtype(out_type)
    return ctx.constant(np.array(int(np.prod(ctx.shape(x), dtype=np.int64)), dtype=dt.np))


# --- sorting ------------------------------------------------------------------------------
def _less(ctx, a, b):
    """a < b with NaN above everything (NaNs tie with each other), as np.sort orders."""
    lt = ctx.compare(a, b, "LT")
    if not ctx.dtype(a).is_floating:
        return lt
    a_nan, b_nan = ctx.compare(a, a, "NE"), ctx.compare(b, b, "NE")
    return hlo.or_(hlo.and_(hlo.not_(a_nan), b_nan), lt)


def _sort(ctx, values, axis, descending, extra=()):
    """A stable sort of `values` along `axis` carrying `extra` operands along."""
    operands = [values, *extra]
    op = hlo.SortOp([v.type for v in operands], operands, dimension=ctx.i64(axis),
                    is_stable=ir.BoolAttr.get(True))
    scalars = []
    for v in operands:
        scalars += [ctx.like(v, ())] * 2

    def in_order(a, b, *_):
        return _less(ctx, b, a) if descending else _less(ctx, a, b)
    ctx.body(op.comparator, scalars, in_order)
    return list(op.results)


@register_lowering("sort")
def _sort_op(ctx, op, values, *, axis, descending):
    # Descending = the ascending result reversed, exactly as the kernel builds it (ties such
    # as -0.0 and 0.0 then land in the same order).
    out = _sort(ctx, values, axis, False)[0]
    return hlo.reverse(out, ctx.i64s([axis])) if descending else out


@register_lowering("argsort")
def _argsort(ctx, op, values, *, axis, descending):
    pos = ctx.iota(ctx.result_type(op), axis)
    # Always stable, also descending: equal values keep their original order (NaN first).
    return _sort(ctx, values, axis, descending, extra=(pos,))[1]
