"""tf.math functions TF composes from other ops (math_ops.py, confusion_matrix.py):
angle, invert_permutation, polyval, zero_fraction, the monotonicity checks,
accumulate_n, unsorted_segment_mean/sqrt_n and confusion_matrix."""
from __future__ import annotations

import math

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from . import reduce as R
from .program import get_static_value
from .segment import unsorted_segment_sum


@tf_export("math.angle")
def angle(input, name=None):  # noqa: A002  (TF's argument name)
    """The argument of a complex number, atan2(imag, real); for real input pi where it is
    negative and 0 elsewhere (TF's definition)."""
    x = convert_to_tensor(input)
    if x.dtype.is_complex:
        return M.atan2(M.imag(x), M.real(x))
    return M.where(M.less(x, A.zeros_like(x)), M.multiply(A.ones_like(x), math.pi),
                   A.zeros_like(x))


@tf_export("math.invert_permutation")
def invert_permutation(x, name=None):
    """y with y[x[i]] = i, for a permutation x of 0..n-1."""
    x = convert_to_tensor(x)
    if x.dtype not in (D.int32, D.int64):
        raise TypeError(f"Value passed to parameter 'x' has DataType {x.dtype.name} not in "
                        f"list of allowed values: int32, int64")
    if x.shape.rank is not None and x.shape.rank != 1:
        raise errors.InvalidArgumentError(None, "InvertPermutation",
                                          f"invert_permutation expects a 1D vector.")
    known = get_static_value(x)
    if known is not None:
        seen = np.zeros(known.size, bool)
        for i, v in enumerate(known.tolist()):
            if not 0 <= v < known.size:
                raise errors.InvalidArgumentError(
                    None, "InvertPermutation", f"{v} is not between 0 and {known.size}")
            if seen[v]:
                raise errors.InvalidArgumentError(None, "InvertPermutation",
                                                  f"{v} is duplicated in the input.")
            seen[v] = True
    n = A.shape(x, out_type=x.dtype)
    return A.scatter_nd(A.expand_dims(x, 1), A.range(n[0], dtype=x.dtype), n)


@tf_export("math.polyval")
def polyval(coeffs, x, name=None):
    """coeffs[0] * x**(n-1) + ... + coeffs[n-1], by Horner's rule (0 for no coefficients)."""
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type found {type(coeffs)}.")
    x = convert_to_tensor(x)
    if not coeffs:
        return A.zeros_like(x)
    p = convert_to_tensor(coeffs[0], dtype=x.dtype)
    for c in coeffs[1:]:
        p = M.add(convert_to_tensor(c, dtype=x.dtype), M.multiply(p, x))
    return p


@tf_export("math.zero_fraction")
def zero_fraction(value, name=None):
    """The fraction of the elements of `value` that are 0, as a float32 scalar."""
    v = convert_to_tensor(value)
    zero = M.equal(v, A.zeros_like(v))
    return R.reduce_mean(M.cast(zero, D.float32))


def _monotone(x, compare):
    x = convert_to_tensor(x)
    if not x.dtype.is_numeric:
        raise TypeError(f"Expected x to be numeric, but got dtype {x.dtype.name}")
    flat = A.reshape(x, [-1])
    return R.reduce_all(compare(flat[:-1], flat[1:]))


@tf_export("math.is_non_decreasing")
def is_non_decreasing(x, name=None):
    """True if x[i] <= x[i+1] for the flattened x (trivially for fewer than 2 elements)."""
    return _monotone(x, M.less_equal)


@tf_export("math.is_strictly_increasing")
def is_strictly_increasing(x, name=None):
    """True if x[i] < x[i+1] for the flattened x (trivially for fewer than 2 elements)."""
    return _monotone(x, M.less)


@tf_export("math.accumulate_n")
def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """The elementwise sum of a list of tensors of one shape and dtype (tf.math.add_n)."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype "
                         "and shape")
    return M.add_n(inputs)


def _segment_counts(data, segment_ids, num_segments):
    """Rows per segment (at least 1), shaped to broadcast against the per-segment sums."""
    ids = convert_to_tensor(segment_ids)
    ones = A.ones_like(ids, dtype=data.dtype)
    counts = M.maximum(unsorted_segment_sum(ones, ids, num_segments), A.ones([], data.dtype))
    extra = data.shape.rank - ids.shape.rank
    return A.reshape(counts, [-1] + [1] * extra)


@tf_export("math.unsorted_segment_mean")
def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """The mean of the rows per segment id; an empty segment is 0."""
    data = convert_to_tensor(data)
    total = unsorted_segment_sum(data, segment_ids, num_segments)
    return M.truediv(total, _segment_counts(data, segment_ids, num_segments))


@tf_export("math.unsorted_segment_sqrt_n")
def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """The sum of the rows per segment id divided by the square root of the segment's size;
    an empty segment is 0."""
    data = convert_to_tensor(data)
    if not data.dtype.is_floating:
        raise TypeError(f"Value passed to parameter 'x' has DataType {data.dtype.name} not "
                        f"in list of allowed values: bfloat16, float16, float32, float64")
    total = unsorted_segment_sum(data, segment_ids, num_segments)
    return M.truediv(total, M.sqrt(_segment_counts(data, segment_ids, num_segments)))


@tf_export("math.confusion_matrix")
def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=D.int32,
                     name=None):
    """m[i, j] = how often (or the summed weight with which) label i was predicted as j."""
    dtype = D.as_dtype(dtype)
    labels = M.cast(convert_to_tensor(labels), D.int64)
    predictions = M.cast(convert_to_tensor(predictions), D.int64)
    known_l, known_p = get_static_value(labels), get_static_value(predictions)
    for what, known in (("labels", known_l), ("predictions", known_p)):
        if known is not None and known.size and known.min() < 0:
            raise errors.InvalidArgumentError(None, "confusion_matrix",
                                              f"`{what}` contains negative values.")
    if num_classes is None:
        if known_l is None or known_p is None:
            raise NotImplementedError("confusion_matrix: num_classes must be given when the "
                                      "labels and predictions are computed in the graph")
        num_classes = int(max(known_l.max(initial=-1), known_p.max(initial=-1))) + 1
    else:
        n = get_static_value(convert_to_tensor(num_classes))
        if n is None:
            raise NotImplementedError("confusion_matrix: num_classes must be known when the "
                                      "op is built")
        num_classes = int(n)
        for what, known in (("labels", known_l), ("predictions", known_p)):
            if known is not None and known.size and known.max() >= num_classes:
                raise errors.InvalidArgumentError(
                    None, "confusion_matrix", f"`{what}` out of bound")
    values = A.ones_like(labels, dtype=dtype) if weights is None else \
        M.cast(convert_to_tensor(weights), dtype)
    index = A.stack([labels, predictions], axis=1)
    return A.scatter_nd(index, values, [num_classes, num_classes])


def _approx_k(operand, k, reduction_dimension, largest):
    """top_k along `reduction_dimension` (exact: TF's approximate search returns the exact
    answer on CPU, and the exact one always meets its recall target)."""
    from .linalg import top_k
    x = convert_to_tensor(operand)
    if x.dtype not in (D.float16, D.bfloat16, D.float32):
        raise errors.InvalidArgumentError(
            None, "ApproxTopK", f"Value for attr 'T' of {x.dtype.name} is not in the list of "
                                f"allowed values: half, bfloat16, float")
    rank = x.shape.rank
    axis = reduction_dimension % rank
    perm = [d for d in range(rank) if d != axis] + [axis]
    moved = A.transpose(x, perm) if axis != rank - 1 else x
    values, indices = top_k(moved if largest else M.negative(moved), k)
    if not largest:
        values = M.negative(values)
    if axis != rank - 1:
        back = list(np.argsort(perm))
        values, indices = A.transpose(values, back), A.transpose(indices, back)
    return values, indices


@tf_export("math.approx_max_k", "nn.approx_max_k")
def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """The k largest values along `reduction_dimension` and their indices."""
    return _approx_k(operand, k, reduction_dimension, True)


@tf_export("approx_top_k")
def approx_top_k(input, k, reduction_dimension=-1, recall_target=0.95, is_max_k=True,  # noqa: A002
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """(values, indices) of the k largest (is_max_k) or smallest entries along
    `reduction_dimension`: approx_max_k / approx_min_k in one function."""
    return _approx_k(input, k, reduction_dimension, is_max_k)


@tf_export("math.approx_min_k", "nn.approx_min_k")
def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """The k smallest values along `reduction_dimension` and their indices."""
    return _approx_k(operand, k, reduction_dimension, False)
