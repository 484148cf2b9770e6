"""tf.linalg's LinearOperators against TF's recorded answers
(tests/oracle/linear_operator_cases.py, tests/data/tf_linear_operators.json): dense form,
products and solves with and without adjoints, determinants, inverse and adjoint operators,
eagerly and inside tf.function (executor and XLA)."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import flowjit as tf
from oracle.linear_operator_cases import ask, build

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "data", "tf_linear_operators.json")) as f:
    RECORDED = json.load(f)["cases"]


def _answers(name, mode):
    def run():
        return ask(tf, build(tf)[name])
    if mode != "eager":
        run = tf.function(run, jit_compile=mode == "xla", autograph=False)
    return {k: v.numpy() for k, v in run().items()}


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
@pytest.mark.parametrize("name", sorted(RECORDED))
def test_operator_matches_tf(name, mode):
    want = RECORDED[name]
    assert build(tf)[name].shape.as_list() == want["shape"]
    for key, got in _answers(name, mode).items():
        np.testing.assert_allclose(got, np.array(want[key]), rtol=1e-10, atol=1e-12,
                                   err_msg=f"{name}.{key}")


def test_operator_algebra_and_properties():
    L = tf.linalg
    d = L.LinearOperatorDiag([1.0, 2.0])
    both = d @ L.LinearOperatorIdentity(2)
    assert isinstance(both, L.LinearOperatorComposition)
    np.testing.assert_allclose(both.to_dense().numpy(), np.diag([1.0, 2.0]))
    assert d.is_square and d.domain_dimension == 2 and d.batch_shape.as_list() == []
    assert L.LinearOperatorFullMatrix(np.ones((2, 3))).is_square is False
    assert d.inverse().adjoint().shape.as_list() == [2, 2]
    with pytest.raises(ValueError, match="at least 1 dimension"):
        L.LinearOperatorDiag(1.0)
    with pytest.raises(ValueError, match="non-empty list"):
        L.LinearOperatorComposition([])


def test_circulant_of_a_complex_hermitian_spectrum():
    """A complex spectrum with conjugate pairs gives a real operator: the real circulant of
    ifft(spectrum) (NumPy's FFT as the reference); its inverse and adjoint stay circulant."""
    spectrum = np.array([4.0, 1 + 2j, -0.5 + 1j, -0.5 - 1j, 1 - 2j])
    kernel = np.fft.ifft(spectrum).real
    want = np.array([[kernel[(r - c) % 5] for c in range(5)] for r in range(5)])
    op = tf.linalg.LinearOperatorCirculant(tf.constant(spectrum, tf.complex128),
                                           input_output_dtype=tf.float64)
    assert op.dtype == tf.float64 and op.block_shape == (5,) and op.is_square
    np.testing.assert_allclose(op.to_dense().numpy(), want, atol=1e-12)
    np.testing.assert_allclose(op.determinant().numpy(), np.linalg.det(want), rtol=1e-10)
    np.testing.assert_allclose(op.inverse().to_dense().numpy(), np.linalg.inv(want),
                               atol=1e-12)
    np.testing.assert_allclose(op.adjoint().to_dense().numpy(), want.T, atol=1e-12)
    x = np.arange(10.0).reshape(5, 2)
    np.testing.assert_allclose(op.matmul(x).numpy(), want @ x, atol=1e-12)


def test_circulant_refusals():
    L = tf.linalg
    with pytest.raises(ValueError, match="at least 1 dimensions"):
        L.LinearOperatorCirculant(tf.constant(1.0))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        L.LinearOperatorCirculant2D(tf.constant([1.0]))
    with pytest.raises(ValueError, match="at least 3 dimensions"):
        L.LinearOperatorCirculant3D(tf.constant([[1.0]]))
    assert L.LinearOperatorCirculant([4.0, 1.0, 1.0]).dtype == tf.complex64
