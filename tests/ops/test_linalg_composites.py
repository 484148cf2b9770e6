"""tf.linalg's composite matrix helpers (frontend/ops/matrix.py) in every mode against NumPy,
with gradients against central differences; NaN/inf off the diagonal must stay off it."""
from __future__ import annotations

import numpy as np
import pytest

import flowjit as tf
from composite_helpers import check_composite, run_mode, weights, with_gradient
from xla_helpers import MODES
from flowjit.ir.errors import FailedPreconditionError, InvalidArgumentError

RNG = np.random.default_rng(7)
F32, F64 = np.float32, np.float64


def np_diag_part(x, k):
    return np.diagonal(x, offset=k, axis1=-2, axis2=-1)


def np_set_diag(x, d, k):
    out = x.copy()
    rows, cols = x.shape[-2:]
    for i in range(d.shape[-1]):
        r, c = (i, i + k) if k >= 0 else (i - k, i)
        out[..., r, c] = d[..., i]
    return out


SPECIAL = np.array([[[1, np.nan, 2, np.inf], [-0.0, 3, -np.inf, 4], [5, 6, 7, np.nan]]], F32)


@pytest.mark.parametrize("k", [0, 1, 3, -1, -2])
def test_diag_part(k):
    x = RNG.standard_normal((2, 3, 4))
    check_composite(lambda t: tf.linalg.diag_part(t, k=k), [x], np_diag_part(x, k), grad=(0,))
    check_composite(lambda t: tf.linalg.diag_part(t, k=k), [SPECIAL], np_diag_part(SPECIAL, k))


def test_diag_part_errors():
    with pytest.raises(InvalidArgumentError, match="at least 2-dim"):
        tf.linalg.diag_part([1.0, 2.0])
    with pytest.raises(InvalidArgumentError, match="out of bound: 4"):
        tf.linalg.diag_part(np.zeros((3, 4), F32), k=4)
    with pytest.raises(InvalidArgumentError, match="out of bound: -3"):
        tf.linalg.diag_part(np.zeros((3, 4), F32), k=-3)


@pytest.mark.parametrize("k", [0, 2, -1])
def test_diag(k):
    v = RNG.standard_normal((2, 3))
    n = 3 + abs(k)
    want = np.stack([np.diag(row, k) for row in v])
    check_composite(lambda t: tf.linalg.diag(t, k=k), [v], want, grad=(0,))
    assert want.shape == (2, n, n)


@pytest.mark.parametrize("jit", [False, True])
def test_diag_of_a_length_unknown_while_tracing(jit):
    # One trace serves lengths 3 and 1 and batch sizes 2 and 4; NaN stays on the diagonal.
    f = tf.function(lambda d: tf.linalg.diag(d, padding_value=-1.0), jit_compile=jit,
                    input_signature=[tf.TensorSpec([None, None], tf.float32)])
    for v in (np.array([[1, np.nan, 3], [4, 5, 0]], F32), RNG.standard_normal((4, 1)).astype(F32)):
        want = np.stack([np.where(np.eye(v.shape[1], dtype=bool), np.diag(r), -1) for r in v])
        np.testing.assert_array_equal(f(v).numpy(), want)


def test_diag_keeps_nan_on_the_diagonal_and_pads():
    v = np.array([np.nan, np.inf, -0.0], F32)
    want = np.full((4, 3), 7, F32)
    want[[0, 1, 2], [0, 1, 2]] = v
    check_composite(lambda t: tf.linalg.diag(t, num_rows=4, padding_value=7), [v], want)
    got = tf.linalg.diag([1.0, 2.0], k=-1, num_cols=3).numpy()
    np.testing.assert_array_equal(got, [[0, 0, 0], [1, 0, 0], [0, 2, 0]])


@pytest.mark.parametrize("k", [0, 1, -2])
def test_set_diag(k):
    x = RNG.standard_normal((2, 3, 4))
    length = np_diag_part(x, k).shape[-1]
    d = RNG.standard_normal((2, length))
    check_composite(lambda a, b: tf.linalg.set_diag(a, b, k=k), [x, d], np_set_diag(x, d, k),
                    grad=(0, 1))
    s = SPECIAL[0]
    d = np.array([9, 8, 7], F32)[:np_diag_part(s, k).shape[-1]]
    check_composite(lambda a, b: tf.linalg.set_diag(a, b, k=k), [s, d], np_set_diag(s, d, k))


def test_set_diag_wrong_length():
    with pytest.raises(InvalidArgumentError, match="longests diagonal"):
        tf.linalg.set_diag(np.zeros((3, 4), F32), [1.0, 2.0])


def test_trace_and_transposes():
    x = RNG.standard_normal((2, 3, 4))
    check_composite(tf.linalg.trace, [x], np.trace(x, axis1=-2, axis2=-1), grad=(0,))
    check_composite(tf.linalg.matrix_transpose, [x], np.swapaxes(x, -1, -2), grad=(0,))
    c = (x + 1j * RNG.standard_normal(x.shape)).astype(np.complex64)
    check_composite(tf.linalg.adjoint, [c], np.conj(np.swapaxes(c, -1, -2)))
    with pytest.raises(ValueError, match="rank >= 2"):
        tf.linalg.matrix_transpose([1.0])


def test_matvec():
    a, b = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 4))
    check_composite(tf.linalg.matvec, [a, b], np.einsum("bij,bj->bi", a, b), grad=(0, 1))
    b3 = RNG.standard_normal((2, 3))
    check_composite(lambda x, y: tf.linalg.matvec(x, y, transpose_a=True), [a, b3],
                    np.einsum("bji,bj->bi", a, b3), grad=(0, 1))


def test_cross():
    a, b = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))
    check_composite(tf.linalg.cross, [a, b], np.cross(a, b), grad=(0, 1))
    with pytest.raises(FailedPreconditionError, match="3-element"):
        tf.linalg.cross([1.0, 2.0], [3.0, 4.0])
    with pytest.raises(InvalidArgumentError, match="same shape"):
        tf.linalg.cross(np.zeros((2, 3)), np.zeros((1, 3)))


def test_logdet():
    m = RNG.standard_normal((2, 4, 4))
    spd = m @ np.swapaxes(m, -1, -2) + 4 * np.eye(4)
    want = np.linalg.slogdet(spd)[1]
    # TF's Cholesky gradient is symmetric: d logdet / dA = inv(A), not the lower-triangle
    # derivative that finite differences of a lower-triangle reader give.
    grad_want = weights((2,))[:, None, None] * np.linalg.inv(spd)
    for mode in MODES:
        (out,), (grad,) = run_mode(mode, with_gradient(tf.linalg.logdet, (0,)), spd)
        np.testing.assert_allclose(out, want, rtol=1e-9, err_msg=mode)
        np.testing.assert_allclose(grad, grad_want, rtol=1e-8, err_msg=mode)
    # Not positive definite: NaN (as TF's Cholesky).
    assert np.isnan(tf.linalg.logdet(np.array([[1.0, 2.0], [2.0, 1.0]])).numpy())


@pytest.mark.parametrize("axis", [None, -1, 0])
def test_normalize(axis):
    x = RNG.standard_normal((3, 4))
    norm = np.linalg.norm(x) if axis is None else np.linalg.norm(x, axis=axis, keepdims=True)
    norm = np.reshape(norm, (1, 1)) if axis is None else norm
    check_composite(lambda t: tf.linalg.normalize(t, axis=axis), [x], [x / norm, norm],
                    grad=(0,))
    assert tf.linalg.l2_normalize is tf.nn.l2_normalize


def _tridiagonal(upper, main, lower):
    m = np.diag(main)
    m += np.diag(upper[:-1], 1) + np.diag(lower[1:], -1)
    return m


@pytest.mark.parametrize("size", [1, 2, 5])
def test_tridiagonal_matmul(size):
    diags = RNG.standard_normal((3, size))
    diags[0, -1] = np.nan   # ignored entries: never reach the result
    diags[2, 0] = np.inf
    rhs = RNG.standard_normal((size, 2))
    want = _tridiagonal(*diags) @ rhs
    check_composite(tf.linalg.tridiagonal_matmul, [diags, rhs], want, grad=(1,))
    check_composite(lambda u, m, l, r: tf.linalg.tridiagonal_matmul((u, m, l), r,
                                                                    diagonals_format="sequence"),
                    [diags[0], diags[1], diags[2], rhs], want)
    dense = _tridiagonal(*diags)
    check_composite(lambda d, r: tf.linalg.tridiagonal_matmul(d, r, diagonals_format="matrix"),
                    [dense, rhs], want, grad=(0, 1))
    with pytest.raises(ValueError, match="Unrecognized"):
        tf.linalg.tridiagonal_matmul(diags, rhs, diagonals_format="banded")


def _spd(shape):
    m = RNG.standard_normal(shape)
    return m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])


def test_cholesky_solve():
    a = _spd((2, 3, 3))
    b = RNG.standard_normal((2, 3, 2))
    chol = np.linalg.cholesky(a)
    check_composite(tf.linalg.cholesky_solve, [chol, b], np.linalg.solve(a, b), grad=(1,),
                    rtol=1e-9)


@pytest.mark.parametrize("shape,l2", [((5, 3), 0.0), ((5, 3), 0.5), ((2, 4), 0.0)])
def test_lstsq(shape, l2):
    a = RNG.standard_normal((2,) + shape)
    b = RNG.standard_normal((2, shape[0], 2))
    if shape[0] >= shape[1]:
        at = np.swapaxes(a, -1, -2)
        want = np.linalg.solve(at @ a + l2 * np.eye(shape[1]), at @ b)
    else:
        want = np.swapaxes(a, -1, -2) @ np.linalg.solve(a @ np.swapaxes(a, -1, -2), b)
    check_composite(lambda x, y: tf.linalg.lstsq(x, y, l2_regularizer=l2), [a, b], want,
                    grad=(0, 1), rtol=1e-8)
    with pytest.raises(NotImplementedError, match="fast"):
        tf.linalg.lstsq(a, b, fast=False)


@pytest.mark.parametrize("mode", MODES)
def test_singular_edges(mode):
    """TF 2.21: a zero on a triangular diagonal gives inf (no error; NaN under XLA, as TF's
    jit_compile=True); slogdet of a singular matrix is (0, -inf); a permutation's sign is
    -1."""
    tri = np.array([[2.0, 0.0], [1.0, 0.0]], F32)
    got = run_mode(mode, lambda a, b: tf.linalg.triangular_solve(a, b), tri,
                   np.ones((2, 1), F32))
    np.testing.assert_array_equal(got.ravel(), [0.5, np.nan if mode == "xla" else np.inf])
    sign, logdet = run_mode(mode, lambda x: list(tf.linalg.slogdet(x)),
                            np.array([[[0, 1], [1, 0]], [[0, 0], [0, 0]]], F32))
    np.testing.assert_array_equal(sign, [-1, 0])
    np.testing.assert_array_equal(logdet, [0, -np.inf])


def test_triangular_solve_errors():
    with pytest.raises(InvalidArgumentError, match=r"must be square \(3 =/= 2\)"):
        tf.linalg.triangular_solve(np.ones((2, 3), F32), np.ones((2, 1), F32))
    with pytest.raises(InvalidArgumentError, match="In\\[0\\] mismatch In\\[1\\] shape: 2 vs. 3"):
        tf.linalg.triangular_solve(np.eye(2, dtype=F32), np.ones((3, 1), F32))
    with pytest.raises(InvalidArgumentError, match="must be square"):
        tf.linalg.slogdet(np.ones((2, 3), F32))
