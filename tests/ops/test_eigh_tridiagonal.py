"""tf.linalg.eigh_tridiagonal's eigenvectors (the oracle compares eigenvalues: each
eigenvector's sign is its solver's choice): orthonormal columns with T v = lambda v in every
mode, for all of them and for an index range."""
from __future__ import annotations

import numpy as np
import pytest

import flowjit as tf
from composite_helpers import MODES, run_mode

ALPHA = np.array([1., 2., 3., 4., 0.5])
BETA = np.array([0.5, 0., -1., 2.])
DENSE = np.diag(ALPHA) + np.diag(BETA, 1) + np.diag(BETA, -1)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("select,select_range", [("a", None), ("i", [1, 3])])
def test_eigenvectors(mode, select, select_range):
    values, vectors = run_mode(mode, lambda a, b: tf.linalg.eigh_tridiagonal(
        a, b, eigvals_only=False, select=select, select_range=select_range), ALPHA, BETA)
    want = np.linalg.eigvalsh(DENSE)
    if select == "i":
        want = want[1:4]
    np.testing.assert_allclose(values, want, atol=1e-12)
    np.testing.assert_allclose(DENSE @ vectors, vectors * values, atol=1e-12)
    np.testing.assert_allclose(vectors.T @ vectors, np.eye(len(want)), atol=1e-12)


def test_complex_input_is_refused():
    with pytest.raises(NotImplementedError, match="real"):
        tf.linalg.eigh_tridiagonal(tf.constant([1., 2.], tf.complex64),
                                   tf.constant([1j], tf.complex64))
