"""Staged `for` loops whose trip count is known while tracing (a Python int bound, a range of
constants, a static shape) differentiate under XLA without `maximum_iterations`, as in TF;
gradients against central finite differences in float64 NumPy."""
import numpy as np
import pytest

import flowjit as tf

W0 = np.array([0.5, -0.3, 0.8], np.float32)
X = np.array([1.0, 2.0, -1.5], np.float32)
T = 4


def _loss_np(w, x, trips):
    h = x.astype(np.float64)
    for _ in range(trips):
        h = np.tanh(h * w + 0.1)
    return h.sum()


def _grad_np(w, x, trips, eps=1e-6):
    w = w.astype(np.float64)
    g = np.zeros_like(w)
    for i in range(len(w)):
        d = np.zeros_like(w)
        d[i] = eps
        g[i] = (_loss_np(w + d, x, trips) - _loss_np(w - d, x, trips)) / (2 * eps)
    return g


# How the loop's trip count is written: all known while tracing, none a maximum_iterations.
LOOPS = {
    "python_int": lambda x: tf.range(T),
    "range_of_constants": lambda x: tf.range(tf.constant(1), tf.constant(T + 1)),
    "static_shape": lambda x: tf.range(tf.shape(x)[0] + 1),
}


@pytest.mark.parametrize("how", LOOPS)
def test_static_trip_count_differentiates_under_xla(how):
    w = tf.Variable(W0)
    bounds = LOOPS[how]

    @tf.function(jit_compile=True)
    def f(x):
        with tf.GradientTape() as tape:
            h = x
            for _ in bounds(x):
                h = tf.tanh(h * w + 0.1)
            loss = tf.reduce_sum(h)
        return loss, tape.gradient(loss, w)

    loss, grad = f(tf.constant(X))
    np.testing.assert_allclose(loss.numpy(), _loss_np(W0, X, T), rtol=1e-5)
    np.testing.assert_allclose(grad.numpy(), _grad_np(W0, X, T), rtol=1e-4, atol=1e-5)


def test_loop_over_a_static_first_dim_differentiates_under_xla():
    rows = np.array([[0.2, 0.1, -0.4], [0.3, -0.2, 0.5]], np.float32)
    w = tf.Variable(W0)

    @tf.function(jit_compile=True)
    def f(rows):
        with tf.GradientTape() as tape:
            h = tf.constant(X)
            for r in rows:
                h = tf.tanh(h * w + r)
            loss = tf.reduce_sum(h)
        return tape.gradient(loss, w)

    def loss_np(wv):
        h = X.astype(np.float64)
        for r in rows:
            h = np.tanh(h * wv + r)
        return h.sum()

    eps = 1e-6
    expected = [(loss_np(W0 + eps * e) - loss_np(W0 - eps * e)) / (2 * eps)
                for e in np.eye(3)]
    np.testing.assert_allclose(f(tf.constant(rows)).numpy(), expected, rtol=1e-4, atol=1e-5)


def test_unbounded_loop_still_asks_for_maximum_iterations_under_xla():
    w = tf.Variable(W0)

    @tf.function(jit_compile=True)
    def f(x):
        with tf.GradientTape() as tape:
            h = x
            while tf.reduce_sum(h) < 10.0:  # a data-dependent trip count
                h = h * w + 1.0
            loss = tf.reduce_sum(h)
        return tape.gradient(loss, w)

    with pytest.raises(ValueError, match="maximum_iterations"):
        f(tf.constant(X))
