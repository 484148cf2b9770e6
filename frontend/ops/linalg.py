"""TF-named linear algebra (`tf.matmul`, `tf.tensordot`, `tf.einsum`, `tf.math.top_k`)."""
from __future__ import annotations

import collections
import operator

import numpy as np

from ...ir import dtypes as D
from ...ir.ops.linalg import canonical_einsum
from ...ir.errors import InvalidArgumentError
from ...ir.registry import InferenceError
from ...ir.shapes import format_shape
from ..eager.dispatch import _is_tensor_like, apply, convert_pair, convert_to_tensor
from ..export import runs, tf_export


@tf_export("linalg.matmul", "matmul")
def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, grad_a=False,
           grad_b=False, name=None):
    """a @ b over the last two dims; leading (batch) dims broadcast. `adjoint_*` is
    `transpose_*` for real types; `*_is_sparse` and `grad_*` are hints and ignored."""
    if transpose_a and adjoint_a:
        raise ValueError("matmul: only one of `transpose_a` and `adjoint_a` can be True.")
    if transpose_b and adjoint_b:
        raise ValueError("matmul: only one of `transpose_b` and `adjoint_b` can be True.")
    a, b = convert_pair(a, b)
    attrs = {"transpose_a": bool(transpose_a or adjoint_a),
             "transpose_b": bool(transpose_b or adjoint_b),
             "output_type": None if output_type is None else D.as_dtype(output_type)}
    return apply("matmul", (a, b), attrs)


def _axis_list(v, what):
    if hasattr(v, "numpy") and hasattr(v, "dtype"):  # a constant tensor
        v = v.numpy()
    if hasattr(v, "tolist"):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        return tuple(_index(x, what) for x in v)
    return (_index(v, what),)


def _index(v, what):
    if isinstance(v, bool):
        raise TypeError(f"tensordot: {what} must be integers, got {v!r}")
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"tensordot: {what} must be integers, got {v!r}") from None


@tf_export("linalg.tensordot", "tensordot")
def tensordot(a, b, axes, name=None):
    """Sum over `axes`: an int N (the last N dims of a with the first N of b) or a pair
    `[a_axes, b_axes]` (each an int or a list, matched pairwise)."""
    a, b = convert_pair(a, b)
    if hasattr(axes, "numpy") and hasattr(axes, "dtype"):
        axes = axes.numpy()
    if hasattr(axes, "tolist"):
        axes = axes.tolist()
    if isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ValueError(f"tensordot: `axes` must be an integer or have length 2. "
                             f"Received {axes}.")
        a_axes, b_axes = _axis_list(axes[0], "axes"), _axis_list(axes[1], "axes")
        if len(a_axes) != len(b_axes):
            raise ValueError(f"tensordot: Different number of contraction axes `a` and `b`, "
                             f"{len(a_axes)} != {len(b_axes)}.")
    else:
        n = _index(axes, "axes")
        if n < 0:
            raise ValueError(f"tensordot: `axes` must be at least 0. Received: {n}.")
        rank = a.shape.rank
        if rank is not None and n > rank:
            raise ValueError(f"tensordot: `axes` must not be larger than the number of "
                             f"dimensions of tensor a (rank {rank}). Received {n}.")
        rank_b = b.shape.rank
        if rank_b is not None and n > rank_b:
            raise ValueError(f"tensordot: `axes` must not be larger than the number of "
                             f"dimensions of tensor b (rank {rank_b}). Received {n}.")
        # Negative a_axes mean "the last n" even while a's rank is unknown.
        a_axes, b_axes = tuple(range(-n, 0)), tuple(range(n))
    return apply("tensordot", (a, b), {"a_axes": a_axes, "b_axes": b_axes})


@tf_export("linalg.einsum", "einsum")
def einsum(equation, *inputs, **kwargs):
    """Einstein summation, e.g. `einsum("bij,bjk->bik", x, y)`. Without "->" the output is
    NumPy's implicit one: the labels used once, sorted (after "..." if any input has it)."""
    if not isinstance(equation, str):
        raise TypeError(f"einsum: the equation must be a string, got {equation!r}")
    kwargs.pop("name", None)
    kwargs.pop("optimize", None)  # TF's contraction-order hint; NumPy picks its own order
    if kwargs:
        raise TypeError(f"einsum: unexpected keyword arguments {sorted(kwargs)}")
    try:
        eq = canonical_einsum(equation)
    except InferenceError as e:
        raise ValueError(f"einsum: {e}") from None
    n_terms = eq.split("->")[0].count(",") + 1
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)) and n_terms > 1 \
            and len(inputs[0]) == n_terms:
        inputs = tuple(inputs[0])  # einsum(eq, [x, y])
    if not inputs:
        raise ValueError(f"einsum: no inputs given for equation {equation!r}")
    # Non-tensor operands take the first tensor operand's dtype (TF's rule for Python values).
    first = next((x for x in inputs if _is_tensor_like(x)), None)
    dt = convert_to_tensor(first).dtype if first is not None else None
    ts = tuple(convert_to_tensor(x) if _is_tensor_like(x) else convert_to_tensor(x, dtype=dt)
               for x in inputs)
    return apply("einsum", ts, {"equation": eq})


TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


@tf_export("math.top_k", "nn.top_k")
def top_k(input, k=1, sorted=True, index_type=D.int32, name=None):  # noqa: A002
    """The `k` largest entries of the last axis, largest first, and their indices (the lower
    index first among equal values; NaN counts as largest). Returns `(values, indices)`."""
    x = convert_to_tensor(input)
    if hasattr(k, "numpy") and hasattr(k, "dtype"):
        k = k.numpy()
    if isinstance(k, bool):
        raise TypeError(f"top_k: k must be an integer, got {k!r}")
    try:
        k = operator.index(k)
    except TypeError:
        raise TypeError(f"top_k: k must be an integer, got {k!r}") from None
    values, indices = apply("top_k", (x,), {"k": k, "sorted": bool(sorted),
                                            "index_type": D.as_dtype(index_type)})
    return TopKV2(values, indices)


# --- band_part: a select with a constant band mask ---------------------------------------
def _band_bound(v, what, limit, dim):
    if hasattr(v, "numpy") and hasattr(v, "dtype"):
        v = v.numpy()
    v = _index(v.item() if hasattr(v, "item") else v, what)
    if limit is not None and v > limit:
        raise InvalidArgumentError(None, "band_part", f"band_part: {what} must be negative or "
                                                      f"less or equal to number of {dim} "
                                                      f"({limit}) got: {v}")
    return v


@tf_export("linalg.band_part")
def band_part(input, num_lower, num_upper, name=None):  # noqa: A002  (TF's name)
    """Keep the band of each innermost matrix: `num_lower` diagonals below the main one and
    `num_upper` above (negative: the whole triangle); zeros elsewhere. The band mask is a
    constant where the matrix dims are known while tracing, else computed from the shape."""
    from .array import zeros_like
    from .math import where
    x = convert_to_tensor(input)
    if x.shape.rank is not None and x.shape.rank < 2:
        raise InvalidArgumentError(None, "band_part", f"band_part: input must be at least "
                                                      f"2-dim, received shape: "
                                                      f"{format_shape(x.shape.as_list())}")
    rows, cols = x.shape.as_list()[-2:] if x.shape.rank is not None else (None, None)
    lower = _band_bound(num_lower, "num_lower", rows, "rows")
    upper = _band_bound(num_upper, "num_upper", cols, "cols")
    if rows is None or cols is None:
        i, j = _matrix_positions(x)
    else:
        i, j = np.arange(rows)[:, None], np.arange(cols)[None, :]
    band = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    return where(band, x, zeros_like(x))


def _matrix_positions(x):
    """Row and column indices of the innermost matrix of `x` (shape [rows, 1] and [1, cols])
    computed from its run-time shape."""
    from .array import range as range_, reshape, shape
    dims = shape(x)
    return reshape(range_(dims[-2]), [-1, 1]), reshape(range_(dims[-1]), [1, -1])


# --- square-matrix solvers -----------------------------------------------------------------
@tf_export("linalg.inv")
@runs("matrix_inverse")
def inv(input, adjoint=False, name=None):  # noqa: A002  (TF's name)
    """The inverse of each innermost square matrix (of its transpose with `adjoint`)."""
    return apply("matrix_inverse", (convert_to_tensor(input),), {"adjoint": bool(adjoint)})


@tf_export("linalg.det")
@runs("matrix_determinant")
def det(input, name=None):  # noqa: A002
    """The determinant of each innermost square matrix."""
    return apply("matrix_determinant", (convert_to_tensor(input),))


@tf_export("linalg.solve")
@runs("matrix_solve")
def solve(matrix, rhs, adjoint=False, name=None):
    """X with matrix @ X = rhs per batch entry (matrix^T @ X with `adjoint`)."""
    matrix, rhs = convert_pair(matrix, rhs)
    return apply("matrix_solve", (matrix, rhs), {"adjoint": bool(adjoint)})


@tf_export("linalg.cholesky")
def cholesky(input, name=None):  # noqa: A002
    """Lower-triangular L with L @ L^T = input (only the lower triangle is read); NaN where
    the matrix is not positive definite, as TF 2.21."""
    return apply("cholesky", (convert_to_tensor(input),))


@tf_export("linalg.triangular_solve")
@runs("matrix_triangular_solve")
def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """X with matrix @ X = rhs for triangular matrices: only the `lower` (or upper) triangle
    is read; matrix^T @ X with `adjoint`. Batch dims broadcast."""
    matrix, rhs = convert_pair(matrix, rhs)
    return apply("matrix_triangular_solve", (matrix, rhs),
                 {"lower": bool(lower), "adjoint": bool(adjoint)})


Slogdet = collections.namedtuple("LogMatrixDeterminant", ["sign", "log_abs_determinant"])


@tf_export("linalg.slogdet")
@runs("log_matrix_determinant")
def slogdet(input, name=None):  # noqa: A002
    """(sign, log|det|) of each innermost square matrix: sign 0 and -inf where singular."""
    return Slogdet(*apply("log_matrix_determinant", (convert_to_tensor(input),)))
