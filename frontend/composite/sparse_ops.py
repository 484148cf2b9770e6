"""TF's `tf.sparse` ops, composed of flowjit's dense ops (so each runs in every mode and
differentiates through `values` and the dense operands).

Results are in TF's canonical (row-major) order where TF's kernels sort. Ops whose result
size depends on values (`from_dense`, `retain`, `slice`, `add` of two SparseTensors,
`fill_empty_rows`) run eagerly and on the graph executor; XLA compiles static shapes only.
"""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from ..ops import array as A
from ..ops import counting as C
from ..ops import math as M
from ..ops import reduce as R
from ..ops import segment as S
from .sparse_tensor import SparseTensor


def _static_shape(sp, opname) -> list:
    shape = sp.shape
    if not shape.is_fully_defined():
        raise ValueError(f"{opname}: the SparseTensor's dense shape must be known while "
                         f"tracing, got {shape}")
    return shape.as_list()


def _sparse(value, opname) -> SparseTensor:
    if not isinstance(value, SparseTensor):
        raise TypeError(f"{opname}: expected a SparseTensor, got {type(value).__name__}")
    return value


def _made(indices, values, shape) -> SparseTensor:
    """A SparseTensor of a statically known dense shape."""
    out = SparseTensor(indices, values, convert_to_tensor(np.asarray(shape, np.int64)))
    out._known_shape = tuple(int(d) for d in shape)
    return out


def _strides(shape) -> np.ndarray:
    return np.asarray([int(np.prod(shape[i + 1:], dtype=np.int64)) for i in range(len(shape))],
                      np.int64)


def _linear(indices, shape):
    """Row-major position of each coordinate."""
    return R.reduce_sum(M.multiply(indices, convert_to_tensor(_strides(shape))), axis=1)


def _unravel(linear, shape):
    """Coordinates `[N, len(shape)]` of row-major positions."""
    columns = [M.floormod(M.floordiv(linear, convert_to_tensor(np.int64(s))),
                          convert_to_tensor(np.int64(d)))
               for s, d in zip(_strides(shape), shape)]
    return A.stack(columns, axis=1) if columns else A.zeros([A.shape(linear)[0], 0], D.int64)


def _reordered(indices, values, shape):
    """(indices, values) in the row-major order of `shape` (whose first dim is not needed)."""
    order = A.argsort(_linear(indices, shape), stable=True)
    # gather_nd: the values' gradient is dense, as TF's SparseReorder gradient (a gather's
    # would be IndexedSlices)
    return A.gather(indices, order), A.gather_nd(values, A.expand_dims(order, 1))


def _ordered(indices, values, shape) -> SparseTensor:
    return _made(*_reordered(indices, values, shape), shape)


# --- conversions ------------------------------------------------------------------------------
@tf_export("sparse.from_dense")
def from_dense(tensor, name=None):
    """The non-zero elements of `tensor` (NaN counts as non-zero)."""
    t = convert_to_tensor(tensor)
    indices = M.where(M.not_equal(t, A.zeros_like(t)))
    out = SparseTensor(indices, A.gather_nd(t, indices), A.shape(t, out_type=D.int64))
    if t.shape.is_fully_defined():
        out._known_shape = t.shape.as_tuple()
    return out


@tf_export("sparse.to_dense")
def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor: `values` at `indices`, `default_value` (zero) elsewhere."""
    sp = _sparse(sp_input, "to_dense")
    # a dense shape unknown while tracing (a batch of a dataset's SparseTensors) is read at
    # run time: the graph executor runs it, XLA refuses the unknown output shape
    known = sp.shape
    shape = known.as_list() if known.is_fully_defined() else sp.dense_shape
    fill = convert_to_tensor(0 if default_value is None else default_value, dtype=sp.dtype)
    dense = A.tensor_scatter_nd_update(A.fill(shape, fill), sp.indices, sp.values)
    if not known.is_fully_defined() and known.rank is not None:
        dense.set_shape(known)   # the dims known while tracing, as TF's result has
    return dense


@tf_export("sparse.to_indicator")
def to_indicator(sp_input, vocab_size, name=None):
    """Bool `dense_shape[:-1] + [vocab_size]`: true at each row's ids (the values)."""
    sp = _sparse(sp_input, "to_indicator")
    shape = _static_shape(sp, "to_indicator")
    ids = M.cast(A.reshape(sp.values, [-1, 1]), D.int64)
    coords = A.concat([sp.indices[:, :-1], ids], 1)
    hits = A.scatter_nd(coords, A.ones_like(sp.values, dtype=D.int32),
                        shape[:-1] + [int(vocab_size)])
    return M.greater(hits, convert_to_tensor(0))


# --- products and reductions -----------------------------------------------------------------
@tf_export("sparse.sparse_dense_matmul")
def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """`sp_a @ b` for a 2-D SparseTensor and a dense matrix (either side may be sparse)."""
    if not isinstance(sp_a, SparseTensor):   # dense @ sparse = (sparse^T @ dense^T)^T
        dense = convert_to_tensor(sp_a)
        return A.transpose(sparse_dense_matmul(
            _sparse(b, "sparse_dense_matmul"), dense, adjoint_a=not adjoint_b,
            adjoint_b=not adjoint_a))
    b = convert_to_tensor(b)
    if adjoint_b:
        b = M.conj(A.transpose(b))
    rows, cols = sp_a.indices[:, 0], sp_a.indices[:, 1]
    values = sp_a.values
    out_rows = _static_shape(sp_a, "sparse_dense_matmul")[1 if adjoint_a else 0]
    if adjoint_a:
        rows, cols, values = cols, rows, M.conj(values)
    # gather_nd, not gather: TF's gradient for `b` is dense, not IndexedSlices
    products = M.multiply(A.reshape(values, [-1, 1]), A.gather_nd(b, A.reshape(cols, [-1, 1])))
    return S.unsorted_segment_sum(products, rows, out_rows)


@tf_export("sparse.reduce_sum")
def reduce_sum(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """The sum of the elements over `axis` (all when None): dense, or with `output_is_sparse`
    a SparseTensor of the positions some element was summed into (zero sums kept, as TF)."""
    sp = _sparse(sp_input, "reduce_sum")
    total = R.reduce_sum(to_dense(sp), axis=axis, keepdims=bool(keepdims))
    return _sparse_result(total, _present(sp, axis, keepdims)) if output_is_sparse else total


@tf_export("sparse.reduce_max")
def reduce_max(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """The maximum of the *present* values over `axis`; 0 where none is present (TF's); with
    `output_is_sparse` a SparseTensor of the positions some value was reduced into."""
    sp = _sparse(sp_input, "reduce_max")
    lowest = -np.inf if sp.dtype.is_floating else np.iinfo(sp.dtype.np).min
    best = R.reduce_max(to_dense(sp, default_value=lowest), axis=axis, keepdims=bool(keepdims))
    present = _present(sp, axis, keepdims)
    best = M.where(present, best, A.zeros_like(best))
    return _sparse_result(best, present) if output_is_sparse else best


def _present(sp, axis, keepdims):
    """Where the reduction of `sp` over `axis` met at least one of its elements."""
    return R.reduce_any(to_dense(sp.with_values(A.ones_like(sp.values, dtype=D.bool_)),
                                 default_value=False), axis=axis, keepdims=bool(keepdims))


def _sparse_result(dense, present):
    """`dense` at the `present` positions, as TF's Sparse*Sparse reductions give them."""
    shape = A.shape(dense, out_type=D.int64)
    if dense.shape.rank == 0:   # a full reduction: one entry with no coordinates, if present
        flat = M.where(A.reshape(present, [1]))
        return SparseTensor(flat[:, :0], A.gather_nd(A.reshape(dense, [1]), flat), shape)
    indices = M.where(present)
    return SparseTensor(indices, A.gather_nd(dense, indices), shape)


# --- combining --------------------------------------------------------------------------------
@tf_export("sparse.add")
def add(a, b, threshold=0):
    """`a + b`: dense when either is dense; two SparseTensors sum their shared coordinates
    (kept when the sum's magnitude is at least `threshold`), in canonical order."""
    if not isinstance(a, SparseTensor):
        return M.add(convert_to_tensor(a), to_dense(b))
    if not isinstance(b, SparseTensor):
        return M.add(to_dense(a), convert_to_tensor(b))
    shape = _static_shape(a, "add")
    indices = A.concat([a.indices, b.indices], 0)
    values = A.concat([a.values, b.values], 0)
    linear = _linear(indices, shape)
    order = A.argsort(linear, stable=True)
    linear, values = A.gather(linear, order), A.gather(values, order)
    positions, segment = C.unique(linear, out_idx=D.int64)[:2]
    summed = S.segment_sum(values, segment)
    coords = _unravel(positions, shape)
    if threshold:
        keep = M.greater_equal(M.abs(summed), convert_to_tensor(threshold, dtype=summed.dtype))
        coords, summed = A.boolean_mask(coords, keep), A.boolean_mask(summed, keep)
    return _made(coords, summed, shape)


def _union(a, b, combine, opname) -> SparseTensor:
    """`combine` of two SparseTensors of one shape at the union of their coordinates (an
    absent entry reads as 0), in canonical order: TF's sparse maximum/minimum. Composed on
    the dense shape, which is known while tracing, so the graph executor runs it too."""
    a, b = _sparse(a, opname), _sparse(b, opname)
    shape = _static_shape(a, opname)
    if _static_shape(b, opname) != shape:
        raise errors.InvalidArgumentError(None, None, f"Operands do not have the same ranks; "
                                                      f"got shapes: {shape} and {b.shape}")
    present = M.logical_or(_entry_mask(a), _entry_mask(b))
    coords = M.where(present)   # row-major: TF's canonical order
    return _made(coords, A.gather_nd(combine(to_dense(a), to_dense(b)), coords), shape)


def _entry_mask(sp):
    """The dense bool tensor that is True where `sp` has an entry (explicit zeros too)."""
    ones = A.ones_like(sp.values, dtype=D.bool_)
    return to_dense(SparseTensor(sp.indices, ones, sp.dense_shape), default_value=False)


@tf_export("sparse.maximum")
def maximum(sp_a, sp_b, name=None):
    """Elementwise max of two SparseTensors of one shape (absent entries are 0)."""
    return _union(sp_a, sp_b, M.maximum, "maximum")


@tf_export("sparse.minimum")
def minimum(sp_a, sp_b, name=None):
    """Elementwise min of two SparseTensors of one shape (absent entries are 0)."""
    return _union(sp_a, sp_b, M.minimum, "minimum")


@tf_export("sparse.concat")
def concat(axis, sp_inputs, expand_nonconcat_dims=False, concat_dim=None, name=None):
    """The SparseTensors joined along `axis` (the other dims equal, or with
    `expand_nonconcat_dims` the largest), in canonical order."""
    sps = [_sparse(s, "concat") for s in sp_inputs]
    shapes = [_static_shape(s, "concat") for s in sps]
    rank = len(shapes[0])
    axis = int(axis) + rank if int(axis) < 0 else int(axis)
    out = [max(s[d] for s in shapes) for d in range(rank)]
    if not expand_nonconcat_dims and any(
            s[d] != shapes[0][d] for s in shapes for d in range(rank) if d != axis):
        raise errors.InvalidArgumentError(None, "concat", f"sparse.concat: the dense shapes "
                                          f"{shapes} differ outside dimension {axis}")
    offsets = np.cumsum([0] + [s[axis] for s in shapes])
    out[axis] = int(offsets[-1])
    shifted = []
    for s, off in zip(sps, offsets):
        step = np.zeros(rank, np.int64)
        step[axis] = off
        shifted.append(M.add(s.indices, convert_to_tensor(step)))
    # TF declares SparseConcat not differentiable: no gradient reaches the inputs' values
    values = A.stop_gradient(A.concat([s.values for s in sps], 0))
    return _ordered(A.concat(shifted, 0), values, out)


@tf_export("sparse.retain")
def retain(sp_input, to_retain):
    """The entries where the bool vector `to_retain` is true."""
    sp = _sparse(sp_input, "retain")
    kept = A.reshape(M.where(convert_to_tensor(to_retain, dtype=D.bool_)), [-1])
    # a gather, as TF's: the values' gradient is IndexedSlices
    return _made(A.gather(sp.indices, kept), A.gather(sp.values, kept),
                 _static_shape(sp, "retain"))


@tf_export("sparse.slice")
def slice(sp_input, start, size, name=None):  # noqa: A001  (TF's name)
    """The entries inside the box `[start, start + size)`, shifted to start at 0; the box is
    cut at the dense shape."""
    sp = _sparse(sp_input, "slice")
    shape = _static_shape(sp, "slice")
    start = [int(s) for s in np.asarray(start).reshape(-1)]
    size = [int(s) for s in np.asarray(size).reshape(-1)]
    end = [min(b + n, d) for b, n, d in zip(start, size, shape)]
    lo, hi = convert_to_tensor(np.asarray(start, np.int64)), \
        convert_to_tensor(np.asarray(end, np.int64))
    inside = R.reduce_all(M.logical_and(M.greater_equal(sp.indices, lo), M.less(sp.indices, hi)),
                          axis=1)
    return _made(M.subtract(A.boolean_mask(sp.indices, inside), lo),
                 A.boolean_mask(sp.values, inside),
                 [max(e - b, 0) for b, e in zip(start, end)])


@tf_export("sparse.fill_empty_rows")
def fill_empty_rows(sp_input, default_value, name=None):
    """Every row without an entry gets `default_value` at column 0; also the bool vector of
    the rows that were empty."""
    sp = _sparse(sp_input, "fill_empty_rows")
    # the row count may be known at run time only (a batch); the order needs the other dims
    shape = sp.shape.as_list() if sp.shape.rank is not None else None
    if shape is None or None in shape[1:]:
        raise ValueError(f"fill_empty_rows: the SparseTensor's dense shape after the first "
                         f"dim must be known while tracing, got {sp.shape}")
    n_rows = shape[0] if shape[0] is not None else sp.dense_shape[0]
    counts = S.unsorted_segment_sum(A.ones_like(sp.indices[:, 0]), sp.indices[:, 0], n_rows)
    empty = M.equal(counts, convert_to_tensor(np.int64(0)))
    rows = A.reshape(M.where(empty), [-1, 1])
    filled = A.concat([rows, A.zeros([A.shape(rows)[0], len(shape) - 1], D.int64)], 1)
    default = A.fill([A.shape(rows)[0]], convert_to_tensor(default_value, dtype=sp.dtype))
    out = SparseTensor(*_reordered(A.concat([sp.indices, filled], 0),
                                   A.concat([sp.values, default], 0), shape), sp.dense_shape)
    out._known_shape = sp._known_shape
    return out, empty


# --- reordering and reshaping ----------------------------------------------------------------
@tf_export("sparse.reorder")
def reorder(sp_input, name=None):
    """The entries in canonical (row-major) order."""
    sp = _sparse(sp_input, "reorder")
    return _ordered(sp.indices, sp.values, _static_shape(sp, "reorder"))


@tf_export("sparse.transpose")
def transpose(sp_input, perm=None, name=None):
    """The dims permuted by `perm` (reversed when None), in canonical order."""
    sp = _sparse(sp_input, "transpose")
    shape = _static_shape(sp, "transpose")
    perm = list(range(len(shape)))[::-1] if perm is None else [int(p) for p in perm]
    return _ordered(A.gather(sp.indices, perm, axis=1), sp.values, [shape[p] for p in perm])


@tf_export("sparse.reshape")
def reshape(sp_input, shape, name=None):
    """The same row-major elements under the dense shape `shape` (one dim may be -1)."""
    sp = _sparse(sp_input, "reshape")
    old = _static_shape(sp, "reshape")
    new = [int(d) for d in np.asarray(shape).reshape(-1)]
    total = int(np.prod(old, dtype=np.int64))
    if new.count(-1) == 1:
        known = int(np.prod([d for d in new if d != -1], dtype=np.int64))
        new[new.index(-1)] = total // known if known else 0
    if int(np.prod(new, dtype=np.int64)) != total:
        raise errors.InvalidArgumentError(
            None, "reshape", f"Input to reshape is a SparseTensor with {total} dense values, "
            f"but the requested shape has {int(np.prod(new, dtype=np.int64))}")
    return _made(_unravel(_linear(sp.indices, old), new), sp.values, new)


@tf_export("sparse.expand_dims")
def expand_dims(sp_input, axis=None, name=None):
    """A dim of size 1 inserted at `axis`."""
    sp = _sparse(sp_input, "expand_dims")
    shape = _static_shape(sp, "expand_dims")
    axis = -1 if axis is None else int(axis)
    at = axis + len(shape) + 1 if axis < 0 else axis
    zeros = A.zeros([A.shape(sp.indices)[0], 1], D.int64)
    indices = A.concat([sp.indices[:, :at], zeros, sp.indices[:, at:]], 1)
    return _made(indices, sp.values, shape[:at] + [1] + shape[at:])


@tf_export("sparse.map_values")
def map_values(op, *args, **kwargs):
    """`op` applied to the values of the SparseTensor arguments (which share coordinates),
    the result at the first one's coordinates."""
    found = []

    def values(v):
        if isinstance(v, SparseTensor):
            found.append(v)
            return v.values
        return v
    out = op(*[values(a) for a in args], **{k: values(v) for k, v in kwargs.items()})
    if not found:
        raise ValueError("sparse.map_values: no SparseTensor among the arguments")
    return found[0].with_values(out)


# --- segment reductions over selected rows ---------------------------------------------------
def _segment(reduce_sorted, reduce_unsorted):
    def fn(data, indices, segment_ids, name=None, num_segments=None, sparse_gradient=False):
        data = convert_to_tensor(data)
        # TF's gradient of `data` is IndexedSlices only when asked for (`sparse_gradient`): a
        # gather's gradient is, gather_nd's is dense
        rows = A.gather(data, indices) if sparse_gradient else \
            A.gather_nd(data, A.expand_dims(indices, 1))
        if num_segments is None:
            return reduce_sorted(rows, segment_ids)
        return reduce_unsorted(rows, segment_ids, num_segments)
    return fn


def _sqrt_n(sum_of, count_of):
    """A segment sum divided by the square root of its row count (1 for an empty one)."""
    def reduce(rows, segment_ids, *num):
        total = sum_of(rows, segment_ids, *num)
        ones = A.ones_like(A.reshape(M.cast(segment_ids, total.dtype), [-1]))
        count = count_of(ones, segment_ids, *num)
        count = M.sqrt(M.maximum(count, convert_to_tensor(1, dtype=total.dtype)))
        return M.truediv(total, A.reshape(count, [-1] + [1] * (total.shape.rank - 1)))
    return reduce


def _mean(sum_of, count_of):
    def reduce(rows, segment_ids, *num):
        total = sum_of(rows, segment_ids, *num)
        ones = A.ones_like(A.reshape(M.cast(segment_ids, total.dtype), [-1]))
        count = M.maximum(count_of(ones, segment_ids, *num),
                          convert_to_tensor(1, dtype=total.dtype))
        return M.truediv(total, A.reshape(count, [-1] + [1] * (total.shape.rank - 1)))
    return reduce


segment_sum = tf_export("sparse.segment_sum")(
    _segment(S.segment_sum, S.unsorted_segment_sum))
segment_mean = tf_export("sparse.segment_mean")(
    _segment(_mean(S.segment_sum, S.segment_sum),
             _mean(S.unsorted_segment_sum, S.unsorted_segment_sum)))
segment_sqrt_n = tf_export("sparse.segment_sqrt_n")(
    _segment(_sqrt_n(S.segment_sum, S.segment_sum),
             _sqrt_n(S.unsorted_segment_sum, S.unsorted_segment_sum)))
for _fn, _what in ((segment_sum, "sums"), (segment_mean, "means"),
                   (segment_sqrt_n, "sums divided by the square root of the row count")):
    _fn.__doc__ = (f"Segment {_what} of the rows `data[indices]` by sorted `segment_ids` "
                   f"(into `num_segments` segments when given).")
del _fn, _what
