"""Op declarations: array family — constants, reshaping, data movement, indexing, scatter,
generators (range), shape queries and sorting.

Shape-valued arguments (reshape's `shape`, slice bounds, paddings, ...) are attributes, so
inference gives exact static shapes. They are `tensor_attrs` (see `registry.op`): one computed
in the graph holds None where its value is unknown at trace time, and inference keeps None dims
there. Errors reuse TF's wording where TF has one, so messages
read the same as TF's (dispatch adds the op name, the input types and the user's line).
The strided-slice and range-size helpers are shared with the kernels, so inference and the
NumPy kernel can never disagree on a shape.
"""
from __future__ import annotations

import math as _math

import numpy as np

from .. import dtypes as D
from ..infer import (ALL, INDEX, NUMERIC, TT, WITH_STRING, check_dtype, format_shape,
                     norm_axis, num_elements, same_dtype)
from ..registry import InferenceError, op

# Integer types TF accepts for gather-style indices.
GATHER_INDEX = (D.int16, D.int32, D.int64)


def _fmt(shape) -> str:
    return format_shape(None if shape is None else tuple(shape))


# --- constants, identity ------------------------------------------------------------------
@op("const", (), attrs=(("value", "array"), ("dtype", "dtype")), differentiable=False)
def _const(types, attrs):
    """A constant tensor: the attribute `value` (an array of `dtype`)."""
    return TT(D.as_dtype(attrs["dtype"]), tuple(attrs["value"].shape))


@op("identity", ("input",))
def _identity(types, attrs):
    return types[0]


@op("stop_gradient", ("input",), differentiable=False)
def _stop_gradient(types, attrs):
    """Identity whose gradient is zero (None)."""
    return types[0]


# --- reshaping ----------------------------------------------------------------------------
@op("reshape", ("tensor",), attrs=(("shape", "ints"),), tensor_attrs=("shape",))
def _reshape(types, attrs):
    """`shape` may hold one -1, inferred from the element count (TF's zero-size rules)."""
    x = types[0]
    sizes = attrs["shape"]
    if sizes is None:  # a shape whose length is known only at run time
        return TT(x.dtype, None)
    unknown = [i for i, s in enumerate(sizes) if s == -1]
    for i, s in enumerate(sizes):
        if s is not None and s < -1:
            raise InferenceError(f"Size {i} must be non-negative, not {s}")
    if len(unknown) > 1:
        raise InferenceError(f"Only one input size may be -1, not both {unknown[0]} and "
                             f"{unknown[1]}")
    n_in = num_elements(x.shape)
    if n_in is None or None in sizes:
        return TT(x.dtype, tuple(None if s == -1 else s for s in sizes))
    out = list(sizes)
    if unknown:
        # TF leaves zero-size dims out of both products so that the other dims can still be
        # inferred: reshape(zeros([0, 3]), [-1, 0]) is [3, 0].
        has_zero = 0 in sizes
        product = 1
        for s in sizes:
            if s > 0:
                product *= s
        n_known = 1
        for d in x.shape:
            if d > 0 or not has_zero:
                n_known *= d
        missing = n_known // product
        if missing * product != n_known:
            raise InferenceError(f"Input to reshape is a tensor with {n_known} values, but the "
                                 f"requested shape requires a multiple of {product}")
        out[unknown[0]] = missing
    n_out = 1
    for s in out:
        n_out *= s
    if n_out != n_in:
        raise InferenceError(f"Input to reshape is a tensor with {n_in} values, but the "
                             f"requested shape has {n_out}",
                             graph_message=f"Cannot reshape a tensor with {n_in} elements to "
                                           f"shape {_fmt(out)} ({n_out} elements)")
    return TT(x.dtype, tuple(out))


@op("transpose", ("x",), attrs=(("perm", "ints"),))
def _transpose(types, attrs):
    x = types[0]
    perm = attrs["perm"]
    if x.shape is None:
        return TT(x.dtype, (None,) * len(perm))
    rank = len(x.shape)
    if len(perm) != rank:
        raise InferenceError(f"transpose expects a vector of size {rank}. But input(1) is a "
                             f"vector of size {len(perm)}")
    norm = []
    for p in perm:
        if not -rank <= p < rank:
            raise InferenceError(f"{p} is out of range [0 .. {rank})",
                                 graph_message=f"perm dim {p} is out of range of input rank "
                                               f"{rank}")
        norm.append(p % rank)
    for i in range(rank):
        if i not in norm:
            raise InferenceError(f"{i} is missing from {{{','.join(map(str, perm))}}}.")
    return TT(x.dtype, tuple(x.shape[p] for p in norm))


@op("expand_dims", ("input",), attrs=(("axis", "int"),))
def _expand_dims(types, attrs):
    x = types[0]
    axis = attrs["axis"]
    if x.shape is None:
        return TT(x.dtype, None)
    rank = len(x.shape)
    if not -rank - 1 <= axis <= rank:
        raise InferenceError(f"Tried to expand dim index {axis} for tensor with {rank} "
                             f"dimensions.")
    axis %= rank + 1
    return TT(x.dtype, x.shape[:axis] + (1,) + x.shape[axis:])


@op("squeeze", ("input",), attrs=(("axis", "ints", ()),))
def _squeeze(types, attrs):
    """Without `axis`, every size-1 dim goes (an unknown dim makes the rank unknown)."""
    x = types[0]
    axes = attrs["axis"]
    if x.shape is None:
        return TT(x.dtype, None)
    rank = len(x.shape)
    if not axes:
        if None in x.shape:
            return TT(x.dtype, None)
        return TT(x.dtype, tuple(d for d in x.shape if d != 1))
    drop = set()
    for a in axes:
        if not -rank <= a < rank:
            raise InferenceError(f"Tried to squeeze dim index {a} for tensor with {rank} "
                                 f"dimensions.")
        a %= rank
        if x.shape[a] is not None and x.shape[a] != 1:
            raise InferenceError(f"Can not squeeze dim[{a}], expected a dimension of 1, got "
                                 f"{x.shape[a]}")
        drop.add(a)
    return TT(x.dtype, tuple(d for i, d in enumerate(x.shape) if i not in drop))


def squeeze_axes(shape, axes):
    """The axes `squeeze` removes from a concrete shape, duplicates merged (TF allows them);
    out-of-range ones are kept for NumPy to reject."""
    n = len(shape)
    if not axes:
        return tuple(i for i, d in enumerate(shape) if d == 1)
    return tuple(sorted({a % n if -n <= a < n else a for a in axes}))


@op("broadcast_to", ("input",), attrs=(("shape", "ints"),), tensor_attrs=("shape",))
def _broadcast_to(types, attrs):
    x = types[0]
    if attrs["shape"] is None:  # a shape whose length is known only at run time
        return TT(x.dtype, None)
    target = tuple(attrs["shape"])
    for d in target:
        if d is not None and d < 0:
            raise InferenceError(f"Dimension {d} must be >= 0")
    if x.shape is None:
        return TT(x.dtype, target)
    if len(x.shape) > len(target):
        raise InferenceError(f"Rank of input ({len(x.shape)}) must be no greater than rank of "
                             f"output shape ({len(target)}).")
    for a, b in zip(reversed(x.shape), reversed(target)):
        if a is not None and b is not None and a != 1 and a != b:
            raise InferenceError(f"Incompatible shapes: {_fmt(x.shape)} vs. {_fmt(target)}")
    # a target dim computed in the graph must equal an input dim other than 1 (as TF infers)
    lead = len(target) - len(x.shape)
    return TT(x.dtype, tuple(x.shape[i - lead] if d is None and i >= lead and
                             x.shape[i - lead] not in (None, 1) else d
                             for i, d in enumerate(target)))


@op("fill_like", ("input", "value"), differentiable=False)
def _fill_like(types, attrs):
    """A tensor of `input`'s shape filled with the scalar `value` (zeros_like, ones_like)."""
    x, v = types
    if v.shape is not None and v.shape != ():
        raise InferenceError(f"value must be a scalar, got shape {_fmt(v.shape)}")
    return TT(v.dtype, x.shape)


# --- joining and splitting ----------------------------------------------------------------
@op("concat", ("values*",), attrs=(("axis", "int"),))
def _concat(types, attrs):
    if not types:
        raise InferenceError("concat needs at least one input")
    dt = same_dtype(types, WITH_STRING)
    axis = attrs["axis"]
    ranked = [(i, t.shape) for i, t in enumerate(types) if t.shape is not None]
    if not ranked:
        return TT(dt, None)
    i0, s0 = ranked[0]
    rank = len(s0)
    if rank == 0:
        raise InferenceError("Can't concatenate scalars (use tf.stack instead)")
    if not -rank <= axis < rank:
        raise InferenceError(f"Expected concatenating dimensions in the range [{-rank}, "
                             f"{rank}), but got {axis}")
    axis %= rank
    out = list(s0)
    for i, s in ranked[1:]:
        if len(s) != rank:
            raise InferenceError(f"ConcatOp : Ranks of all input tensors should match: "
                                 f"shape[{i0}] = {_fmt(s0)} vs. shape[{i}] = {_fmt(s)}",
                                 graph_message=f"Shape must be rank {rank} but is rank "
                                               f"{len(s)}")
        for d in range(rank):
            if d == axis:
                continue
            if out[d] is None:
                out[d] = s[d]
            elif s[d] is not None and s[d] != out[d]:
                raise InferenceError(f"Dimension {d} in both shapes must be equal: shape[{i0}] "
                                     f"= {_fmt(s0)} vs. shape[{i}] = {_fmt(s)}")
    total = 0
    for t in types:
        d = None if t.shape is None else t.shape[axis]
        if d is None:
            total = None
            break
        total += d
    out[axis] = total
    return TT(dt, tuple(out))


def split_sizes(dim, num_split, sizes, axis=0):
    """The output sizes of `split` along a dim of size `dim` (None if unknown); raises
    InferenceError for sizes that cannot split it."""
    if num_split < 1:
        raise InferenceError(f"split needs at least one output, got num_split={num_split}")
    if not sizes:
        if dim is None:
            return (None,) * num_split
        if dim % num_split:
            raise InferenceError(f"Number of ways to split should evenly divide the split "
                                 f"dimension, but got split_dim {axis} (size = {dim}) and num_split "
                                 f"{num_split}")
        return (dim // num_split,) * num_split
    if len(sizes) != num_split:
        raise InferenceError(f"size of the split_tensor must have the same elements as outputs "
                             f"got {len(sizes)} elements and {num_split} outputs")
    unknown = [i for i, s in enumerate(sizes) if s == -1]
    if len(unknown) > 1:
        raise InferenceError("There can only be one -1 in the input.")
    for i, s in enumerate(sizes):
        if s is not None and s < -1:
            raise InferenceError(f"Split size at index {i} must be >= 0. Got: {s}")
    if dim is None or None in sizes:  # sizes computed in the graph are known at run time
        return tuple(None if s == -1 else s for s in sizes)
    known = sum(s for s in sizes if s != -1)
    if (not unknown and known != dim) or (unknown and known > dim):
        raise InferenceError(f"Determined shape must either match input shape along split_dim "
                             f"exactly if fully specified, or be less than the size of the "
                             f"input along split_dim if not fully specified.  Got: {known}")
    return tuple(dim - known if s == -1 else s for s in sizes)


@op("split", ("value",), attrs=(("num_split", "int"), ("sizes", "ints", ()),
                                 ("axis", "int", 0)), tensor_attrs=("sizes",))
def _split(types, attrs):
    """`num_split` pieces along `axis`: equal ones when `sizes` is empty, else `sizes` (one may
    be -1: the rest). A multi-output op."""
    x = types[0]
    n = attrs["num_split"]
    if x.shape is None:
        split_sizes(None, n, attrs["sizes"])
        return tuple(TT(x.dtype, None) for _ in range(n))
    rank = len(x.shape)
    axis = attrs["axis"]
    if not -rank <= axis < rank:
        raise InferenceError(f"-input rank(-{rank}) <= split_dim < input rank ({rank}), but "
                             f"got {axis}")
    axis %= rank
    sizes = split_sizes(x.shape[axis], n, attrs["sizes"], axis)
    return tuple(TT(x.dtype, x.shape[:axis] + (s,) + x.shape[axis + 1:]) for s in sizes)


@op("tile", ("input",), attrs=(("multiples", "ints"),), tensor_attrs=("multiples",))
def _tile(types, attrs):
    x = types[0]
    m = attrs["multiples"]
    for i, k in enumerate(m):
        if k is not None and k < 0:
            raise InferenceError(f"Expected multiples[{i}] >= 0, but got {k}")
    if x.shape is None:
        return TT(x.dtype, (None,) * len(m))
    if len(m) != len(x.shape):
        raise InferenceError(f"Expected multiples argument to be a vector of length "
                             f"{len(x.shape)} but got length {len(m)}")
    return TT(x.dtype, tuple(0 if k == 0 else (None if d is None or k is None else d * k)
                             for d, k in zip(x.shape, m)))


PAD_MODES = ("CONSTANT", "REFLECT", "SYMMETRIC")


@op("pad", ("tensor", "constant_values"), attrs=(("paddings", "ints"),
                                                 ("mode", "str", "CONSTANT")),
    tensor_attrs=("paddings",))
def _pad(types, attrs):
    """`paddings` is flat: (before_0, after_0, before_1, after_1, ...). `constant_values` is a
    scalar of the tensor's dtype, used by CONSTANT mode only."""
    x, c = types
    same_dtype(types)
    if c.shape is not None and c.shape != ():
        raise InferenceError(f"constant_values must be a scalar. Found: {_fmt(c.shape)}")
    mode = attrs["mode"]
    if mode not in PAD_MODES:
        raise InferenceError(f"mode must be one of {', '.join(PAD_MODES)}, got {mode!r}")
    p = attrs["paddings"]
    if len(p) % 2:
        raise InferenceError(f"paddings must hold a (before, after) pair per dimension, got "
                             f"{len(p)} values")
    pairs = [(p[2 * i], p[2 * i + 1]) for i in range(len(p) // 2)]
    for b, a in pairs:
        if (b is not None and b < 0) or (a is not None and a < 0):
            raise InferenceError(f"Paddings must be non-negative: {b} {a}")
    if x.shape is None:
        return TT(x.dtype, (None,) * len(pairs))
    if len(pairs) != len(x.shape):
        raise InferenceError(f"The first dimension of paddings must be the rank of inputs"
                             f"[{len(pairs)},2] {_fmt(x.shape)}")
    for d, (b, a) in zip(x.shape, pairs):
        if d is None or b is None or a is None:
            continue
        if mode == "REFLECT" and (b >= d or a >= d):
            raise InferenceError(f"paddings must be less than the dimension size: {b}, {a} not "
                                 f"less than {d}")
        if mode == "SYMMETRIC" and (b > d or a > d):
            raise InferenceError(f"paddings must be no greater than the dimension size: {b}, "
                                 f"{a} greater than {d}")
    return TT(x.dtype, tuple(None if None in (d, b, a) else d + b + a
                             for d, (b, a) in zip(x.shape, pairs)))


@op("reverse", ("tensor",), attrs=(("axis", "ints"),))
def _reverse(types, attrs):
    x = types[0]
    if x.shape is None:
        return x
    rank = len(x.shape)
    seen = set()
    for i, a in enumerate(attrs["axis"]):
        if not -rank <= a < rank:
            raise InferenceError(f"'axis'[{i}] = {a} is out of valid range [0, {rank - 1}]")
        if a % rank in seen:
            raise InferenceError(f"axis {a % rank} specified more than once.")
        seen.add(a % rank)
    return x


# --- slicing ------------------------------------------------------------------------------
@op("slice", ("input_",), attrs=(("begin", "ints"), ("size", "ints")),
    tensor_attrs=("begin", "size"))
def _slice(types, attrs):
    """`size[i] == -1` takes everything from `begin[i]` on; bounds are checked, not clamped."""
    x = types[0]
    begin, size = attrs["begin"], attrs["size"]
    if len(begin) != len(size) or (x.shape is not None and len(begin) != len(x.shape)):
        rank = "?" if x.shape is None else len(x.shape)
        raise InferenceError(f"Expected begin and size arguments to be 1-D tensors of size "
                             f"{rank}, but got shapes [{len(begin)}] and [{len(size)}] instead.")
    if x.shape is None:
        return TT(x.dtype, tuple(None if s == -1 else s for s in size))
    return TT(x.dtype, tuple(slice_bounds(x.shape, begin, size)[1]))


def slice_bounds(shape, begin, size):
    """(begins, sizes) of `slice` with -1 sizes resolved (None where the dim is unknown)."""
    sizes = []
    for i, (d, b, s) in enumerate(zip(shape, begin, size)):
        if None in (d, b, s):
            if (b is not None and b < 0) or (s is not None and s < -1):
                raise InferenceError(f"Expected begin[{i}] >= 0 and size[{i}] >= -1, got "
                                     f"{b} and {s}")
            sizes.append(None if s == -1 else s)
            continue
        if not 0 <= b <= d:
            raise InferenceError(f"Expected begin[{i}] in [0, {d}], but got {b}")
        if s == -1:
            s = d - b
        if not 0 <= s <= d - b:
            raise InferenceError(f"Expected size[{i}] in [0, {d - b}], but got {s}")
        sizes.append(s)
    return tuple(begin), tuple(sizes)


NEW_AXIS = "new"


def strided_slice_plan(shape, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
                       new_axis_mask=0, shrink_axis_mask=0):
    """Resolve TF's sparse strided-slice spec against `shape` (dims may be None).

    Returns `(index, out_shape)`: `index` has one entry per output-or-removed dim in order —
    `NEW_AXIS`, an int (a shrunk dim), or `(begin, size, stride)` for a kept dim (None
    where the dim is unknown) — and `out_shape` is the result's shape. Raises InferenceError
    with TF's messages for invalid specs."""
    n = len(begin)
    if not len(end) == n == len(strides):
        raise InferenceError(f"Expected begin, end, and strides to be 1D equal size tensors, "
                             f"but got shapes [{n}], [{len(end)}], and [{len(strides)}] "
                             f"instead.")
    if ellipsis_mask & (ellipsis_mask - 1):
        raise InferenceError("Multiple ellipses in slice spec not allowed")
    rank = len(shape)
    # Without an ellipsis the spec acts as if one followed it; new axes after the ellipsis
    # do not consume input dims, so the ellipsis covers that many more.
    ell_at = next((i for i in range(n) if ellipsis_mask >> i & 1), None)
    dims = n if ell_at is not None else n + 1
    if ell_at is None:
        ell_at = n
    new_after = sum(1 for i in range(ell_at + 1, n)
                    if new_axis_mask >> i & 1 and not ellipsis_mask >> i & 1)
    index, out = [], []
    full = 0
    for i in range(dims):
        if i == ell_at:
            stop = min(rank - (dims - i) + 1 + new_after, rank)
            while full < stop:
                d = shape[full]
                index.append((0 if d is not None else None, d, 1))
                out.append(d)
                full += 1
        elif new_axis_mask >> i & 1:
            index.append(NEW_AXIS)
            out.append(1)
        else:
            if full >= rank:
                if rank == 0:
                    raise InferenceError("Attempting to slice scalar input.")
                raise InferenceError(f"Index out of range using input dim {full}; input has "
                                     f"only {rank} dims")
            entry, size = _dense_dim(full, shape[full], begin[i], end[i], strides[i],
                                     begin_mask >> i & 1, end_mask >> i & 1,
                                     shrink_axis_mask >> i & 1)
            index.append(entry)
            if not shrink_axis_mask >> i & 1:
                out.append(size)
            full += 1
    return index, tuple(out)


def _dense_dim(i, dim, b, e, s, b_masked, e_masked, shrink):
    """One input dim of a strided slice: (index entry, output size). Bounds unknown at trace
    time (None) give an unknown size."""
    if s == 0:
        raise InferenceError(f"strides[{i}] must be non-zero")
    if shrink:
        if s is not None and s < 0:
            raise InferenceError("only stride 1 allowed on non-range indexing.")
        if dim is None or b is None:
            return b, None  # checked by the kernel, which knows the dim
        x = b + dim if b < 0 else b
        if not 0 <= x < dim:
            raise InferenceError(f"slice index {x} of dimension {i} out of bounds.")
        return x, None
    if dim is None or s is None or (b is None and not b_masked) or \
            (e is None and not e_masked):
        return (None, None, s), None
    lo, hi = (0, dim) if s > 0 else (-1, dim - 1)

    def canonical(x, masked, which):
        if masked:
            return (lo, hi)[which] if s > 0 else (hi, lo)[which]
        x = x + dim if x < 0 else x
        return min(max(x, lo), hi)

    b = canonical(b, b_masked, 0)
    e = canonical(e, e_masked, 1)
    length = e - b
    if length == 0 or (length < 0) != (s < 0):
        size = 0
    else:
        size = -(-length // s) if s > 0 else -(-(-length) // -s)
    return (b, size, s), size


@op("strided_slice", ("input_",), attrs=(
        ("begin", "ints"), ("end", "ints"), ("strides", "ints"), ("begin_mask", "int", 0),
        ("end_mask", "int", 0), ("ellipsis_mask", "int", 0), ("new_axis_mask", "int", 0),
        ("shrink_axis_mask", "int", 0)), tensor_attrs=("begin", "end", "strides"))
def _strided_slice(types, attrs):
    """TF's StridedSlice with all five masks (`tensor[...]` lowers to this)."""
    x = types[0]
    if x.shape is None:
        return TT(x.dtype, None)
    _, out = strided_slice_plan(x.shape, **attrs)
    return TT(x.dtype, out)


# --- gather and scatter -------------------------------------------------------------------
@op("gather", ("params", "indices"), attrs=(("axis", "int", 0), ("batch_dims", "int", 0)))
def _gather(types, attrs):
    """Output: params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis+1:]."""
    p, ix = types
    check_dtype(ix, GATHER_INDEX, "indices")
    if p.shape is None or ix.shape is None:
        return TT(p.dtype, None)
    axis, bd = gather_axes(len(p.shape), len(ix.shape), attrs["axis"], attrs["batch_dims"])
    for i in range(bd):
        a, b = p.shape[i], ix.shape[i]
        if a is not None and b is not None and a != b:
            raise InferenceError(f"params.shape[{i}]: {a} should be equal to indices.shape"
                                 f"[{i}]: {b}")
    return TT(p.dtype, p.shape[:axis] + ix.shape[bd:] + p.shape[axis + 1:])


def gather_axes(p_rank, i_rank, axis, batch_dims):
    """gather's (axis, batch_dims) made non-negative and checked as TF does."""
    if p_rank == 0:
        raise InferenceError("params must be at least 1 dimensional")
    if not -i_rank <= batch_dims <= i_rank:
        raise InferenceError(f"Expected batch_dims in the range [{-i_rank}, {i_rank}], but "
                             f"got {batch_dims}")
    if batch_dims < 0:
        batch_dims += i_rank
    if not -p_rank <= axis < p_rank:
        raise InferenceError(f"Expected axis in the range [{-p_rank}, {p_rank}), but got "
                             f"{axis}")
    axis %= p_rank
    if batch_dims > axis:
        raise InferenceError(f"batch_dims ({batch_dims}) must be less than or equal to axis "
                             f"({axis}).")
    return axis, batch_dims


@op("gather_nd", ("params", "indices"), attrs=(("batch_dims", "int", 0),))
def _gather_nd(types, attrs):
    """Output: indices.shape[:-1] + params.shape[batch_dims + indices.shape[-1]:]."""
    p, ix = types
    check_dtype(ix, GATHER_INDEX, "indices")
    bd = attrs["batch_dims"]
    if bd < 0:
        raise InferenceError("gather_nd does not allow negative batch_dims.")
    if p.shape is None or ix.shape is None:
        return TT(p.dtype, None)
    if len(ix.shape) < 1:
        raise InferenceError("indices must be at least a vector")
    if bd >= len(ix.shape):
        raise InferenceError(f"batch_dims = {bd} must be less than rank(indices) = "
                             f"{len(ix.shape)}")
    if bd and bd >= len(p.shape):
        raise InferenceError(f"batch_dims = {bd} must be less than rank(params) = "
                             f"{len(p.shape)}")
    for i in range(bd):
        a, b = p.shape[i], ix.shape[i]
        if a is not None and b is not None and a != b:
            raise InferenceError(f"params.shape[{i}]: {a} should be equal to indices.shape"
                                 f"[{i}]: {b} (batch dims must match)")
    k = ix.shape[-1]
    if k is None:
        return TT(p.dtype, None)
    if k > len(p.shape) - bd:
        raise InferenceError(f"index innermost dimension length must be <= params rank; saw: "
                             f"{k + bd} vs. {len(p.shape)}")
    return TT(p.dtype, ix.shape[:-1] + p.shape[bd + k:])


def _scatter_shapes(ix: TT, upd: TT, out_shape):
    """Check updates.shape == indices.shape[:-1] + out_shape[k:] (TF's ScatterNd rule)."""
    if ix.shape is None or upd.shape is None or out_shape is None:
        return
    if len(ix.shape) < 1:
        raise InferenceError("Indices shape must have rank at least one")
    k = ix.shape[-1]
    if k is None:
        return
    n_out = num_elements(out_shape)
    if n_out == 0 and (num_elements(ix.shape) or num_elements(upd.shape)):
        raise InferenceError("Indices and updates specified for empty output shape")
    if k == 0 and n_out not in (0, None):   # an unknown size is checked at run time
        raise InferenceError("indices.shape[-1] must be at least 1, got 0")
    if k > len(out_shape):
        raise InferenceError(f"indices.shape[-1] = {k} must be <= the output rank "
                             f"{len(out_shape)}")
    want = ix.shape[:-1] + tuple(out_shape[k:])
    ok = len(want) == len(upd.shape) and all(
        a is None or b is None or a == b for a, b in zip(want, upd.shape))
    if not ok:
        raise InferenceError(f"updates must have shape indices.shape[:-1] + "
                             f"output.shape[indices.shape[-1]:] = {_fmt(want)}, got "
                             f"{_fmt(upd.shape)} (indices {_fmt(ix.shape)}, output "
                             f"{_fmt(out_shape)})")


@op("scatter_nd", ("indices", "updates"), attrs=(("shape", "ints"),))
def _scatter_nd(types, attrs):
    """Zeros of `shape` with `updates` added at `indices` (duplicates accumulate)."""
    ix, upd = types
    check_dtype(ix, INDEX, "indices")
    shape = tuple(attrs["shape"])
    for d in shape:
        if d < 0:
            raise InferenceError(f"Dimension {d} must be >= 0")
    _scatter_shapes(ix, upd, shape)
    return TT(upd.dtype, shape)


def _tensor_scatter(types, allowed):
    t, ix, upd = types
    check_dtype(ix, INDEX, "indices")
    same_dtype([t, upd], allowed)
    _scatter_shapes(ix, upd, t.shape)
    return t


@op("tensor_scatter_nd_update", ("tensor", "indices", "updates"))
def _tensor_scatter_nd_update(types, attrs):
    """A copy of `tensor` with `updates` written at `indices` (last duplicate wins)."""
    return _tensor_scatter(types, ALL)


@op("tensor_scatter_nd_add", ("tensor", "indices", "updates"))
def _tensor_scatter_nd_add(types, attrs):
    """A copy of `tensor` with `updates` added at `indices` (duplicates accumulate)."""
    return _tensor_scatter(types, NUMERIC)


@op("where_indices", ("condition",), differentiable=False)
def _where_indices(types, attrs):
    """Coordinates of the non-zero elements, int64 `[num_true, rank]`; num_true is only known
    at run time."""
    c = types[0]
    if c.shape is None:
        return TT(D.int64, (None, None))
    if len(c.shape) == 0:
        raise InferenceError("WhereOp : Unhandled input dimensions: 0")
    return TT(D.int64, (None, len(c.shape)))


# --- generators and shape queries ---------------------------------------------------------
RANGE_DTYPES = (D.bfloat16, D.float16, D.float32, D.float64, D.int8, D.int16, D.int32,
                D.int64)


def range_size(start, limit, delta, dtype: D.DType) -> int:
    """Number of elements of range(start, limit, delta) computed in `dtype`, as TF does."""
    if delta == 0:
        raise InferenceError(f"Requires delta != 0: {delta}")
    if delta > 0 and start > limit:
        raise InferenceError(f"Requires start <= limit when delta > 0: {start}/{limit}")
    if delta < 0 and start < limit:
        raise InferenceError(f"Requires start >= limit when delta < 0: {start}/{limit}")
    if dtype.is_integer:
        start, limit, delta = int(start), int(limit), int(delta)
        return (abs(limit - start) + abs(delta) - 1) // abs(delta)
    t = dtype.np.type
    with np.errstate(all="ignore"):
        n = np.abs((t(limit) - t(start)) / t(delta))
    n = float(n)
    if not _math.isfinite(n):
        raise InferenceError(f"Requires a finite number of elements, got start={start}, "
                             f"limit={limit}, delta={delta}")
    return int(_math.ceil(n))


@op("range", (), attrs=(("start", "any"), ("limit", "any"), ("delta", "any"),
                        ("dtype", "dtype")), differentiable=False,
    tensor_attrs=("start", "limit", "delta"))
def _range(types, attrs):
    """start, start + delta, ... up to (excluding) limit; the bounds are Python numbers already
    representable in `dtype` (None: computed in the graph, so the length is unknown)."""
    dt = D.as_dtype(attrs["dtype"])
    if dt not in RANGE_DTYPES:
        raise InferenceError(f"dtype {dt.name} is not supported; allowed: "
                             f"{', '.join(d.name for d in RANGE_DTYPES)}")
    if None in (attrs["start"], attrs["limit"], attrs["delta"]):
        return TT(dt, (None,))
    return TT(dt, (range_size(attrs["start"], attrs["limit"], attrs["delta"], dt),))


@op("shape", ("input",), attrs=(("out_type", "dtype", D.int32),), differentiable=False)
def _shape(types, attrs):
    dt = D.as_dtype(attrs["out_type"])
    if dt not in INDEX:
        raise InferenceError(f"out_type must be int32 or int64, got {dt.name}")
    s = types[0].shape
    return TT(dt, (None if s is None else len(s),))


@op("size", ("input",), attrs=(("out_type", "dtype", D.int32),), differentiable=False)
def _size(types, attrs):
    dt = D.as_dtype(attrs["out_type"])
    if dt not in NUMERIC:
        raise InferenceError(f"out_type must be a numeric dtype, got {dt.name}")
    return TT(dt, ())


# --- sorting ------------------------------------------------------------------------------
def _sort_type(types, attrs):
    x = types[0]
    check_dtype(x, NUMERIC, "values")
    if x.shape is not None:
        if len(x.shape) == 0:
            raise InferenceError("sort needs at least a vector, got a scalar")
        norm_axis(attrs["axis"], len(x.shape))
    return x


@op("sort", ("values",), attrs=(("axis", "int", -1), ("descending", "bool", False)))
def _sort(types, attrs):
    """Sorted along `axis`; NaN sorts as the largest value."""
    return _sort_type(types, attrs)


@op("argsort", ("values",), attrs=(("axis", "int", -1), ("descending", "bool", False),
                                   ("stable", "bool", False)), differentiable=False)
def _argsort(types, attrs):
    """int32 positions that sort `values` along `axis`; ties keep their original order."""
    x = _sort_type(types, attrs)
    return TT(D.int32, x.shape)

