"""tf.linalg.LinearOperatorZeros (the recorded operator cases solve and invert, which a zero
matrix cannot): TF 2.21's shapes, flags, determinants and constructor errors, in every
mode."""
from __future__ import annotations

import numpy as np
import pytest

import flowjit as tf
from composite_helpers import MODES, run_mode


@pytest.mark.parametrize("mode", MODES)
def test_rectangular_batch(mode):
    def fn(x):
        z = tf.linalg.LinearOperatorZeros(2, 3, batch_shape=[2], is_square=False,
                                          is_self_adjoint=False, dtype=tf.float64)
        return z.to_dense(), z.matmul(x), z.matmul(x[..., :2, :], adjoint=True), z.matvec(x[:, 0])
    dense, product, adjoint_product, vector = run_mode(mode, fn, np.ones((3, 4)))
    assert dense.shape == (2, 2, 3) and not dense.any()
    assert product.shape == (2, 2, 4) and adjoint_product.shape == (2, 3, 4)
    assert vector.shape == (2, 2) and not product.any()


@pytest.mark.parametrize("mode", MODES)
def test_square_determinants(mode):
    def fn():
        z = tf.linalg.LinearOperatorZeros(3, batch_shape=[2])
        return z.determinant(), z.log_abs_determinant(), z.trace(), z.diag_part()
    det, log_det, trace, diagonal = run_mode(mode, fn)
    np.testing.assert_array_equal(det, [0., 0.])
    np.testing.assert_array_equal(log_det, [-np.inf, -np.inf])
    np.testing.assert_array_equal(trace, [0., 0.])
    assert diagonal.shape == (2, 3)


def test_flags_and_errors():
    z = tf.linalg.LinearOperatorZeros(3)
    assert z.shape == [3, 3] and z.dtype == tf.float32
    assert (z.is_square, z.is_self_adjoint, z.is_non_singular) == (True, True, False)
    with pytest.raises(ValueError, match=r"is_square=True, but got num_rows\(2\) != "
                                         r"num_columns\(3\)"):
        tf.linalg.LinearOperatorZeros(2, 3)
    with pytest.raises(ValueError, match="A self-adjoint matrix is always square."):
        tf.linalg.LinearOperatorZeros(2, 3, is_square=False)
    with pytest.raises(NotImplementedError, match="expected to be singular"):
        z.solve(tf.ones([3, 1]))
