"""Helpers shared by the gradient modules.

Everything here builds tensors with flowjit's public ops, so a helper works on eager tensors
and on symbolic ones alike. Static shapes are read where they are known; where a dim is
unknown (None) the helpers fall back to computing the quantity from a tensor of that shape
(positions along an axis are a cumulative sum of ones, zeros come from `zeros_like`), so a
graph with a None batch dim still differentiates. Only an unknown *rank* is refused.
"""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...ir.registry import REQUIRED
from ..ops import array as A
from ..ops import math as M
from ..ops import reduce as R
from ..ops import segment as S
from . import register_gradient


# --- registration -------------------------------------------------------------------------
def is_float(t) -> bool:
    return t is not None and t.dtype.is_floating


def gradient(*opnames):
    """`register_gradient` plus the rules every gradient shares: integer and bool inputs get
    None, and so does every input when no upstream gradient arrived (or no input is a float:
    nothing there to differentiate)."""
    def deco(fn):
        def grad_fn(op, *grads):
            n = len(op.inputs)
            if all(g is None for g in grads) or not any(is_float(t) for t in op.inputs):
                return [None] * n
            out = list(fn(op, *grads))
            if op.opdef.tensor_attrs:  # run-time attribute operands get no gradient
                out += [None] * (n - len(out))
            if len(out) != n:
                raise AssertionError(f"gradient of '{op.opdef.name}' returned {len(out)} "
                                     f"entries for {n} inputs")
            return [g if is_float(t) else None for g, t in zip(out, op.inputs)]
        grad_fn.__name__ = fn.__name__
        grad_fn.__doc__ = fn.__doc__
        register_gradient(*opnames)(grad_fn)
        return fn
    return deco


def attr(op, name):
    """An attribute of the recorded op, with the declaration's default when it was not given."""
    if name in op.attrs:
        return op.attrs[name]
    default = op.opdef.attrs[name].default
    if default is REQUIRED:
        raise KeyError(f"op '{op.opdef.name}' was recorded without attribute '{name}'")
    return default


def graph_attrs(op) -> dict:
    """The op's attributes computed in the graph (its `tensor_attrs` fed by operands), as the
    tensors that hold them; empty for the usual static attributes."""
    n = len(op.opdef.inputs)
    return dict(zip(op.opdef.attr_operands(op.attrs), op.inputs[n:]))


def unsupported(opname, why):
    return NotImplementedError(f"gradient of '{opname}': {why}")


# --- static shapes ------------------------------------------------------------------------
def dims(t):
    """Static dims as a list (None entries unknown), or None for an unknown rank."""
    return t.shape.dims


def rank(t):
    return t.shape.rank


def need_rank(t, opname) -> int:
    r = rank(t)
    if r is None:
        raise unsupported(opname, "the input's rank is unknown; the gradient needs it")
    return r


def norm_axes(axis, r: int):
    """A reduction's axis attribute (None, int or tuple) as sorted non-negative axes."""
    if axis is None:
        return tuple(range(r))
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(sorted(a % r for a in axis))


def const(value, dtype):
    return A.constant(np.asarray(value, dtype=dtype.np), dtype=dtype)


# --- broadcasting -------------------------------------------------------------------------
def unbroadcast(grad, like):
    """Sum `grad` over the axes along which `like` was broadcast to produce it, so the result
    has `like`'s shape. Works on static shapes: leading extra axes are summed away, and axes
    where `like` has size 1 are summed with keepdims (a no-op if grad's dim is 1 too). An
    unknown dim of `like` is summed when it is 1 at run time (`_sum_if_one`)."""
    if grad is None:
        return None
    gs, ls = dims(grad), dims(like)
    if gs is None or ls is None:
        return _sum_to_run_time_shape(grad, like)
    lead = len(gs) - len(ls)
    if lead < 0:
        raise ValueError(f"unbroadcast: gradient of rank {len(gs)} for an operand of rank "
                         f"{len(ls)}")
    if lead:
        grad = R.reduce_sum(grad, tuple(range(lead)))
    ones = tuple(i for i, (g, l) in enumerate(zip(gs[lead:], ls)) if l == 1 and g != 1)
    if ones:
        grad = R.reduce_sum(grad, ones, keepdims=True)
    unknown = [i for i, (g, l) in enumerate(zip(gs[lead:], ls)) if l is None and g != 1]
    return _sum_if_one(grad, like, unknown) if unknown else grad


def _sum_to_run_time_shape(grad, like):
    """unbroadcast where a rank is known only at run time: each element of `grad` is added to
    the element of `like` it was broadcast from, numbered by broadcasting like's flat
    positions to grad's shape (reductions take their axes while tracing)."""
    like_shape, like_size = A.shape(like), A.size(like)
    positions = A.reshape(A.range(like_size), like_shape)
    ids = A.reshape(A.broadcast_to(positions, A.shape(grad)), [-1])
    summed = S.unsorted_segment_sum(A.reshape(grad, [-1]), ids, like_size)
    return A.reshape(summed, like_shape)


def _sum_if_one(grad, like, axes):
    """`grad` summed (keepdims) along each of `axes` where `like`'s run-time dim is 1, else
    unchanged, as TF's BroadcastGradientArgs decides at run time: [sum, grad] concatenated
    along the axis, sliced from 0 (like's dim is 1) or 1 to like's size."""
    like_dims = A.shape(like)
    for i in axes:
        begin, size = [0] * len(dims(grad)), [-1] * len(dims(grad))
        # 0 where like's dim is 1, else 1: |d - 1| capped, arithmetic XLA's shape
        # specialization evaluates (a comparison it does not)
        begin[i] = M.minimum(M.abs(M.subtract(like_dims[i], 1)), 1)
        size[i] = like_dims[i]
        both = A.concat([R.reduce_sum(grad, (i,), keepdims=True), grad], i)
        grad = A.slice(both, A.stack(begin), A.stack(size))
    return grad


def broadcast_like(t, like):
    """`t` broadcast to `like`'s shape (t's dims are 1 or equal to like's)."""
    ts, ls = dims(t), dims(like)
    if ts == ls and ls is not None and None not in ls:
        return t
    if ls is not None and None not in ls:
        return A.broadcast_to(t, ls)
    return M.add(t, A.zeros_like(like))


def keep_reduced(t, x, axis, keepdims, opname):
    """A reduction's output (or its gradient) with the reduced axes re-inserted as size 1, so
    it broadcasts against the input `x`."""
    if keepdims:
        return t
    r = rank(x)
    if r is None:
        if axis is None:
            return t  # a scalar: it broadcasts as it is
        raise unsupported(opname, "the input's rank is unknown")
    for a in norm_axes(axis, r):
        t = A.expand_dims(t, a)
    return t


# --- positions and indices, static or dynamic ---------------------------------------------
def positions(x, axis, dtype=D.int32):
    """The 1-D tensor [0, 1, ..., d-1] with d = x.shape[axis], even when d is unknown."""
    d = dims(x)
    r = len(d)
    axis %= r
    if d[axis] is not None:
        return A.range(d[axis], dtype=dtype)
    others = tuple(i for i in range(r) if i != axis)
    zeros = A.zeros_like(x, dtype=dtype)
    if others:
        zeros = R.reduce_sum(zeros, others)
    return R.cumsum(M.add(zeros, 1), 0, exclusive=True)


def coordinate(x, axis, dtype=D.int64):
    """An integer tensor of x's shape holding each element's index along `axis`."""
    return R.cumsum(A.ones_like(x, dtype=dtype), axis, exclusive=True)


def flat_positions(x, dtype=D.int64):
    """An integer tensor of x's shape holding each element's row-major position."""
    r = rank(x)
    ones = A.ones_like(x, dtype=dtype)
    total = None
    for k in range(r):
        c = R.cumsum(ones, k, exclusive=True)
        if k < r - 1:
            c = M.multiply(c, R.reduce_sum(ones, tuple(range(k + 1, r)), keepdims=True))
        total = c if total is None else M.add(total, c)
    return total


def reshape_like(t, x, opname="reshape"):
    """`t` reshaped to x's shape: a static reshape when at most one of x's dims is unknown,
    else a gather of the flattened `t` at each element's row-major position."""
    xs = dims(x)
    if xs is None:
        raise unsupported(opname, "the input's rank is unknown")
    if dims(t) == xs and None not in xs:
        return t
    if xs.count(None) <= 1:
        return A.reshape(t, [-1 if d is None else d for d in xs])
    if not xs:
        return A.reshape(t, [])
    return A.gather(A.reshape(t, [-1]), flat_positions(x))


def unslice(x, g, slicer):
    """The adjoint of a slicing function (`slicer` picks elements of a tensor of x's shape
    without combining them; it returns a tensor of g's shape): g scattered into zeros of x's
    shape at the positions the slicer picks. Works with unknown dims: the slicer is applied
    to each coordinate tensor of x, which yields the scatter indices."""
    r = rank(x)
    if r == 0:
        return g
    idx = A.stack([slicer(coordinate(x, k)) for k in range(r)], axis=-1)
    return A.tensor_scatter_nd_add(A.zeros_like(x), idx, g)


# --- static placement along an axis -------------------------------------------------------
def pad_axis(t, axis, before, after):
    if not before and not after:
        return t
    r = rank(t)
    rows = [[0, 0] for _ in range(r)]
    rows[axis] = [before, after]
    return A.pad(t, rows)


def place(t, axis, offset, stride, total):
    """The adjoint of `u[offset : : stride]` (n elements) along `axis` of a u of static length
    `total`: t's n slices land at offset, offset + stride, ... and zeros fill the rest."""
    d = dims(t)
    n = d[axis]
    if n == 0:
        return pad_axis(t, axis, total, 0)
    if n is None:
        raise ValueError("place: the sliced length must be static")
    if stride < 0:  # the same positions, visited from the lowest
        return place(A.reverse(t, [axis]), axis, offset + (n - 1) * stride, -stride, total)
    if stride == 1 or n == 1:
        return pad_axis(t, axis, offset, total - offset - n)
    if d.count(None) <= 1:
        # Interleave stride-1 zeros after each slice ([n, 1] padded to [n, stride], merged),
        # then shift by `offset` and fit to `total` (dropping trailing zeros if too long).
        spread = pad_axis(A.expand_dims(t, axis + 1), axis + 1, 0, stride - 1)
        merged = d[:axis] + [n * stride] + d[axis + 1:]
        spread = A.reshape(spread, [-1 if x is None else x for x in merged])
        tail = total - offset - n * stride
        if tail < 0:
            spread = slice_axis(spread, axis, 0, n * stride + tail)
        return pad_axis(spread, axis, offset, max(tail, 0))
    src, keep = [], []
    for p in range(total):
        q, rem = divmod(p - offset, stride)
        ok = rem == 0 and 0 <= q < n
        src.append(q if ok else 0)
        keep.append(1 if ok else 0)
    out = A.gather(t, const(src, D.int32), axis=axis)
    mask = A.reshape(const(keep, t.dtype), [total] + [1] * (len(d) - 1 - axis))
    return M.multiply(out, mask)


def slice_axis(t, axis, begin, end):
    """t[..., begin:end, ...] along `axis` (None bounds are open), unknown dims allowed."""
    r = rank(t)
    b = [0] * r
    e = [0] * r
    bm = em = 0
    for i in range(r):
        if i != axis:
            bm |= 1 << i
            em |= 1 << i
    if begin is None:
        bm |= 1 << axis
    else:
        b[axis] = begin
    if end is None:
        em |= 1 << axis
    else:
        e[axis] = end
    return A.strided_slice(t, b, e, [1] * r, begin_mask=bm, end_mask=em)


def crop(g, pairs):
    """g without (before, after) borders on each axis; the ends count from the back, so
    unknown dims are fine."""
    if not any(b or a for b, a in pairs):
        return g
    r = len(pairs)
    begin = [b for b, _ in pairs]
    end = [-a if a else 0 for _, a in pairs]
    end_mask = sum(1 << i for i, (_, a) in enumerate(pairs) if not a)
    return A.strided_slice(g, begin, end, [1] * r, end_mask=end_mask)
