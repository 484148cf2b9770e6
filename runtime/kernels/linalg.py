"""NumPy kernels for matmul, tensordot, einsum and top_k.

float16/bfloat16 products accumulate in float32 (as TF's CPU and XLA kernels do) and are
rounded once at the end.
"""
from __future__ import annotations

import numpy as np

from ...ir.dtypes import is_half_np
from ...ir.errors import InvalidArgumentError
from . import kernel



def _compute(*xs):
    return tuple(x.astype(np.float32) if is_half_np(x.dtype) else x for x in xs)


@kernel("matmul")
def matmul(a, b, transpose_a, transpose_b, output_type):
    out = np.dtype(output_type.np) if output_type is not None else a.dtype
    ca, cb = _compute(a, b)
    if ca.dtype != out and out.kind in "iu":  # int8/uint8 -> int32
        ca, cb = ca.astype(out), cb.astype(out)
    if transpose_a:
        ca = np.swapaxes(ca, -1, -2)
    if transpose_b:
        cb = np.swapaxes(cb, -1, -2)
    return np.matmul(ca, cb).astype(out, copy=False)


@kernel("tensordot")
def tensordot(a, b, a_axes, b_axes):
    ca, cb = _compute(a, b)
    return np.asarray(np.tensordot(ca, cb, axes=(list(a_axes), list(b_axes)))
                      ).astype(a.dtype, copy=False)


@kernel("einsum")
def einsum(*xs, equation):
    cs = _compute(*xs)
    return np.asarray(np.einsum(equation, *cs, optimize=len(cs) > 1)
                      ).astype(xs[0].dtype, copy=False)


@kernel("top_k")
def top_k(x, k, sorted, index_type):  # noqa: A002  (the op's attribute name)
    # A stable ascending sort of the reversed row, read backwards, is a descending sort
    # that keeps the lower index first among ties; NaN sorts above everything.
    n = x.shape[-1]
    key = x.astype(np.float32) if is_half_np(x.dtype) else x
    order = np.argsort(key[..., ::-1], axis=-1, kind="stable")[..., ::-1][..., :k]
    idx = n - 1 - order
    values = np.take_along_axis(x, idx, axis=-1)
    return values, idx.astype(index_type.np)


# --- square-matrix solvers: TF's CPU kernels' checks ---------------------------------------
def _solver_input(a, adjoint=False):
    """float16 computes in float32; `adjoint` transposes (real dtypes)."""
    a = a.astype(np.float32) if a.dtype == np.float16 else a
    return np.swapaxes(a, -1, -2) if adjoint else a


def _invertible(fn, opname, message):
    def run(*args):
        try:
            return fn(*args)
        except np.linalg.LinAlgError:
            raise InvalidArgumentError(None, opname, message) from None
    return run


@kernel("matrix_inverse")
def matrix_inverse(x, adjoint):
    out = _invertible(np.linalg.inv, "matrix_inverse", "Input is not invertible.")(_solver_input(x, adjoint))
    return out.astype(x.dtype, copy=False)


@kernel("matrix_determinant")
def matrix_determinant(x):
    return np.asarray(np.linalg.det(_solver_input(x))).astype(x.dtype)


@kernel("matrix_solve")
def matrix_solve(matrix, rhs, adjoint):
    solve = _invertible(np.linalg.solve, "matrix_solve", "Input matrix is not invertible.")
    return solve(_solver_input(matrix, adjoint), _solver_input(rhs)).astype(rhs.dtype,
                                                                            copy=False)


@kernel("cholesky")
def cholesky(x):
    """A matrix that is not positive definite gives NaN in its lower triangle and zeros
    above, as TF 2.21's graph and XLA kernels do (they do not raise; its eager upper triangle
    is whatever the buffer held; fuzzer seed 309035)."""
    a = _solver_input(x)
    flat = a.reshape((-1,) + a.shape[-2:])
    out = np.empty_like(flat)
    for i, m in enumerate(flat):
        try:
            out[i] = np.linalg.cholesky(np.tril(m) + np.tril(m, -1).swapaxes(-1, -2))
        except np.linalg.LinAlgError:
            out[i] = np.tril(np.full(m.shape, np.nan))
    return out.reshape(a.shape).astype(x.dtype, copy=False)


@kernel("matrix_triangular_solve")
def matrix_triangular_solve(matrix, rhs, lower, adjoint):
    """Substitution row by row over broadcast batches; a zero on the diagonal gives inf/NaN
    as TF's kernel (it does not raise)."""
    a = _solver_input(matrix)
    b = _solver_input(rhs)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.tril(a) if lower else np.triu(a)
    a = np.broadcast_to(np.swapaxes(a, -1, -2) if adjoint else a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    forward = lower != adjoint       # solving with a lower-triangular effective matrix
    n = a.shape[-1]
    x = np.zeros(b.shape, np.result_type(a, b))
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in (range(n) if forward else range(n - 1, -1, -1)):
            done = slice(0, i) if forward else slice(i + 1, n)
            acc = b[..., i, :] - np.einsum("...j,...jk->...k", a[..., i, done], x[..., done, :])
            x[..., i, :] = acc / a[..., i, i][..., None]
    return x.astype(rhs.dtype, copy=False)


@kernel("log_matrix_determinant")
def log_matrix_determinant(x):
    sign, logdet = np.linalg.slogdet(_solver_input(x))
    sign = np.where(np.isnan(logdet), np.nan, sign)   # TF's NaN sign (LAPACK keeps 1)
    return np.asarray(sign).astype(x.dtype), np.asarray(logdet).astype(x.dtype)
