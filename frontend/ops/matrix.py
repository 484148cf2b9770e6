"""`tf.linalg`'s matrix helpers that TF itself composes from other ops (or whose op is a
gather/select pattern): diagonals, trace, transposes, matvec, cross products, log-determinants
of positive-definite matrices, tridiagonal products and normalization.

Diagonals are selects with constant masks (never products with an identity, so NaN and inf
off the diagonal stay where they are); the innermost matrix dims must be known while tracing.
"""
from __future__ import annotations

import numpy as np

from ...ir.errors import FailedPreconditionError, InvalidArgumentError
from ...ir.shapes import format_shape
from ..eager.dispatch import convert_pair, convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from . import reduce as R
from .linalg import _index, cholesky, einsum, matmul, solve, triangular_solve
from .nn import l2_normalize

tf_export("linalg.l2_normalize")(l2_normalize)


def _matrix_dims(x, opname):
    """The static (rows, cols) of the innermost matrices of `x`."""
    shape = x.shape.as_list() if x.shape.rank is not None else None
    if shape is not None and len(shape) < 2:
        raise InvalidArgumentError(None, opname, f"input must be at least 2-dim, received "
                                                 f"shape: {format_shape(shape)}")
    if shape is None or shape[-2] is None or shape[-1] is None:
        raise ValueError(f"{opname}: flowjit needs the last two dimensions known while "
                         f"tracing, got shape {x.shape}")
    return shape[-2], shape[-1]


def _offset(k, opname):
    """One diagonal offset: an int, or a pair of equal ints (a band of one diagonal)."""
    if hasattr(k, "numpy"):
        k = k.numpy()
    if hasattr(k, "tolist"):
        k = k.tolist()
    if isinstance(k, (list, tuple)):
        if len(k) != 2 or k[0] != k[1]:
            raise NotImplementedError(f"{opname}: flowjit supports one diagonal (k an int or "
                                      f"a pair of equal ints), got k={k}")
        k = k[0]
    return _index(k, "k")


def _diagonal_length(rows, cols, k):
    return max(0, min(rows, cols - k) if k >= 0 else min(rows + k, cols))


def _on_diagonal(rows, cols, k):
    return np.arange(cols)[None, :] - np.arange(rows)[:, None] == k


def _spread_diagonal(diagonal, rows, cols, k):
    """`diagonal` [..., L] laid along diagonal `k` of a [..., rows, cols] broadcastable
    operand: values by row (padded to `rows`) above the main diagonal, by column below."""
    length = diagonal.shape.as_list()[-1]
    rank = diagonal.shape.rank
    along = rows if k >= 0 else cols
    pads = [[0, 0]] * (rank - 1) + [[0, max(0, along - length)]]
    padded = A.pad(diagonal, pads) if along > length else diagonal[..., :along]
    return A.expand_dims(padded, -1 if k >= 0 else -2)


@tf_export("linalg.matrix_transpose")
def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Swap the last two dims (conjugating complex entries with `conjugate`)."""
    x = convert_to_tensor(a)
    rank = x.shape.rank
    if rank is None:
        raise ValueError("matrix_transpose: flowjit needs the rank known while tracing")
    if rank < 2:
        raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2.  "
                         f"Received `a` = {x} with shape: {x.shape}")
    out = A.transpose(x, list(range(rank - 2)) + [rank - 1, rank - 2])
    return M.conj(out) if conjugate and x.dtype.is_complex else out


@tf_export("linalg.adjoint")
def adjoint(matrix, name=None):
    """The conjugate transpose of each innermost matrix."""
    return matrix_transpose(matrix, conjugate=True)


@tf_export("linalg.matvec")
def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False,
           name=None):
    """a @ b for a batch of matrices `a` [..., M, N] and vectors `b` [..., N]."""
    a, b = convert_pair(a, b)
    product = matmul(a, A.expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a)
    return A.squeeze(product, -1)


@tf_export("linalg.diag_part", "linalg.tensor_diag_part")
def diag_part(input, name="diag_part", k=0, padding_value=0,  # noqa: A002  (TF's name)
              align="RIGHT_LEFT"):
    """Diagonal `k` of each innermost matrix: [..., L] with L its length."""
    x = convert_to_tensor(input)
    rows, cols = _matrix_dims(x, "diag_part")
    k = _offset(k, "diag_part")
    if not -rows < k < cols and rows and cols:
        raise InvalidArgumentError(None, "diag_part", f"lower_diag_index is out of bound: "
                                                      f"{k}. It must be between {-rows} and "
                                                      f"{cols}")
    band = x[..., :, k:] if k >= 0 else x[..., -k:, :]
    side = _diagonal_length(rows, cols, k)
    return einsum("...ii->...i", band[..., :side, :side])


@tf_export("linalg.diag", "linalg.tensor_diag")
def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0,
         align="RIGHT_LEFT"):
    """Matrices [..., rows, cols] with `diagonal` [..., L] on diagonal `k` and
    `padding_value` elsewhere (rows = cols = L + |k| unless given)."""
    d = convert_to_tensor(diagonal)
    k = _offset(k, "diag")
    if d.shape.rank is not None and d.shape.rank >= 1 and d.shape.as_list()[-1] is None \
            and k == 0 and _index(num_rows, "num_rows") < 0 and _index(num_cols, "num_cols") < 0:
        # A square matrix of the diagonal's run-time length (gradients of eigh and friends
        # under unknown-dim signatures): row i holds d_i where the column is i.
        where = A.range(A.shape(d)[-1])
        on_diagonal = M.equal(A.expand_dims(where, -1), where)
        pad = convert_to_tensor(padding_value, dtype=d.dtype)
        return M.where(on_diagonal, A.expand_dims(d, -1), pad)
    if d.shape.rank is None or d.shape.rank < 1 or d.shape.as_list()[-1] is None:
        raise ValueError(f"diag: flowjit needs the diagonal's last dimension known while "
                         f"tracing, got shape {d.shape}")
    length = d.shape.as_list()[-1]
    rows = _index(num_rows, "num_rows")
    cols = _index(num_cols, "num_cols")
    # Unknown sizes are the least that hold the diagonal; square when neither is given.
    least_rows, least_cols = length + max(0, -k), length + max(0, k)
    if rows < 0 and cols < 0:
        rows = cols = max(least_rows, least_cols)
    rows = least_rows if rows < 0 else rows
    cols = least_cols if cols < 0 else cols
    if _diagonal_length(rows, cols, k) != length:
        raise InvalidArgumentError(None, "diag", f"The number of diagonal elements {length} "
                                                 f"does not match num_rows {rows} and num_cols "
                                                 f"{cols} for diagonal {k}")
    # The mask [rows, cols], the spread diagonal and the scalar padding broadcast together.
    pad = convert_to_tensor(padding_value, dtype=d.dtype)
    return M.where(_on_diagonal(rows, cols, k), _spread_diagonal(d, rows, cols, k), pad)


@tf_export("linalg.set_diag")
def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002
    """`input` with diagonal `k` of each innermost matrix replaced by `diagonal` [..., L]."""
    x, d = convert_pair(input, diagonal)
    rows, cols = _matrix_dims(x, "set_diag")
    k = _offset(k, "set_diag")
    length = _diagonal_length(rows, cols, k)
    dshape = d.shape.as_list() if d.shape.rank is not None else None
    xshape = x.shape.as_list()
    if dshape is not None and (dshape[-1:] != [length] or len(dshape) != len(xshape) - 1
                               or any(a is not None and b is not None and a != b
                                      for a, b in zip(dshape[:-1], xshape[:-2]))):
        raise InvalidArgumentError(
            None, "set_diag", "Either first dimensions of diagonal don't match input.shape"
                              "[:-2], or diagonal.shape[:-1] is not equal to the longests "
                              "diagonal in range [lower_diag_index:upper_diag_index].")
    return M.where(_on_diagonal(rows, cols, k), _spread_diagonal(d, rows, cols, k), x)


@tf_export("linalg.trace")
def trace(x, name=None):
    """The sum of the main diagonal of each innermost matrix."""
    return R.reduce_sum(diag_part(x), -1)


@tf_export("linalg.cross")
def cross(a, b, name=None):
    """The cross product of 3-vectors along the last axis (a and b of one shape)."""
    a, b = convert_pair(a, b)
    if a.shape.rank is not None and b.shape.rank is not None:
        if a.shape.as_list() != b.shape.as_list():
            raise InvalidArgumentError(None, "cross", f"Both inputs must be of same shape: "
                                                      f"{format_shape(a.shape.as_list())} vs. "
                                                      f"{format_shape(b.shape.as_list())}")
        if a.shape.rank == 0 or a.shape.as_list()[-1] != 3:
            raise FailedPreconditionError(None, "cross", "Cross-products are only defined for "
                                                         "3-element vectors.")
    a1, a2, a3 = A.unstack(a, 3, -1)
    b1, b2, b3 = A.unstack(b, 3, -1)
    return A.stack([a2 * b3 - a3 * b2, a3 * b1 - a1 * b3, a1 * b2 - a2 * b1], -1)


@tf_export("linalg.logdet")
def logdet(matrix, name=None):
    """log(det(matrix)) of Hermitian positive-definite matrices, from their Cholesky factor
    (as TF: NaN where the matrix is not positive definite)."""
    chol = cholesky(matrix)
    return 2.0 * R.reduce_sum(M.log(diag_part(chol)), -1)


@tf_export("linalg.normalize")
def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002  (TF's name)
    """(tensor / norm, norm) with the norm of `tf.norm(tensor, ord, axis, keepdims=True)`."""
    x = convert_to_tensor(tensor)
    norm = M.cast(R.norm(x, ord=ord, axis=axis, keepdims=True), x.dtype)
    return x / norm, norm


_TRIDIAGONAL_FORMATS = ("compact", "sequence", "matrix")


def _tridiagonal_parts(diagonals, diagonals_format, opname):
    """(superdiagonal, main, subdiagonal), each [..., M], from any of TF's three formats (the
    superdiagonal's last and the subdiagonal's first entry are padding)."""
    if diagonals_format not in _TRIDIAGONAL_FORMATS:
        raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")
    if diagonals_format == "sequence":
        if not isinstance(diagonals, (list, tuple)) or len(diagonals) != 3:
            raise ValueError("Expected diagonals to be a sequence of length 3.")
        upper, main, lower = (convert_to_tensor(t) for t in diagonals)
    elif diagonals_format == "matrix":
        m = convert_to_tensor(diagonals)
        size = _matrix_dims(m, opname)[0]
        zero = A.zeros_like(diag_part(m)[..., :1])
        upper = A.concat([diag_part(m, k=1), zero], -1) if size > 1 else diag_part(m)
        lower = A.concat([zero, diag_part(m, k=-1)], -1) if size > 1 else diag_part(m)
        main = diag_part(m)
    else:
        d = convert_to_tensor(diagonals)
        upper, main, lower = d[..., 0, :], d[..., 1, :], d[..., 2, :]
    return upper, main, lower


@tf_export("linalg.tridiagonal_matmul")
def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """The product of tridiagonal matrices with `rhs` [..., M, N]. `diagonals` is compact
    [..., 3, M] (superdiagonal, main, subdiagonal; the superdiagonal's last and the
    subdiagonal's first entry are ignored), a sequence of three [..., M] tensors, or the
    matrices [..., M, M] themselves."""
    upper, main, lower = _tridiagonal_parts(diagonals, diagonals_format, "tridiagonal_matmul")
    rhs = convert_to_tensor(rhs, dtype=main.dtype)
    size = rhs.shape.as_list()[-2] if rhs.shape.rank is not None else None
    if size is None:
        raise ValueError("tridiagonal_matmul: flowjit needs rhs's row count known while "
                         "tracing")
    product = A.expand_dims(main, -1) * rhs
    if size > 1:
        rank = rhs.shape.rank
        pads = [[0, 0]] * (rank - 2)
        below = A.pad(rhs[..., 1:, :], pads + [[0, 1], [0, 0]])
        above = A.pad(rhs[..., :-1, :], pads + [[1, 0], [0, 0]])
        vpads = [[0, 0]] * (rank - 2)
        up = A.pad(upper[..., :-1], vpads + [[0, 1]])
        low = A.pad(lower[..., 1:], vpads + [[1, 0]])
        product = product + A.expand_dims(up, -1) * below + A.expand_dims(low, -1) * above
    return product



def _banded_dense(bands, offsets):
    """Square matrices [..., M, M] with bands[..., j, :] on diagonal offsets[j], stored in
    TF's LEFT_RIGHT alignment: a superdiagonal's values first, a subdiagonal's last."""
    size = bands[0].shape.as_list()[-1]
    if size is None:
        raise ValueError("flowjit needs the band length known while tracing")
    dense = None
    for band, k in zip(bands, offsets):
        if abs(k) >= size:
            continue
        part = diag(band[..., :size - k] if k >= 0 else band[..., -k:], k=k)
        dense = part if dense is None else dense + part
    return dense


def _broadcast_batches(a, b):
    """a [..., M, M] and b [..., M, K] with their batch dims broadcast (known shapes)."""
    batch = list(np.broadcast_shapes(tuple(a.shape.as_list()[:-2]),
                                     tuple(b.shape.as_list()[:-2])))
    return (A.broadcast_to(a, batch + a.shape.as_list()[-2:]),
            A.broadcast_to(b, batch + b.shape.as_list()[-2:]))


@tf_export("linalg.tridiagonal_solve")
def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False,
                      conjugate_rhs=False, name=None, partial_pivoting=True,
                      perturb_singular=False):
    """X with T @ X = rhs for tridiagonal T (formats as `tridiagonal_matmul`); rhs [..., M]
    or [..., M, K] ([..., K, M] with `transpose_rhs`). Solved by elimination with partial
    pivoting on the dense matrix (TF's Thomas-style kernel gives the same X)."""
    if perturb_singular and not partial_pivoting:
        raise ValueError("partial_pivoting must be True if perturb_singular is.")
    upper, main, lower = _tridiagonal_parts(diagonals, diagonals_format, "tridiagonal_solve")
    rhs = convert_to_tensor(rhs, dtype=main.dtype)
    vector = rhs.shape.rank == main.shape.rank
    if vector:
        rhs = A.expand_dims(rhs, -1)
    elif transpose_rhs:
        rhs = matrix_transpose(rhs)
    rows, size = rhs.shape.as_list()[-2], main.shape.as_list()[-1]
    if rows is not None and size is not None and rows != size:
        raise ValueError(f"Expected number of left-hand sided and right-hand sides to be "
                         f"equal, got {size} and {rows}")
    dense = _banded_dense([upper, main, lower], [1, 0, -1])
    x = solve(*_broadcast_batches(dense, rhs))
    return x[..., 0] if vector else x


@tf_export("linalg.banded_triangular_solve")
def banded_triangular_solve(bands, rhs, lower=True, adjoint=False, name=None):
    """X with B @ X = rhs for banded triangular B given by `bands` [..., K, M]: the diagonal
    then K-1 subdiagonals (`lower`), or K-1 superdiagonals down to the diagonal."""
    bands = convert_to_tensor(bands)
    rhs = convert_to_tensor(rhs, dtype=bands.dtype)
    count = bands.shape.as_list()[-2]
    if count is None:
        raise ValueError("banded_triangular_solve: flowjit needs the number of bands known "
                         "while tracing")
    offsets = [-j for j in range(count)] if lower else list(range(count - 1, -1, -1))
    dense = _banded_dense([bands[..., j, :] for j in range(count)], offsets)
    return triangular_solve(dense, rhs, lower=lower, adjoint=adjoint)


# Pade coefficients b_0..b_m of exp (Higham 2005, "The scaling and squaring method for the
# matrix exponential revisited"), and the 1-norm up to which each degree is accurate.
_PADE = {3: (120.0, 60.0, 12.0, 1.0),
         5: (30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0),
         7: (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0),
         9: (17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0,
             110880.0, 3960.0, 90.0, 1.0),
         13: (64764752532480000.0, 32382376266240000.0, 7771770303897600.0,
              1187353796428800.0, 129060195264000.0, 10559470521600.0, 670442572800.0,
              33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)}
# (degree, norm bound) per precision; the last degree runs on the scaled matrix.
_PADE_STEPS = {"single": ((3, 4.258730016922831e-001), (5, 1.880152677804762e+000),
                          (7, 3.925724783138660)),
               "double": ((3, 1.495585217958292e-002), (5, 2.539398330063230e-001),
                          (7, 9.504178996162932e-001), (9, 2.097847961257068e+000),
                          (13, 5.371920351148152))}


def _pade(a, degree):
    """(U, V) of the degree-m Pade approximant: exp(a) ~ (V - U)^-1 (V + U)."""
    b = _PADE[degree]
    eye = A.eye(a.shape.as_list()[-1], dtype=a.dtype)
    powers = {0: eye, 2: matmul(a, a)}
    for k in range(4, min(degree, 7) + 1, 2):
        powers[k] = matmul(powers[k - 2], powers[2])
    if degree == 13:   # Higham's evaluation with A^2, A^4, A^6 only
        a2, a4, a6 = powers[2], powers[4], powers[6]
        u = matmul(a6, b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + \
            b[3] * a2 + b[1] * eye
        v = matmul(a6, b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + \
            b[2] * a2 + b[0] * eye
        return matmul(a, u), v
    if degree == 9:
        powers[8] = matmul(powers[6], powers[2])
    u = sum(b[k] * powers[k - 1] for k in range(1, degree + 1, 2))
    v = sum(b[k] * powers[k] for k in range(0, degree + 1, 2))
    return matmul(a, u), v


@tf_export("linalg.expm")
def expm(input, name=None):  # noqa: A002  (TF's name)
    """exp of each square matrix by scaling and squaring with Pade approximants, TF's choice
    of degree by the 1-norm; NaN matrices where any input entry is not finite."""
    from ..control.control_flow import while_loop
    a = convert_to_tensor(input)
    rows, cols = _matrix_dims(a, "expm")
    if rows == 0 and cols == 0:
        return a
    if a.dtype.name not in ("float16", "float32", "float64"):
        raise ValueError(f"tf.linalg.expm does not support matrices of type {a.dtype!r}")
    steps = _PADE_STEPS["double" if a.dtype.name == "float64" else "single"]
    norm = A.expand_dims(A.expand_dims(R.reduce_max(R.reduce_sum(M.abs(a), axis=-2), axis=-1),
                                       -1), -1)
    top_bound = steps[-1][1]
    squarings = M.maximum(M.floor(M.log(norm / top_bound) / np.log(2.0)), 0.0)
    top = _pade(a / M.pow(M.cast(2.0, a.dtype), squarings), steps[-1][0])
    u, v = top
    for degree, bound in reversed(steps[:-1]):
        low_u, low_v = _pade(a, degree)
        u = M.where(M.less(norm, bound), low_u, u)
        v = M.where(M.less(norm, bound), low_v, v)
    finite = M.is_finite(R.reduce_max(norm))
    eye = A.eye(rows, dtype=a.dtype)
    result = solve(M.where(finite, v - u, eye), M.where(finite, v + u, eye))
    result = M.where(finite, result, A.fill(A.shape(a), np.array(np.nan, a.dtype.np)))
    most = M.where(finite, R.reduce_max(squarings), 0.0)

    def square(i, r):
        return i + 1, M.where(M.less(i, squarings), matmul(r, r), r)
    # The bound never binds (no finite norm needs more squarings than the dtype's largest
    # binary exponent); it lets XLA keep each iteration for the gradient.
    _, result = while_loop(lambda i, _: M.less(i, most), square,
                           [A.zeros([], dtype=a.dtype), result],
                           maximum_iterations=int(np.finfo(a.dtype.np).maxexp))
    return result


@tf_export("linalg.cholesky_solve")
def cholesky_solve(chol, rhs, name=None):
    """X with A @ X = rhs, given A's lower Cholesky factor `chol`: two triangular solves."""
    y = triangular_solve(chol, rhs, lower=True, adjoint=False)
    return triangular_solve(chol, y, lower=True, adjoint=True)


@tf_export("linalg.lstsq")
def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """The least-squares (or, underdetermined, minimum-norm) solution of matrix @ X = rhs
    with an optional l2 penalty, by the normal equations and Cholesky as TF's `fast` path."""
    if not fast:
        raise NotImplementedError("lstsq: flowjit has only the fast (Cholesky) path; "
                                  "fast=False needs a complete orthogonal decomposition")
    a, b = convert_pair(matrix, rhs)
    rows, cols = _matrix_dims(a, "lstsq")
    overdetermined = rows >= cols
    gram = matmul(a, a, transpose_a=overdetermined, transpose_b=not overdetermined)
    size = cols if overdetermined else rows
    gram = gram + M.cast(l2_regularizer, a.dtype) * A.eye(size, dtype=a.dtype)
    chol = cholesky(gram)
    if overdetermined:
        return cholesky_solve(chol, matmul(a, b, transpose_a=True))
    return matmul(a, cholesky_solve(chol, b), transpose_a=True)
