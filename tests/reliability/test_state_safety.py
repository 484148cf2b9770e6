"""A failing step leaves variables as TF leaves them: eagerly and on the graph executor the
updates before the failing op are kept and later ones not made (program order); under XLA a
step is all-or-nothing. Buffers donated to XLA are never read afterwards."""
from __future__ import annotations

import numpy as np
import pytest

import flowjit as tf
from flowjit.errors import InvalidArgumentError

SIG = [tf.TensorSpec([None], tf.float32)]


def make_step():
    v, w = tf.Variable(1.0), tf.Variable([1.0, 2.0])

    def step(x):
        v.assign_add(1.0)
        w.assign(x)          # fails for a length-3 x
        v.assign_add(10.0)
        return v.read_value()
    return v, w, step


@pytest.mark.parametrize("mode,error,v_after", [
    ("eager", ValueError, 2.0),                 # TF 2.21: ValueError, v == 2.0
    ("graph", InvalidArgumentError, 2.0),       # TF 2.21: InvalidArgumentError (see README)
    ("xla", InvalidArgumentError, 1.0),         # TF 2.21: InvalidArgumentError, v == 1.0
])
def test_failing_assign_in_the_middle_of_a_step(mode, error, v_after):
    v, w, step = make_step()
    if mode != "eager":
        step = tf.function(step, input_signature=SIG, jit_compile=mode == "xla")
    with pytest.raises(error):
        step(tf.constant([1.0, 2.0, 3.0]))
    assert float(v.numpy()) == v_after
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])
    assert float(step(tf.constant([5.0, 6.0]))) == v_after + 11.0   # still usable
    np.testing.assert_array_equal(w.numpy(), [5.0, 6.0])


def test_failing_kernel_stops_the_executor_in_program_order():
    v = tf.Variable(1.0)

    @tf.function
    def step(i):
        v.assign_add(1.0)
        x = tf.gather(tf.constant([1.0, 2.0]), i)
        v.assign_add(10.0)
        return x
    with pytest.raises(InvalidArgumentError):   # TF 2.21: InvalidArgumentError from GatherV2
        step(tf.constant(5))
    assert float(v.numpy()) == 2.0


def test_donated_buffers_are_never_read_after_donation():
    v = tf.Variable(np.arange(4, dtype=np.float32))
    step = tf.function(lambda: v.assign_add(tf.ones([4])), jit_compile=True)
    before = v.read_value()        # shares the buffer XLA would donate
    first = step()
    second = step()
    np.testing.assert_array_equal(before.numpy(), [0, 1, 2, 3])
    np.testing.assert_array_equal(first.numpy(), [1, 2, 3, 4])
    np.testing.assert_array_equal(second.numpy(), [2, 3, 4, 5])
    np.testing.assert_array_equal(v.numpy(), [2, 3, 4, 5])
