"""`tf.config.experimental.set_synchronous_execution(True)`: every XLA call waits for its
results before returning (by default they are computed asynchronously)."""
import numpy as np
import pytest

import flowjit as tf
from flowjit.runtime import xla


@pytest.fixture
def synchronous():
    tf.config.experimental.set_synchronous_execution(True)
    yield
    tf.config.experimental.set_synchronous_execution(False)


def test_default_is_asynchronous():
    assert tf.config.experimental.get_synchronous_execution() is False


def test_every_xla_call_waits_for_its_results(synchronous, monkeypatch):
    waited = []
    real_wait = xla.wait
    monkeypatch.setattr(xla, "wait", lambda bufs: waited.append(len(bufs)) or real_wait(bufs))
    assert tf.config.experimental.get_synchronous_execution() is True
    f = tf.function(lambda x: (x * 2., x - 1.), jit_compile=True)
    a, b = f(tf.constant([1., -3.]))
    np.testing.assert_array_equal(a.numpy(), [2., -6.])
    np.testing.assert_array_equal(b.numpy(), [0., -4.])
    assert waited == [2]
    f(tf.constant([0.]))
    assert waited == [2, 2]


def test_asynchronous_calls_do_not_wait(monkeypatch):
    waited = []
    monkeypatch.setattr(xla, "wait", waited.append)
    f = tf.function(lambda x: x + 1., jit_compile=True)
    assert f(tf.constant(1.)).numpy() == 2.
    assert waited == []
