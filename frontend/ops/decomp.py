"""TF-named matrix decompositions (`tf.linalg.qr`, `svd`, `eigh`, `eig`, `lu`) and what TF
builds from them in Python (`pinv`, `matrix_rank`, `eigvalsh`, `eigvals`, the `lu_*`
solvers), composed here from the same ops."""
from __future__ import annotations

import collections

import numpy as np

from ...ir import dtypes as D
from ..eager.dispatch import apply, convert_to_tensor
from ..export import runs, tf_export
from . import array as A
from . import math as M
from . import reduce as R
from .linalg import band_part, matmul, triangular_solve
from .matrix import set_diag

Qr = collections.namedtuple("Qr", ["q", "r"])
Lu = collections.namedtuple("Lu", ["lu", "p"])


@tf_export("linalg.qr")
def qr(input, full_matrices=False, name=None):  # noqa: A002  (TF's name)
    """(q, r) with q @ r = input, q's columns orthonormal, r upper triangular."""
    return Qr(*apply("qr", (convert_to_tensor(input),), {"full_matrices": bool(full_matrices)}))


@tf_export("linalg.svd")
def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """(s, u, v) with tensor = u @ diag(s) @ v^T (s alone without `compute_uv`)."""
    s, u, v = apply("svd", (convert_to_tensor(tensor),),
                    {"compute_uv": bool(compute_uv), "full_matrices": bool(full_matrices)})
    return (s, u, v) if compute_uv else s


@tf_export("linalg.eigh")
@runs("self_adjoint_eig")
def eigh(tensor, name=None):
    """(e, v): ascending eigenvalues and eigenvectors (v's columns) of symmetric matrices,
    of which only the lower triangle is read."""
    return tuple(apply("self_adjoint_eig", (convert_to_tensor(tensor),), {"compute_v": True}))


@tf_export("linalg.eigvalsh")
def eigvalsh(tensor, name=None):
    """The ascending eigenvalues of symmetric matrices (lower triangle read)."""
    return apply("self_adjoint_eig", (convert_to_tensor(tensor),), {"compute_v": False})[0]


@tf_export("linalg.eig", "eig")
def eig(tensor, name=None):
    """(e, v): the complex eigenvalues and eigenvectors (v's columns) of square matrices."""
    return tuple(apply("eig", (convert_to_tensor(tensor),), {"compute_v": True}))


@tf_export("linalg.eigvals", "eigvals")
def eigvals(tensor, name=None):
    """The complex eigenvalues of square matrices."""
    return apply("eig", (convert_to_tensor(tensor),), {"compute_v": False})[0]


@tf_export("linalg.lu")
def lu(input, output_idx_type=D.int32, name=None):  # noqa: A002
    """(lu, p): L (unit diagonal implied) and U packed in one matrix, and the row permutation
    p with input[..., p, :] = L @ U."""
    idx = D.as_dtype(output_idx_type)
    return Lu(*apply("lu", (convert_to_tensor(input),), {"output_idx_type": idx}))


def _unit_lower(lower_upper):
    """L of a packed LU: its strict lower triangle with ones on the diagonal."""
    return set_diag(band_part(lower_upper, -1, 0), A.ones_like(lower_upper[..., 0]))


def _permute_rows(x, perm, opname):
    """x[..., perm, :] per batch entry, x's and perm's batch dims broadcast (known shapes)."""
    if x.shape.rank is None or perm.shape.rank is None or \
            None in x.shape[:-2] or None in perm.shape[:-1]:
        raise NotImplementedError(f"{opname}: needs inputs whose batch dims are known")
    batch = list(np.broadcast_shapes(tuple(x.shape[:-2]), tuple(perm.shape[:-1])))
    x = A.broadcast_to(x, A.concat([batch, A.shape(x)[-2:]], 0))
    perm = A.broadcast_to(perm, A.concat([batch, A.shape(perm)[-1:]], 0))
    return A.gather(x, perm, axis=len(batch), batch_dims=len(batch))


@tf_export("linalg.lu_solve")
def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """X with A @ X = rhs, A given by its `tf.linalg.lu` factors."""
    lower_upper = convert_to_tensor(lower_upper, dtype_hint=D.float32)
    perm = convert_to_tensor(perm, dtype_hint=D.int32)
    rhs = convert_to_tensor(rhs, dtype_hint=lower_upper.dtype)
    permuted = _permute_rows(rhs, perm, "lu_solve")
    return triangular_solve(lower_upper, triangular_solve(_unit_lower(lower_upper), permuted),
                            lower=False)


@tf_export("linalg.lu_reconstruct")
def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """The matrix A whose `tf.linalg.lu` factors are (lower_upper, perm)."""
    lower_upper = convert_to_tensor(lower_upper, dtype_hint=D.float32)
    perm = convert_to_tensor(perm, dtype_hint=D.int32)
    product = matmul(_unit_lower(lower_upper), band_part(lower_upper, 0, -1))
    # Row perm[i] of A is row i of L @ U: gather by the inverse permutation.
    inverse = R.argmax(A.one_hot(perm, A.shape(perm)[-1], dtype=D.int32), axis=-2,
                       output_type=perm.dtype)
    return _permute_rows(product, inverse, "lu_reconstruct")


@tf_export("linalg.lu_matrix_inverse")
def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """The inverse of the matrix A whose `tf.linalg.lu` factors are (lower_upper, perm)."""
    lower_upper = convert_to_tensor(lower_upper, dtype_hint=D.float32)
    shape = A.shape(lower_upper)
    eye = A.eye(shape[-1], batch_shape=shape[:-2], dtype=lower_upper.dtype)
    return lu_solve(lower_upper, perm, eye)


@tf_export("linalg.pinv")
def pinv(a, rcond=None, validate_args=False, name=None):
    """The Moore-Penrose pseudo-inverse through the SVD: singular values at or below
    rcond * max(s) count as zero (rcond defaults to 10 * max(rows, cols) * eps)."""
    a = convert_to_tensor(a)
    if rcond is None:
        rows, cols = (A.shape(a)[-2], A.shape(a)[-1]) if None in a.shape[-2:] \
            else a.shape[-2:]
        rcond = M.multiply(M.cast(M.maximum(rows, cols), a.dtype),
                           float(10 * np.finfo(a.dtype.np).eps))
    rcond = convert_to_tensor(rcond, dtype=a.dtype)
    s, u, v = svd(a, full_matrices=False, compute_uv=True)
    cutoff = M.multiply(rcond, R.reduce_max(s, axis=-1))
    s = M.where(M.greater(s, A.expand_dims(cutoff, -1)), s,
                A.fill(A.shape(s), np.array(np.inf, a.dtype.np)))
    return matmul(M.divide(v, A.expand_dims(s, -2)), u, adjoint_b=True)


@tf_export("linalg.matrix_rank")
def matrix_rank(a, tol=None, validate_args=False, name=None):
    """The number of singular values above `tol` (default eps * max(rows, cols) * max(s))."""
    a = convert_to_tensor(a, dtype_hint=D.float32)
    s = svd(a, compute_uv=False)
    if tol is None:
        size = R.reduce_max(A.shape(a)[-2:])
        tol = M.multiply(M.multiply(M.cast(size, a.dtype), float(np.finfo(a.dtype.np).eps)),
                         R.reduce_max(s, axis=-1, keepdims=True))
    return R.reduce_sum(M.cast(M.greater(s, tol), D.int32), axis=-1)
