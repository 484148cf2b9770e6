"""Op declarations: matrix decompositions (QR, SVD, symmetric and general eigen, LU).

Each acts on the innermost two dims of its input, the leading dims being a batch. The
real floating dtypes are supported (float16 computes in float32, as TF's kernels do).
Results that an attribute switches off (`compute_uv`, `compute_v`) are empty [0] tensors,
as in TF, so every op keeps a fixed number of outputs.
"""
from __future__ import annotations

from .. import dtypes as D
from ..infer import TT, check_dtype
from ..registry import InferenceError, op
from ..shapes import format_shape

DECOMP_DTYPES = (D.float16, D.float32, D.float64)
EIG_RESULT = {D.float16: D.complex64, D.float32: D.complex64, D.float64: D.complex128}
LU_INDEX = (D.int32, D.int64)


def _matrix(t: TT, square: bool = False):
    """(batch, rows, cols) of a matrix input; None where the shape is unknown."""
    check_dtype(t, DECOMP_DTYPES)
    if t.shape is None:
        return None
    if len(t.shape) < 2:
        raise InferenceError(f"Input tensor 0 must have rank >= 2, got {len(t.shape)}")
    m, n = t.shape[-2:]
    if square and m is not None and n is not None and m != n:
        raise InferenceError(f"Input matrix must be square. (got shape "
                             f"{format_shape(t.shape)})")
    return t.shape[:-2], m, n


def _least(m, n):
    return None if m is None or n is None else min(m, n)


@op("qr", ("input",), attrs=(("full_matrices", "bool", False),))
def _qr(types, attrs):
    """q [..., m, k] with orthonormal columns and upper-triangular r [..., k, n] with
    q @ r = input; k = m with `full_matrices`, else min(m, n)."""
    t = types[0]
    dims = _matrix(t)
    if dims is None:
        return TT(t.dtype, None), TT(t.dtype, None)
    batch, m, n = dims
    k = m if attrs["full_matrices"] else _least(m, n)
    return TT(t.dtype, batch + (m, k)), TT(t.dtype, batch + (k, n))


@op("svd", ("input",), attrs=(("compute_uv", "bool", True), ("full_matrices", "bool", False)))
def _svd(types, attrs):
    """(s, u, v) with input = u @ diag(s) @ v^T, s descending and non-negative; u [..., m, m]
    and v [..., n, n] with `full_matrices`, else [..., m, k] and [..., n, k]."""
    t = types[0]
    dims = _matrix(t)
    if dims is None:
        return TT(t.dtype, None), TT(t.dtype, None), TT(t.dtype, None)
    batch, m, n = dims
    k = _least(m, n)
    if not attrs["compute_uv"]:
        return TT(t.dtype, batch + (k,)), TT(t.dtype, (0,)), TT(t.dtype, (0,))
    ku, kv = (m, n) if attrs["full_matrices"] else (k, k)
    return TT(t.dtype, batch + (k,)), TT(t.dtype, batch + (m, ku)), TT(t.dtype, batch + (n, kv))


@op("self_adjoint_eig", ("input",), attrs=(("compute_v", "bool", True),))
def _self_adjoint_eig(types, attrs):
    """(e, v): the ascending eigenvalues of each symmetric matrix (only its lower triangle is
    read) and the eigenvectors as v's columns."""
    t = types[0]
    dims = _matrix(t, square=True)
    if dims is None:
        return TT(t.dtype, None), TT(t.dtype, None)
    batch, m, n = dims
    n = m if n is None else n
    v = batch + (n, n) if attrs["compute_v"] else (0,)
    return TT(t.dtype, batch + (n,)), TT(t.dtype, v)


@op("eig", ("input",), attrs=(("compute_v", "bool", True),), differentiable=False)
def _eig(types, attrs):
    """(e, v) of a general square matrix, complex: eigenvalues and unit-norm eigenvectors as
    v's columns (LAPACK's order)."""
    t = types[0]
    dims = _matrix(t, square=True)
    out = EIG_RESULT[t.dtype]
    if dims is None:
        return TT(out, None), TT(out, None)
    batch, m, n = dims
    n = m if n is None else n
    v = batch + (n, n) if attrs["compute_v"] else (0,)
    return TT(out, batch + (n,)), TT(out, v)


@op("lu", ("input",), attrs=(("output_idx_type", "dtype", D.int32),), differentiable=False)
def _lu(types, attrs):
    """(lu, p): partial-pivoting LU of each square matrix; lu holds L's strict lower part (its
    unit diagonal implied) and U, and input[..., p, :] = L @ U."""
    t = types[0]
    idx = attrs["output_idx_type"]
    if idx not in LU_INDEX:
        raise InferenceError(f"output_idx_type {idx.name} is not supported; allowed: int32, "
                             f"int64")
    dims = _matrix(t, square=True)
    if dims is None:
        return TT(t.dtype, None), TT(idx, None)
    batch, m, n = dims
    n = m if n is None else n
    return TT(t.dtype, batch + (n, n)), TT(idx, batch + (n,))
