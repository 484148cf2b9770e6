"""Gradients of the array family: reshaping, joining, slicing, padding, gather/scatter, sort.

Slicing gradients place the upstream gradient back with static pads and gathers when the
input's dims are known; with unknown dims they scatter it at the coordinates the same slice
picks out of index tensors (see `_util.unslice`), so traced functions with a None batch dim
differentiate too. TF gives the `constant_values` of a constant pad no gradient; here it gets
its true one (the sum of the gradient over the padded border).
"""
from __future__ import annotations

from ...ir import dtypes as D
from ...ir.ops.array import NEW_AXIS, gather_axes, strided_slice_plan
from ...ir.registry import InferenceError
from ..composite.indexed_slices import IndexedSlices
from ..ops import array as A
from ..ops import math as M
from ..ops import reduce as R
from ._util import (attr, coordinate, crop, dims, gradient, graph_attrs, need_rank, place,
                    positions, rank, reshape_like, slice_axis, unbroadcast, unslice,
                    unsupported)


@gradient("identity")
def _identity_grad(op, g):
    return [g]


@gradient("reshape")
def _reshape_grad(op, g):
    return [reshape_like(g, op.inputs[0], "reshape")]


@gradient("transpose")
def _transpose_grad(op, g):
    perm = attr(op, "perm")
    r = len(perm)
    inverse = [0] * r
    for i, p in enumerate(perm):
        inverse[p % r] = i
    return [A.transpose(g, inverse)]


@gradient("expand_dims")
def _expand_dims_grad(op, g):
    # The inserted axis, counted in the output: a negative axis counts from its end as well.
    return [A.squeeze(g, [attr(op, "axis")])]


@gradient("squeeze")
def _squeeze_grad(op, g):
    x = op.inputs[0]
    axes = attr(op, "axis")
    r = rank(x)
    if axes and r is not None:
        for a in sorted({a % r for a in axes}):
            g = A.expand_dims(g, a)
        return [g]
    return [reshape_like(g, x, "squeeze")]


@gradient("broadcast_to")
def _broadcast_to_grad(op, g):
    return [unbroadcast(g, op.inputs[0])]


@gradient("reverse")
def _reverse_grad(op, g):
    return [A.reverse(g, list(attr(op, "axis")))]


# --- joining and splitting ----------------------------------------------------------------
def _dim_size(x, axis, dtype):
    """x.shape[axis] as a Python int when static, else a scalar tensor of `dtype`."""
    d = dims(x)[axis]
    if d is not None:
        return d
    return R.reduce_sum(M.add(A.zeros_like(positions(x, axis, dtype)), 1))


@gradient("concat")
def _concat_grad(op, g):
    xs = op.inputs
    r = next((rank(x) for x in xs if rank(x) is not None), None)
    if r is None:
        raise unsupported("concat", "the inputs' rank is unknown")
    axis = attr(op, "axis") % r
    sizes = [dims(x)[axis] if rank(x) is not None else None for x in xs]
    if sizes.count(None) <= 1:
        parts = A.split(g, [-1 if s is None else s for s in sizes], axis=axis)
        return list(parts)
    # Several unknown sizes: gather each input's run of positions, offset by its predecessors.
    out = []
    offset = 0
    for x in xs:
        idx = M.add(positions(x, axis, D.int32), offset)
        out.append(A.gather(g, idx, axis=axis))
        offset = M.add(offset, _dim_size(x, axis, D.int32))
    return out


@gradient("split")
def _split_grad(op, *grads):
    parts = [A.zeros_like(y) if gy is None else gy for gy, y in zip(grads, op.outputs)]
    return [A.concat(parts, attr(op, "axis"))]


@gradient("tile")
def _tile_grad(op, g):
    x = op.inputs[0]
    mult = attr(op, "multiples")
    if graph_attrs(op):
        raise unsupported("tile", "the multiples are computed in the graph")
    if not mult:
        return [g]
    if 0 in mult:
        return [A.zeros_like(x)]
    xs = dims(x) or [None] * len(mult)
    if xs.count(None) <= 1:
        # [m0*d0, m1*d1, ...] -> [m0, d0, m1, d1, ...], then sum the copies away.
        shape = []
        for m, d in zip(mult, xs):
            shape += [m, -1 if d is None else d]
        summed = R.reduce_sum(A.reshape(g, shape), tuple(range(0, 2 * len(mult), 2)))
        return [summed]
    for axis, m in enumerate(mult):
        if m > 1:
            g = M.add_n(A.split(g, m, axis=axis))
    return [g]


# --- padding ------------------------------------------------------------------------------
def _pad_pairs(op):
    p = attr(op, "paddings")
    return [(p[2 * i], p[2 * i + 1]) for i in range(len(p) // 2)]


def _fold(g, axis, before, after, symmetric):
    """The gradient of a REFLECT/SYMMETRIC pad along one axis: the mirrored borders add onto
    the elements they copy (REFLECT skips the edge element, SYMMETRIC repeats it)."""
    center = slice_axis(g, axis, before, -after if after else None)
    skip = 0 if symmetric else 1
    if before:
        mirror = A.reverse(slice_axis(g, axis, 0, before), [axis])
        parts = [slice_axis(center, axis, 0, skip)] if skip else []
        parts.append(M.add(slice_axis(center, axis, skip, skip + before), mirror))
        parts.append(slice_axis(center, axis, skip + before, None))
        center = A.concat(parts, axis)
    if after:
        mirror = A.reverse(slice_axis(g, axis, -after, None), [axis])
        lo = -after - skip
        parts = [slice_axis(center, axis, 0, lo),
                 M.add(slice_axis(center, axis, lo, -skip if skip else None), mirror)]
        if skip:
            parts.append(slice_axis(center, axis, -skip, None))
        center = A.concat(parts, axis)
    return center


@gradient("pad")
def _pad_grad(op, g):
    x, c = op.inputs[:2]
    mode = attr(op, "mode")
    dynamic = graph_attrs(op).get("paddings")
    if dynamic is not None:
        if mode != "CONSTANT":
            raise unsupported("pad", f"{mode} paddings computed in the graph")
        # flat (before, after) pairs: the befores are every other entry
        inner = A.slice(g, dynamic[::2], A.shape(x, out_type=dynamic.dtype))
        return [inner, M.subtract(R.reduce_sum(g), R.reduce_sum(inner))]
    pairs = _pad_pairs(op)
    if mode == "CONSTANT":
        # The constant fills exactly where a padded tensor of zeros holds ones.
        border = A.pad(A.zeros_like(x), [list(p) for p in pairs], constant_values=A.ones_like(c))
        return [crop(g, pairs), R.reduce_sum(M.multiply(g, border))]
    for axis, (b, a) in enumerate(pairs):
        if b or a:
            g = _fold(g, axis, b, a, mode == "SYMMETRIC")
    return [g, None]


# --- slicing ------------------------------------------------------------------------------
@gradient("slice")
def _slice_grad(op, g):
    x = op.inputs[0]
    begin, size = attr(op, "begin"), attr(op, "size")
    xs = dims(x)
    if xs is None:
        raise unsupported("slice", "the input's rank is unknown")
    dynamic = graph_attrs(op)
    if dynamic:
        begin, size = dynamic.get("begin", begin), dynamic.get("size", size)
        return [unslice(x, g, lambda t: A.slice(t, begin, size))]
    rows = []
    for d, b, s in zip(xs, begin, size):
        if s == -1:
            rows.append([b, 0])
        elif d is None:
            return [unslice(x, g, lambda t: A.slice(t, begin, size))]
        else:
            rows.append([b, d - b - s])
    if not any(b or a for b, a in rows):
        return [g]
    return [A.pad(g, rows)]


_SENTINELS = (1_000_003, 1_000_033)  # stand-ins for unknown dims when reading a slice spec


def _static_strided_plan(xs, spec):
    """The strided-slice plan for static dims, with each unknown dim of `xs` required to be
    taken whole (start 0, stride 1, every element). None when that does not hold."""
    if None not in xs:
        return strided_slice_plan(tuple(xs), **spec)[0]
    plans = []
    for s in _SENTINELS:
        try:
            plans.append(strided_slice_plan(tuple(s if d is None else d for d in xs), **spec)[0])
        except InferenceError:
            return None
    full = 0
    for e1, e2 in zip(*plans):
        if e1 is NEW_AXIS:
            continue
        if xs[full] is None and not (isinstance(e1, tuple) and e1 == (0, _SENTINELS[0], 1)
                                     and e2 == (0, _SENTINELS[1], 1)):
            return None
        full += 1
    return plans[0]


@gradient("strided_slice")
def _strided_slice_grad(op, g):
    x = op.inputs[0]
    xs = dims(x)
    if xs is None:
        raise unsupported("strided_slice", "the input's rank is unknown")
    spec = {k: attr(op, k) for k in ("begin", "end", "strides", "begin_mask", "end_mask",
                                     "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")}
    dynamic = graph_attrs(op)
    if dynamic:
        spec.update(dynamic)
        return [unslice(x, g, lambda t: A.strided_slice(t, **spec))]
    plan = _static_strided_plan(xs, spec)
    if plan is None:
        return [unslice(x, g, lambda t: A.strided_slice(t, **spec))]
    out_axis = 0
    new_axes, shrunk, kept = [], [], []
    full = 0
    for e in plan:
        if e is NEW_AXIS:
            new_axes.append(out_axis)
            out_axis += 1
        elif isinstance(e, int):
            shrunk.append(full)
            full += 1
        else:
            kept.append((full, e))
            out_axis += 1
            full += 1
    if any(e[1] == 0 for _, e in kept):
        return [A.zeros_like(x)]
    if new_axes:
        g = A.squeeze(g, new_axes)
    for a in shrunk:
        g = A.expand_dims(g, a)
    entries = [e for e in plan if e is not NEW_AXIS]  # one per input dim
    rows = [[0, 0] for _ in xs]
    for a in shrunk:
        rows[a] = [entries[a], xs[a] - entries[a] - 1]
    for a, (b, n, s) in kept:
        if xs[a] is None:
            continue  # taken whole
        if s == 1:
            rows[a] = [b, xs[a] - b - n]
        else:
            g = place(g, a, b, s, xs[a])
    if any(b or e for b, e in rows):
        g = A.pad(g, rows)
    return [g]


# --- gather and scatter -------------------------------------------------------------------
def _index_tensor(ix):
    """Indices as int32/int64 (scatters take no int16)."""
    return M.cast(ix, D.int32) if ix.dtype not in (D.int32, D.int64) else ix


@gradient("gather")
def _gather_grad(op, g):
    p, ix = op.inputs
    rp, ri = need_rank(p, "gather"), need_rank(ix, "gather")
    axis, bd = gather_axes(rp, ri, attr(op, "axis"), attr(op, "batch_dims"))
    if axis == 0 and bd == 0 and p.shape[0] is not None:
        # TF's gradient for the gathered rows only: an IndexedSlices (its dense conversion
        # needs the row count while tracing, so an unknown one takes the dense path below)
        return [_gathered_rows(p, ix, g), None]
    ix = _index_tensor(ix)
    ni = ri - bd
    # Scatter into p laid out as [batch, axis, pre, post]: index tuples (batch..., ix).
    order = list(range(bd)) + [axis] + list(range(bd, axis)) + list(range(axis + 1, rp))
    identity = order == list(range(rp))
    target = A.zeros_like(p) if identity else A.transpose(A.zeros_like(p), order)
    # g is [batch, pre, ix, post]; the scatter wants [batch, ix, pre, post].
    g_order = (list(range(bd)) + list(range(axis, axis + ni)) + list(range(bd, axis))
               + list(range(axis + ni, rank(g))))
    if g_order != list(range(len(g_order))):
        g = A.transpose(g, g_order)
    coords = [coordinate(ix, k, ix.dtype) for k in range(bd)] + [ix]
    idx = A.stack(coords, axis=-1)
    out = A.tensor_scatter_nd_add(target, idx, g)
    if not identity:
        back = [0] * rp
        for i, o in enumerate(order):
            back[o] = i
        out = A.transpose(out, back)
    return [out, None]


def _gathered_rows(p, ix, g):
    """The IndexedSlices TF's gather gradient gives: one row of g per (flattened) index."""
    n = A.size(ix)
    rows = A.concat([A.reshape(n, [1]), A.shape(p)[1:]], 0)
    return IndexedSlices(A.reshape(g, rows), A.reshape(ix, [-1]), A.shape(p))


def _gather_nd_adjoint(p, ix, g, bd):
    """g (shaped like gather_nd(p, ix, bd)) added into zeros of p's shape."""
    ri = need_rank(ix, "gather_nd")
    k = dims(ix)[-1]
    ix = _index_tensor(ix)
    if k == 0:
        # Every index tuple selects the whole of p (per batch): sum over the index dims.
        summed = tuple(range(bd, ri - 1))
        return R.reduce_sum(g, summed) if summed else g
    if bd:
        ones = M.add(R.reduce_sum(A.zeros_like(ix), -1, keepdims=True), 1)
        coords = [R.cumsum(ones, j, exclusive=True) for j in range(bd)]
        ix = A.concat(coords + [ix], -1)
    return A.tensor_scatter_nd_add(A.zeros_like(p), ix, g)


@gradient("gather_nd")
def _gather_nd_grad(op, g):
    p, ix = op.inputs
    return [_gather_nd_adjoint(p, ix, g, attr(op, "batch_dims")), None]


@gradient("scatter_nd")
def _scatter_nd_grad(op, g):
    ix, upd = op.inputs
    return [None, A.gather_nd(g, ix)]


@gradient("tensor_scatter_nd_update")
def _scatter_update_grad(op, g):
    t, ix, upd = op.inputs
    # Overwritten elements of `tensor` get nothing; every update (duplicates included, as in
    # TF) gets the gradient at its index.
    return [A.tensor_scatter_nd_update(g, ix, A.zeros_like(upd)), None, A.gather_nd(g, ix)]


@gradient("tensor_scatter_nd_add")
def _scatter_add_grad(op, g):
    t, ix, upd = op.inputs
    return [g, None, A.gather_nd(g, ix)]


# --- sorting ------------------------------------------------------------------------------
@gradient("sort")
def _sort_grad(op, g):
    x = op.inputs[0]
    r = need_rank(x, "sort")
    axis = attr(op, "axis") % r
    direction = "DESCENDING" if attr(op, "descending") else "ASCENDING"
    # Sorted position j holds x[order[j]]; x[i] gets g[inverse[i]]. Ties are assigned in
    # their original order, as TF's stable sort does.
    order = A.argsort(x, axis, direction=direction, stable=True)
    perm = None
    if axis != r - 1:
        perm = list(range(r))
        perm[axis], perm[-1] = perm[-1], perm[axis]
        order, g = A.transpose(order, perm), A.transpose(g, perm)
    inverse = A.argsort(order, -1, stable=True)
    out = A.gather(g, inverse, axis=r - 1, batch_dims=r - 1)
    if perm is not None:
        out = A.transpose(out, perm)
    return [out]

