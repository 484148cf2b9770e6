"""TF's array functions that TF itself composes from other ops (array_ops.py, manip_ops.py):
roll, repeat, meshgrid, sequence_mask, reverse_sequence, tensor_scatter_nd_sub, the
broadcast-shape helpers, histogram_fixed_width_bins, unravel_index, shape_n, parallel_stack.
Their gradients are those of the ops they are built from (gather, broadcast_to, ...)."""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ...ir.shapes import TensorShape
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from . import reduce as R
from .counting import searchsorted
from .program import executing_eagerly, get_static_value


def _invalid(opname, message):
    return errors.InvalidArgumentError(None, opname, message)


def _static_ints(value, opname, what):
    """A Python int or list of ints known while the op is built."""
    known = get_static_value(convert_to_tensor(value))
    if known is None:
        raise NotImplementedError(f"{opname}: `{what}` must be known when the op is built "
                                  f"(a Python value, a constant or an eager tensor)")
    return known.tolist()


# --- roll ---------------------------------------------------------------------------------
@tf_export("roll")
def roll(input, shift, axis, name=None):  # noqa: A002  (TF's argument name)
    """Elements shifted by `shift` along `axis` (wrapping around); shifts of a repeated axis
    add up. `shift` may be computed in the graph; `axis` must be known."""
    x = convert_to_tensor(input)
    shift_t = convert_to_tensor(shift)
    axes = _static_ints(axis, "Roll", "axis")
    if x.shape.rank == 0:
        raise _invalid("Roll", "input must be 1-D or higher")
    axes_list = axes if isinstance(axes, list) else [axes]
    if shift_t.shape.rank is not None and shift_t.shape.rank > 1 or isinstance(axes, list) \
            and shift_t.shape.rank == 0:
        raise _invalid("Roll", "shift and axis must have the same size")
    shifts = [shift_t] if shift_t.shape.rank == 0 else \
        [A.gather(shift_t, i) for i in range(len(axes_list))]
    if shift_t.shape.rank == 1 and shift_t.shape[0] is not None \
            and shift_t.shape[0] != len(axes_list):
        raise _invalid("Roll", "shift and axis must have the same size")
    rank = x.shape.rank
    totals: dict[int, object] = {}
    for ax, s in zip(axes_list, shifts):
        if rank is not None and not -rank <= ax < rank:
            raise _invalid("Roll", f"axis {ax} is out of range")
        ax = ax % rank if rank is not None else ax
        totals[ax] = s if ax not in totals else M.add(totals[ax], s)
    out = x
    for ax, s in totals.items():
        n = A.shape(x, out_type=s.dtype)[ax]
        # out[i] = x[(i - shift) mod n]; an empty axis has nothing to move
        safe_n = M.maximum(n, A.ones_like(n))
        source = M.floormod(M.subtract(A.range(n, dtype=s.dtype), s), safe_n)
        out = A.gather(out, source, axis=ax)
    return out


# --- repeat -------------------------------------------------------------------------------
@tf_export("repeat")
def repeat(input, repeats, axis=None, name=None):  # noqa: A002
    """Each slice along `axis` repeated `repeats` times (a scalar, or one count per slice);
    `axis=None` repeats the flattened input."""
    x = convert_to_tensor(input)
    if axis is None:
        x, axis = A.reshape(x, [-1]), 0
    rank = x.shape.rank
    if rank == 0:
        raise ValueError("axis=0 out of bounds: expected -1<=axis<1")
    if rank is not None and not -rank <= axis < rank:
        raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")
    axis = axis % rank if rank is not None else axis
    counts = convert_to_tensor(repeats, dtype=D.int32)
    if counts.shape.rank not in (0, 1):
        raise ValueError("`repeats` must be a scalar or 1-D tensor")
    known, n = get_static_value(counts), x.shape[axis]
    if known is not None and n is not None:  # a static result size: XLA can compile it
        if known.ndim == 1 and known.size not in (1, n):
            raise _invalid("Repeat", f"Dimensions must be equal, but are {known.size} and {n}")
        counts_np = np.maximum(np.broadcast_to(known, (n,)), 0)
        source = convert_to_tensor(np.repeat(np.arange(n, dtype=np.int32), counts_np))
    else:
        counts = M.maximum(A.broadcast_to(counts, A.reshape(A.shape(x)[axis], [1])), 0)
        source = searchsorted(R.cumsum(counts), A.range(R.reduce_sum(counts)), side="right")
    return A.gather(x, source, axis=axis)


# --- meshgrid, sequence_mask, reverse_sequence ----------------------------------------------
@tf_export("meshgrid")
def meshgrid(*args, **kwargs):
    """N-D coordinate grids from 1-D coordinate vectors; `indexing="xy"` (Cartesian, the
    default) swaps the first two output dims, "ij" (matrix) does not."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        key = next(iter(kwargs))
        raise TypeError(f"'{key}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got "
                         f"'{indexing}'")
    if not args:
        return []
    vectors = [A.reshape(convert_to_tensor(a), [-1]) for a in args]
    ndim = len(vectors)
    sizes = [A.size(v) for v in vectors]
    if indexing == "xy" and ndim > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    shape = A.stack(sizes)
    outputs = []
    for i, v in enumerate(vectors):
        position = i
        if indexing == "xy" and ndim > 1 and i < 2:
            position = 1 - i
        view = [1] * ndim
        view[position] = -1
        outputs.append(A.broadcast_to(A.reshape(v, view), shape))
    return outputs


@tf_export("sequence_mask")
def sequence_mask(lengths, maxlen=None, dtype=D.bool_, name=None):
    """mask[i..., j] = j < lengths[i...], over `maxlen` columns (default max(lengths))."""
    lengths = convert_to_tensor(lengths)
    if not lengths.dtype.is_integer:
        raise TypeError(f"Value passed to parameter 'x' has DataType {lengths.dtype.name} "
                        f"not in list of allowed values: int8, int16, int32, int64")
    if maxlen is None:
        maxlen = M.maximum(R.reduce_max(lengths), A.zeros([], lengths.dtype))
    else:
        maxlen = convert_to_tensor(maxlen)
        if maxlen.shape.rank is not None and maxlen.shape.rank != 0:
            raise ValueError(f"Argument `maxlen` must be scalar for sequence_mask, received "
                             f"`maxlen` = {maxlen}.")
    columns = A.range(M.cast(maxlen, lengths.dtype), dtype=lengths.dtype)
    mask = M.less(columns, A.expand_dims(lengths, -1))
    dtype = D.as_dtype(dtype)
    return mask if dtype is D.bool_ else M.cast(mask, dtype)


@tf_export("reverse_sequence")
def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None):  # noqa: A002
    """For each batch entry b, the first seq_lengths[b] elements along `seq_axis` reversed,
    the rest unchanged."""
    x = convert_to_tensor(input)
    lengths = convert_to_tensor(seq_lengths)
    seq_axis = 0 if seq_axis is None else seq_axis
    batch_axis = 0 if batch_axis is None else batch_axis
    rank = x.shape.rank
    if lengths.shape.rank is not None and lengths.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {lengths.shape.rank}")
    if rank is not None and (not 0 <= seq_axis < rank or not 0 <= batch_axis < rank):
        bad = seq_axis if not 0 <= seq_axis < rank else batch_axis
        which = "seq_dim" if bad == seq_axis else "batch_dim"
        raise ValueError(f"{which} must be < input rank: {bad} vs. {rank}")
    if seq_axis == batch_axis:
        raise ValueError(f"batch_dim == seq_dim == {seq_axis}")
    batch, steps = x.shape[batch_axis], x.shape[seq_axis]
    if batch is not None and lengths.shape[0] is not None and lengths.shape[0] != batch:
        raise ValueError(f"Length of seq_lengths != input.dims({batch_axis}), ({lengths.shape[0]}"
                         f" vs. {batch})")
    known = get_static_value(lengths)
    if known is not None and steps is not None:
        over = np.flatnonzero((known > steps) | (known < 0))
        if over.size:
            i = over[0]
            raise _invalid("ReverseSequence", f"seq_lens({i}) > input.dims({seq_axis})"
                           if known[i] > steps else f"seq_lens({i}) < 0")
    # Move batch then seq to the front, reverse by gathering, and move them back.
    rest = [d for d in range(rank) if d not in (batch_axis, seq_axis)]
    perm = [batch_axis, seq_axis] + rest
    front = A.transpose(x, perm)
    lengths = M.cast(lengths, D.int32)
    j = A.expand_dims(A.range(A.shape(front)[1]), 0)
    limit = A.expand_dims(lengths, 1)
    source = M.where(M.less(j, limit), M.subtract(M.subtract(limit, 1), j),
                     M.add(j, A.zeros_like(limit)))
    picked = A.gather(front, source, axis=1, batch_dims=1)
    return A.transpose(picked, list(np.argsort(perm)))


# --- scatter, shapes ------------------------------------------------------------------------
@tf_export("tensor_scatter_nd_sub")
def tensor_scatter_nd_sub(tensor, indices, updates, bad_indices_policy="", name=None):
    """A copy of `tensor` with `updates` subtracted at `indices` (duplicates accumulate)."""
    t = convert_to_tensor(tensor)
    upd = convert_to_tensor(updates, dtype=t.dtype)
    return A.tensor_scatter_nd_add(t, indices, M.negative(upd),
                                   bad_indices_policy=bad_indices_policy)


def _broadcast_dims(x, y):
    """NumPy's broadcast of two lists of ints, or None where they do not broadcast."""
    n = max(len(x), len(y))
    x, y = [1] * (n - len(x)) + list(x), [1] * (n - len(y)) + list(y)
    out = []
    for a, b in zip(x, y):
        if a != b and 1 not in (a, b):
            return None
        out.append(b if a == 1 else a)
    return out


@tf_export("broadcast_dynamic_shape")
def broadcast_dynamic_shape(shape_x, shape_y):
    """The shape two shapes (1-D integer tensors) broadcast to."""
    sx, sy = convert_to_tensor(shape_x), convert_to_tensor(shape_y)
    if sx.dtype is not sy.dtype:
        sy = M.cast(sy, sx.dtype)
    x, y = get_static_value(sx), get_static_value(sy)
    if x is not None and y is not None:
        out = _broadcast_dims(x.tolist(), y.tolist())
        if out is None:
            raise _invalid("BroadcastArgs", f"Incompatible shapes: [{','.join(map(str, x))}] "
                                            f"vs. [{','.join(map(str, y))}]")
        return convert_to_tensor(np.asarray(out, sx.dtype.np))
    # Pad both to one length with leading ones; each dim is the one that is not 1.
    n = max(sx.shape[0], sy.shape[0])
    sx = A.concat([A.ones([n - sx.shape[0]], sx.dtype), sx], 0)
    sy = A.concat([A.ones([n - sy.shape[0]], sy.dtype), sy], 0)
    return M.where(M.equal(sx, A.ones_like(sx)), sy, sx)


@tf_export("broadcast_static_shape")
def broadcast_static_shape(shape_x, shape_y):
    """The TensorShape two TensorShapes broadcast to (unknown dims stay unknown)."""
    from ...ir.infer import broadcast
    from ...ir.registry import InferenceError
    x, y = TensorShape(shape_x), TensorShape(shape_y)
    if x.rank is None or y.rank is None:
        return TensorShape(None)
    try:
        return TensorShape(broadcast(tuple(x.as_list()), tuple(y.as_list())))
    except InferenceError:
        raise ValueError(f"Incompatible shapes for broadcasting. Two shapes are compatible if "
                         f"for each dimension pair they are either equal or one of them is 1. "
                         f"Received: {x} and {y}.") from None


@tf_export("histogram_fixed_width_bins")
def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=D.int32, name=None):
    """The bin of each value among `nbins` equal bins spanning value_range = [lo, hi]; values
    below lo go to bin 0, values at or above hi to bin nbins - 1 (TF's composition)."""
    v = convert_to_tensor(values)
    rng = convert_to_tensor(value_range, dtype=v.dtype)
    nbins_f = M.cast(nbins, v.dtype)
    lo, hi = A.gather(rng, 0), A.gather(rng, 1)
    scaled = M.truediv(M.subtract(v, lo), M.subtract(hi, lo))
    bins = M.floor(M.multiply(nbins_f, scaled))
    bins = M.clip_by_value(bins, A.zeros_like(nbins_f), M.subtract(nbins_f, 1))
    return M.cast(bins, D.as_dtype(dtype))


@tf_export("unravel_index")
def unravel_index(indices, dims, name=None):
    """The coordinates of flat `indices` in an array of shape `dims`: a [len(dims)] vector
    for a scalar index, else [len(dims), n]."""
    ix = convert_to_tensor(indices)
    d = convert_to_tensor(dims, dtype=ix.dtype)
    known_ix, known_d = get_static_value(ix), get_static_value(d)
    if known_d is not None and known_ix is not None:
        total = int(np.prod(known_d))
        bad = np.flatnonzero((known_ix.reshape(-1) < 0) | (known_ix.reshape(-1) >= total))
        if bad.size:
            raise _invalid("UnravelIndex", "index is out of bound as with dims")
    # strides[i] = prod(dims[i+1:]); coordinate i = (index // strides[i]) % dims[i]
    strides = R.cumprod(d, exclusive=True, reverse=True)
    flat = A.expand_dims(ix, 0) if ix.shape.rank != 0 else ix
    strides_col = strides if ix.shape.rank == 0 else A.expand_dims(strides, 1)
    dims_col = d if ix.shape.rank == 0 else A.expand_dims(d, 1)
    return M.floormod(M.floordiv(flat, strides_col), dims_col)


@tf_export("shape_n")
def shape_n(input, out_type=D.int32, name=None):  # noqa: A002
    """The shapes of a list of tensors (of one dtype, as TF's ShapeN)."""
    tensors = [convert_to_tensor(t) for t in input]
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype is not tensors[0].dtype:
            raise _invalid("ShapeN", f"cannot compute ShapeN as input #{i}(zero-based) was "
                                     f"expected to be a {D.runtime_name(tensors[0].dtype)} "
                                     f"tensor but is a {D.runtime_name(t.dtype)} tensor")
    return [A.shape(t, out_type=out_type) for t in tensors]


@tf_export("parallel_stack")
def parallel_stack(values, name="parallel_stack"):
    """tf.stack along a new first axis, in a tf.function only (as TF's; TF copies the inputs
    in parallel, flowjit stacks)."""
    if executing_eagerly():
        raise RuntimeError("tf.parallel_stack() is not compatible with eager execution.")
    return A.stack(values, axis=0)
