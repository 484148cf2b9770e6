"""Gradients flow through control flow that AutoGraph stages (the cond node is recorded by
the tape like tf.cond's)."""
import numpy as np
import pytest

import flowjit as tf


@pytest.mark.parametrize("jit", [False, True])
def test_gradient_through_converted_if(jit):
    @tf.function(jit_compile=jit)
    def f(x):
        with tf.GradientTape() as t:
            t.watch(x)
            if tf.reduce_sum(x) > 0:
                y = x * x
            else:
                y = x * 3.0
        return t.gradient(y, x)

    x = np.array([1.0, 2.0], np.float32)
    np.testing.assert_allclose(f(tf.constant(x)).numpy(), 2 * x)
    np.testing.assert_allclose(f(tf.constant(-x)).numpy(), [3.0, 3.0])


def test_gradient_through_converted_while():
    @tf.function
    def f(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = x
            i = tf.constant(0)
            while i < 3:
                y = y * x
                i += 1
        return t.gradient(y, x)

    x = np.array([1.5, -2.0], np.float32)
    np.testing.assert_allclose(f(tf.constant(x)).numpy(), 4 * x ** 3, rtol=1e-5)
