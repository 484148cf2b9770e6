"""Gradients of the matrix decompositions, TF's formulas (tensorflow/python/ops/linalg_grad.py:
QR after arXiv:2009.10071, SVD and the symmetric eigendecomposition for distinct values)."""
from __future__ import annotations

from ..ops import array as A
from ..ops import decomp as DC
from ..ops import math as M
from ..ops.linalg import band_part, matmul, triangular_solve
from ..ops.matrix import adjoint, diag, diag_part, set_diag
from ._util import attr, gradient, unsupported


def _or_zeros(g, like):
    return A.zeros_like(like) if g is None else g


def _safe_reciprocal(x, epsilon=1e-20):
    """1/x that stays finite near 0 (TF's _SafeReciprocal)."""
    return M.multiply(x, M.reciprocal(M.add(M.multiply(x, x), epsilon)))


def _pairwise_reciprocal(e):
    """1 / (e[j] - e[i]) at [i, j], 0 on the diagonal."""
    gaps = M.subtract(A.expand_dims(e, -2), A.expand_dims(e, -1))
    return set_diag(_safe_reciprocal(gaps), A.zeros_like(e))


def _solve_right_upper(x, r):
    """x @ inv(r)^T for upper-triangular r."""
    return adjoint(triangular_solve(r, adjoint(x), lower=False))


def _qr_grad_deep(q, r, dq, dr):
    """rows >= cols, reduced q."""
    qdq = matmul(q, dq, adjoint_a=True)
    rdr = matmul(r, dr, adjoint_b=True)
    tril = band_part(M.add(M.subtract(qdq, adjoint(qdq)), M.subtract(rdr, adjoint(rdr))), -1, 0)
    grad_a = matmul(q, M.add(dr, _solve_right_upper(tril, r)))
    grad_b = _solve_right_upper(M.subtract(dq, matmul(q, qdq)), r)
    return M.add(grad_a, grad_b)


@gradient("qr")
def _qr_grad(op, dq, dr):
    q, r = op.outputs
    rows, cols = q.shape[-2], r.shape[-1]
    if rows is None or cols is None or r.shape[-2] is None:
        raise unsupported("qr", "the matrix dims must be known")
    if r.shape[-2] > cols and q.shape[-1] == rows:
        raise NotImplementedError(f"QrGrad not implemented when nrows > ncols and "
                                  f"full_matrices is true. Received r.shape={r.shape} with "
                                  f"nrows={r.shape[-2]}and ncols={cols}.")
    dq, dr = _or_zeros(dq, q), _or_zeros(dr, r)
    if rows >= cols:
        return [_qr_grad_deep(q, r, dq, dr)]
    # a = [x, y], r = [u, v]: the square case on x, y's gradient directly.
    y = op.inputs[0][..., :, rows:]
    u, du, dv = r[..., :, :rows], dr[..., :, :rows], dr[..., :, rows:]
    dx = _qr_grad_deep(q, u, M.add(dq, matmul(y, dv, adjoint_b=True)), du)
    return [A.concat([dx, matmul(q, dv)], axis=-1)]


def _symmetric_lower(grad_a):
    """The forward op reads the lower triangle only: fold the gradient onto it."""
    grad_a = band_part(M.add(grad_a, adjoint(grad_a)), -1, 0)
    return set_diag(grad_a, M.multiply(diag_part(grad_a), 0.5))


@gradient("self_adjoint_eig")
def _self_adjoint_eig_grad(op, grad_e, grad_v):
    e = op.outputs[0]
    grad_e = _or_zeros(grad_e, e)
    if attr(op, "compute_v"):
        v = op.outputs[1]
        inner = diag(grad_e)
        if grad_v is not None:
            inner = M.add(inner, M.multiply(_pairwise_reciprocal(e),
                                            matmul(v, grad_v, adjoint_a=True)))
    else:
        _, v = DC.eigh(op.inputs[0])
        inner = diag(grad_e)
    return [_symmetric_lower(matmul(v, matmul(inner, v, adjoint_b=True)))]


@gradient("svd")
def _svd_grad(op, grad_s, grad_u, grad_v):
    a = op.inputs[0]
    s = op.outputs[0]
    grad_s_mat = diag(_or_zeros(grad_s, s))
    if not attr(op, "compute_uv"):
        _, u, v = DC.svd(a, compute_uv=True)
        return [matmul(u, matmul(grad_s_mat, v, adjoint_b=True))]
    m, n = a.shape[-2], a.shape[-1]
    if m is None or n is None:
        raise NotImplementedError("SVD gradient has not been implemented for input with "
                                  "unknown inner matrix shape.")
    u, v = op.outputs[1], op.outputs[2]
    grad_u, grad_v = _or_zeros(grad_u, u), _or_zeros(grad_v, v)
    transposed = m > n
    if transposed:
        m, n, u, v, grad_u, grad_v = n, m, v, u, grad_v, grad_u
    full = attr(op, "full_matrices")
    if full and abs(m - n) > 1:
        raise NotImplementedError(f"svd gradient is not implemented for abs(m - n) > 1 when "
                                  f"full_matrices is True. Received: m={m} and n={n} from "
                                  f"op input={a} with shape={a.shape}.")
    s_mat = diag(s)
    f = _pairwise_reciprocal(M.square(s))
    v1, grad_v1 = v[..., :, :m], grad_v[..., :, :m]
    f_u = M.multiply(f, matmul(u, grad_u, adjoint_a=True))
    f_v = M.multiply(f, matmul(v1, grad_v1, adjoint_a=True))
    middle = M.add(M.add(grad_s_mat, matmul(M.add(f_u, adjoint(f_u)), s_mat)),
                   matmul(s_mat, M.add(f_v, adjoint(f_v))))
    grad_a = matmul(u, matmul(middle, v1, adjoint_b=True))
    if m != n:
        gv1t = adjoint(grad_v1)
        rest = M.subtract(gv1t, matmul(matmul(gv1t, v1), v1, adjoint_b=True))
        if full:
            v2, grad_v2 = v[..., :, m:n], grad_v[..., :, m:n]
            rest = M.subtract(rest, matmul(matmul(v1, grad_v2, adjoint_a=True), v2,
                                           adjoint_b=True))
        u_s_inv = matmul(u, diag(_safe_reciprocal(s)))
        grad_a = M.add(grad_a, matmul(u_s_inv, rest))
    return [adjoint(grad_a) if transposed else grad_a]
