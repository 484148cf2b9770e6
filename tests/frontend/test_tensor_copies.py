"""A Tensor passed alternately to the graph executor and to XLA converts its value once: the
host copy and the device copy are both kept (a Tensor never changes), whichever came first."""
import numpy as np
import pytest

import flowjit as tf
from flowjit.runtime import xla


@pytest.fixture
def uploads(monkeypatch):
    """The host arrays uploaded to the device, in order."""
    seen = []
    real = xla.to_device

    def counting(value):
        if isinstance(value, (np.ndarray, np.generic)):
            seen.append(np.array(value))
        return real(value)
    monkeypatch.setattr(xla, "to_device", counting)
    return seen


def _pair():
    def f(x):
        return x * 2.0 + 1.0
    return tf.function(f, jit_compile=True), tf.function(f)


def test_a_host_tensor_uploads_once_across_alternating_backends(uploads):
    on_xla, on_executor = _pair()
    x = np.array([0.0, -1.5, np.inf, np.nan], np.float32)
    t = tf.constant(x)
    want = x * 2.0 + 1.0
    for _ in range(3):
        np.testing.assert_array_equal(on_xla(t).numpy(), want)
        np.testing.assert_array_equal(on_executor(t).numpy(), want)
    assert len([u for u in uploads if u.shape == (4,)]) == 1
    np.testing.assert_array_equal(t.numpy(), x)   # the host value is unchanged


def test_an_xla_result_keeps_its_device_buffer_after_a_host_read(uploads):
    on_xla, on_executor = _pair()
    y = on_xla(tf.constant(np.arange(3, dtype=np.float32)))   # a device buffer
    np.testing.assert_array_equal(on_executor(y).numpy(), [3.0, 7.0, 11.0])
    np.testing.assert_array_equal(y.numpy(), [1.0, 3.0, 5.0])  # now read on the host too
    del uploads[:]
    for _ in range(2):
        np.testing.assert_array_equal(on_xla(y).numpy(), [3.0, 7.0, 11.0])
        np.testing.assert_array_equal(on_executor(y).numpy(), [3.0, 7.0, 11.0])
    assert not [u for u in uploads if u.shape == (3,)]


def test_each_tensor_keeps_its_own_copies(uploads):
    on_xla, _ = _pair()
    a, b = tf.constant([1.0, 2.0]), tf.constant([5.0, -3.0])
    np.testing.assert_array_equal(on_xla(a).numpy(), [3.0, 5.0])
    np.testing.assert_array_equal(on_xla(b).numpy(), [11.0, -5.0])
    np.testing.assert_array_equal(on_xla(a).numpy(), [3.0, 5.0])
    assert len([u for u in uploads if u.shape == (2,)]) == 2
