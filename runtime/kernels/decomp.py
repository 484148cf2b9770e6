"""NumPy kernels: matrix decompositions (LAPACK through NumPy; LU written out)."""
from __future__ import annotations

import numpy as np

from ...ir.errors import InvalidArgumentError
from . import kernel


def _compute(x):
    """float16 computes in float32, as TF's kernels do."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def _empty(x):
    return np.zeros((0,), x.dtype)


@kernel("qr")
def qr(x, *, full_matrices):
    q, r = np.linalg.qr(_compute(x), mode="complete" if full_matrices else "reduced")
    return q.astype(x.dtype, copy=False), r.astype(x.dtype, copy=False)


def _nonfinite_matrices(a):
    """A mask [..., 1, 1] of the matrices holding a NaN or an infinity."""
    return ~np.isfinite(a).all(axis=(-2, -1), keepdims=True)


@kernel("svd")
def svd(x, *, compute_uv, full_matrices):
    """A matrix holding NaN or inf gets NaN in every output, as TF's; LAPACK is given zeros
    for it instead (its SVD raises on NaN and can loop forever on an infinity)."""
    a = _compute(x)
    bad = _nonfinite_matrices(a)
    a = np.where(bad, 0, a)

    def nan_where_bad(t, rows_bad):
        return np.where(rows_bad, np.nan, t).astype(x.dtype, copy=False)
    if not compute_uv:
        s = np.linalg.svd(a, compute_uv=False)
        return nan_where_bad(s, bad[..., 0]), _empty(x), _empty(x)
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    return (nan_where_bad(s, bad[..., 0]), nan_where_bad(u, bad),
            nan_where_bad(np.swapaxes(vh, -1, -2), bad))


@kernel("self_adjoint_eig")
def self_adjoint_eig(x, *, compute_v):
    a = _compute(x)
    if not compute_v:
        return np.linalg.eigvalsh(a, UPLO="L").astype(x.dtype, copy=False), _empty(x)
    e, v = np.linalg.eigh(a, UPLO="L")
    return e.astype(x.dtype, copy=False), v.astype(x.dtype, copy=False)


@kernel("eig")
def eig(x, *, compute_v):
    a = _compute(x)
    out = np.complex128 if x.dtype == np.float64 else np.complex64
    if not np.isfinite(a).all():   # TF's text (NumPy raises LinAlgError)
        raise InvalidArgumentError(None, "eig", "Eigen decomposition was not successful. "
                                   "The input might not be valid.")
    if not compute_v:
        return np.linalg.eigvals(a).astype(out), np.zeros((0,), out)
    e, v = np.linalg.eig(a)
    return e.astype(out), v.astype(out)


def _lu_batch(a):
    """(packed LU, row permutation) of matrices [b, n, n] by Doolittle elimination with
    partial pivoting, LAPACK getrf's choice of pivot (the first largest |entry|)."""
    a = a.copy()
    b, n, _ = a.shape
    perm = np.tile(np.arange(n), (b, 1))
    rows = np.arange(b)
    for k in range(n):
        p = k + np.argmax(np.abs(a[:, k:, k]), axis=1)
        a[rows, k], a[rows, p] = a[rows, p], a[rows, k].copy()
        perm[rows, k], perm[rows, p] = perm[rows, p], perm[rows, k].copy()
        pivot = a[:, k, k]
        if np.any(pivot == 0):
            raise InvalidArgumentError(None, "lu", "Input is not invertible.")
        a[:, k + 1:, k] /= pivot[:, None]
        a[:, k + 1:, k + 1:] -= a[:, k + 1:, k, None] * a[:, k, None, k + 1:]
    return a, perm


@kernel("lu")
def lu(x, *, output_idx_type):
    a = _compute(x)
    n = a.shape[-1]
    packed, perm = _lu_batch(a.reshape((-1, n, n)))
    return (packed.reshape(a.shape).astype(x.dtype, copy=False),
            perm.reshape(a.shape[:-1]).astype(output_idx_type.np))
