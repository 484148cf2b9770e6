"""linalg.inv/det/solve/cholesky and band_part against NumPy in every mode, with TF 2.21's
error texts and its results at the edges (singular and non-positive-definite inputs)."""
from __future__ import annotations

import re

import numpy as np
import pytest

import flowjit as tf
from flowjit.errors import InvalidArgumentError
from xla_helpers import MODES, run_mode

RNG = np.random.default_rng(13)
A = RNG.normal(size=(2, 4, 4)) + 2 * np.eye(4)
B = RNG.normal(size=(2, 4, 3))
S = A @ np.swapaxes(A, -1, -2) + np.eye(4)
T = np.swapaxes(A, -1, -2)


@pytest.mark.parametrize("mode", MODES)
def test_solvers_f64(mode):
    got = run_mode(mode, lambda a, b, s: (tf.linalg.inv(a), tf.linalg.det(a),
                                          tf.linalg.solve(a, b),
                                          tf.linalg.solve(a, b, adjoint=True),
                                          tf.linalg.cholesky(s), tf.linalg.inv(a, adjoint=True)),
                   A, B, S)
    want = (np.linalg.inv(A), np.linalg.det(A), np.linalg.solve(A, B), np.linalg.solve(T, B),
            np.linalg.cholesky(S), np.linalg.inv(T))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", MODES)
def test_solvers_f32_and_f16(mode):
    a32 = A[0].astype(np.float32)
    got = run_mode(mode, lambda a, h: (tf.linalg.inv(a), tf.linalg.det(a), tf.linalg.inv(h)),
                   a32, a32.astype(np.float16))
    np.testing.assert_allclose(got[0], np.linalg.inv(A[0]), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[1], np.linalg.det(A[0]), rtol=1e-5)
    assert got[2].dtype == np.float16
    np.testing.assert_allclose(got[2], np.linalg.inv(a32.astype(np.float16).astype(np.float64)),
                               rtol=1e-2, atol=1e-2)


def test_cholesky_reads_the_lower_triangle_and_gives_nan_when_not_positive_definite():
    # TF 2.21: cholesky([[4, 100], [2, 5]]) = [[2, 0], [1, 2]]; [[1, 2], [2, 1]] -> NaN.
    np.testing.assert_array_equal(
        tf.linalg.cholesky(tf.constant([[4.0, 100.0], [2.0, 5.0]])).numpy(), [[2, 0], [1, 2]])
    assert np.isnan(tf.linalg.cholesky(tf.constant([[1.0, 2.0], [2.0, 1.0]])).numpy()).any()


@pytest.mark.parametrize("jit", [None, False, True])
def test_cholesky_of_a_matrix_not_positive_definite_is_nan_below_and_zero_above(jit):
    # TF 2.21 (tf.function and jit_compile; fuzzer seed 309035): [[nan, 0, 0], [nan, nan, 0],
    # [nan, nan, nan]] for this matrix; its eager upper triangle is uninitialized memory.
    x = np.array([[-2.378, -1.925, 0.679], [-1.198, 4.049, -0.412], [-1.613, 1.849, 1.960]])
    f = tf.linalg.cholesky if jit is None else tf.function(tf.linalg.cholesky, jit_compile=jit)
    got = f(tf.constant(x)).numpy()
    below = np.tril(np.ones((3, 3), bool))
    assert np.isnan(got[below]).all() and (got[~below] == 0).all()


SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]], np.float32)


@pytest.mark.parametrize("call, text", [
    # TF 2.21's texts.
    (lambda: tf.linalg.inv(SINGULAR), "Input is not invertible."),
    (lambda: tf.linalg.solve(SINGULAR, np.ones((2, 1), np.float32)),
     "Input matrix is not invertible."),
    (lambda: tf.linalg.inv(np.ones((2, 3), np.float32)), "Input matrix must be square"),
    (lambda: tf.linalg.det(np.ones((3,), np.float32)), "must have rank >= 2, got 1"),
    (lambda: tf.linalg.cholesky(np.ones((2, 3), np.float32)), "Input matrix must be square"),
    (lambda: tf.linalg.solve(np.eye(2, dtype=np.float32), np.ones((3, 1), np.float32)),
     "Input matrix and rhs are incompatible"),
    (lambda: tf.linalg.solve(np.eye(2, dtype=np.float32)[None].repeat(3, 0),
                             np.ones((2, 1), np.float32)),
     "All input tensors must have the same rank"),
    (lambda: tf.linalg.solve(np.eye(2, dtype=np.float32)[None].repeat(3, 0),
                             np.ones((1, 2, 1), np.float32)),
     "All input tensors must have the same outer dimensions"),
    (lambda: tf.linalg.inv(np.eye(2, dtype=np.int32)), "int32"),
])
def test_errors(call, text):
    with pytest.raises(InvalidArgumentError, match=re.escape(text)):
        call()


def test_singular_determinant_is_zero():
    assert tf.linalg.det(SINGULAR).numpy() == 0.0   # TF 2.21: -0.0


@pytest.mark.parametrize("mode", MODES)
def test_band_part(mode):
    x = RNG.normal(size=(2, 4, 5)).astype(np.float32)
    got = run_mode(mode, lambda t: [tf.linalg.band_part(t, lo, hi)
                                    for lo, hi in ((1, -1), (0, 2), (-1, 0), (0, 0))], x)
    i, j = np.arange(4)[:, None], np.arange(5)[None, :]
    for g, (lo, hi) in zip(got, ((1, -1), (0, 2), (-1, 0), (0, 0))):
        keep = ((lo < 0) | (i - j <= lo)) & ((hi < 0) | (j - i <= hi))
        np.testing.assert_array_equal(g, np.where(keep, x, 0))


def test_band_part_errors():
    # TF 2.21's texts.
    with pytest.raises(InvalidArgumentError, match=re.escape(
            "num_lower must be negative or less or equal to number of rows (3) got: 5")):
        tf.linalg.band_part(tf.zeros([3, 4]), 5, 0)
    with pytest.raises(InvalidArgumentError, match=re.escape(
            "input must be at least 2-dim, received shape: [3]")):
        tf.linalg.band_part(tf.zeros([3]), 0, 0)
