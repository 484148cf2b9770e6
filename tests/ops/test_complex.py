"""complex64/complex128 against TF 2.21's recorded results, eagerly, in the graph executor and
under XLA (tests/op_samples.py checks the executor and XLA against eager on random inputs)."""
from __future__ import annotations

import numpy as np
import pytest

import flowjit as tf

MODES = ["eager", "graph", "xla"]


def _run(fn, mode, *args):
    f = fn if mode == "eager" else tf.function(fn, jit_compile=mode == "xla")
    return f(*[tf.constant(a) for a in args])


def test_dtypes_and_printing():
    # TF 2.21: Python complex is complex128; repr/str as TF prints them
    assert tf.constant(1 + 2j).dtype is tf.complex128
    assert repr(tf.constant(1 + 2j)) == "<tf.Tensor: shape=(), dtype=complex128, numpy=(1+2j)>"
    assert repr(tf.constant([1 + 2j, 3])) == \
        "<tf.Tensor: shape=(2,), dtype=complex128, numpy=array([1.+2.j, 3.+0.j])>"
    assert str(tf.constant([1 + 2j, 3], tf.complex64)) == \
        "tf.Tensor([1.+2.j 3.+0.j], shape=(2,), dtype=complex64)"
    assert tf.complex64.is_complex and tf.complex64.real_dtype is tf.float32
    assert tf.as_dtype(np.complex64) is tf.complex64 and tf.complex128.size == 16


@pytest.mark.parametrize("mode", MODES)
def test_ops_match_tf(mode):
    z = np.complex64([3 + 4j, 1 - 2j])
    # TF 2.21 results
    re, im, cj, mag = _run(lambda z: (tf.math.real(z), tf.math.imag(z), tf.math.conj(z),
                                      tf.abs(z)), mode, z)
    assert re.dtype is tf.float32 and re.numpy().tolist() == [3.0, 1.0]
    assert im.numpy().tolist() == [4.0, -2.0]
    assert cj.dtype is tf.complex64 and cj.numpy().tolist() == [3 - 4j, 1 + 2j]
    assert mag.dtype is tf.float32 and mag.numpy()[0] == 5.0
    c = _run(lambda x, y: tf.complex(x, y), mode, np.float64([1.0]), np.float64([2.0]))
    assert c.dtype is tf.complex128 and c.numpy().tolist() == [1 + 2j]
    m = _run(lambda a, b: tf.matmul(a, b), mode, np.complex128([[1 + 1j]]),
             np.complex128([[2 - 1j]]))
    assert m.numpy().tolist() == [[3 + 1j]]
    q = _run(lambda x, y: (x / y, tf.sqrt(x * 0 - 4), x == y), mode,
             np.complex128([1 + 1j]), np.complex128([1 - 1j]))
    assert q[0].numpy().tolist() == [1j] and q[1].numpy().tolist() == [2j]
    assert q[2].numpy().tolist() == [False]
    e = _run(lambda x: tf.exp(x), mode, np.complex64([1j * np.pi]))
    np.testing.assert_allclose(e.numpy(), [-1 - 8.742278e-08j], atol=1e-6)


def test_bad_input_raises_tf_errors():
    # TF 2.21: these classes and texts
    with pytest.raises(TypeError, match="The `real` and `imag` components have incorrect "
                                        "types: float32 float64"):
        tf.complex(tf.constant([1.0]), tf.constant([2.0], tf.float64))
    with pytest.raises(TypeError, match="incorrect types: int32 int32"):
        tf.complex(tf.constant([1]), tf.constant([2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="complex128"):
        tf.constant([1 + 1j]) < tf.constant([1 + 1j])


def test_real_inputs_pass_through_as_tf():
    # TF 2.21: real(x) and conj(x) return x, imag(x) zeros, for a real x
    x = tf.constant([1.5])
    assert tf.math.real(x).numpy().tolist() == [1.5]
    assert tf.math.imag(x).numpy().tolist() == [0.0]
    assert tf.math.conj(tf.constant([1])).numpy().tolist() == [1]
    assert tf.cast(tf.constant([1.5 + 2j]), tf.float32).numpy().tolist() == [1.5]


def test_gradients_through_complex_are_refused():
    # TF 2.21 differentiates complex tensors (d|x*x|/dx at 1+2j is 2+4j); flowjit refuses
    # explicitly rather than returning None (README, "Differences from TF").
    x = tf.Variable(tf.constant([1 + 2j], tf.complex64))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.abs(x * x))
    with pytest.raises(tf.errors.UnimplementedError, match="complex"):
        tape.gradient(y, x)
    r = tf.Variable([1.0])
    with tf.GradientTape() as tape:
        y = tf.abs(tf.complex(r, r))
    with pytest.raises(tf.errors.UnimplementedError, match="complex"):
        tape.gradient(y, r)
