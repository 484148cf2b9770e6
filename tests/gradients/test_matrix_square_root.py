"""The matrix square root's gradient with the matrices' size unknown while tracing: the
Sylvester system is built from the run-time size (fuzz seed 341637 raised TypeError from
`eye`). The static-size gradient is checked against TF's recorded values
(tests/oracle/cases_breadth_numeric.py)."""
from __future__ import annotations

import numpy as np

import flowjit as tf


def _gradient(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        ones = tf.stop_gradient(tf.ones_like(x))
        weights = tf.cumsum(ones, axis=-1) * tf.cumsum(ones, axis=-2) ** 2   # non-uniform
        y = tf.reduce_sum(tf.linalg.sqrtm(x) * weights)
    return tape.gradient(y, x)


def test_the_gradient_with_an_unknown_size_equals_the_static_one():
    x = tf.constant([[[4., 1., 0.], [0., 9., 2.], [1., 0., 5.]]] * 2)
    unknown = tf.function(_gradient, input_signature=[tf.TensorSpec([None, None, 3],
                                                                    tf.float32)])
    np.testing.assert_allclose(unknown(x).numpy(), _gradient(x).numpy(), rtol=1e-5)
    anything = tf.function(_gradient, input_signature=[tf.TensorSpec([None, None, None],
                                                                     tf.float32)])
    np.testing.assert_allclose(anything(x[:, :2, :2]).numpy(), _gradient(x[:, :2, :2]).numpy(),
                               rtol=1e-5)
