"""Gradients through ops whose shape arguments are computed in the graph (`tf.shape(x)[0]`,
...), in the graph executor and under XLA, with static, partly and fully unknown shapes.
Expected gradients are NumPy arrays derived by hand (sum of outputs: ones where an element is
used, times its factor)."""
import numpy as np
import pytest

import flowjit as tf

X = np.arange(12, dtype=np.float32).reshape(4, 3) / 10


def _ones_at(rows, cols, value=1.0):
    g = np.zeros((4, 3), np.float32)
    g[rows, cols] = value
    return g


CASES = {
    "reshape": (lambda x: tf.reshape(x, [tf.shape(x)[0], -1]) * 2.0, np.full((4, 3), 2.0)),
    "slice": (lambda x: tf.slice(x, [0, 0], [tf.shape(x)[0], 2]),
              _ones_at(slice(None), slice(0, 2))),
    "index_half": (lambda x: x[:, :tf.shape(x)[1] // 2], _ones_at(slice(None), slice(0, 1))),
    "index_tail": (lambda x: x[tf.shape(x)[0] - 2:], _ones_at(slice(2, None), slice(None))),
    "pad": (lambda x: tf.pad(x, [[0, tf.shape(x)[1]], [1, 1]]) * 3.0, np.full((4, 3), 3.0)),
    "broadcast_to": (lambda x: tf.broadcast_to(x[0], tf.shape(x)),
                     _ones_at(slice(0, 1), slice(None), 4.0)),
}


@pytest.mark.parametrize("jit", [False, True], ids=["executor", "xla"])
@pytest.mark.parametrize("shape", [[4, 3], [None, 3], [None, None]], ids=str)
@pytest.mark.parametrize("name", CASES)
def test_gradient_through_computed_shapes(name, shape, jit):
    fn, expected = CASES[name]

    @tf.function(input_signature=[tf.TensorSpec(shape)], jit_compile=jit)
    def grad(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(fn(x))
        return tape.gradient(y, x)

    np.testing.assert_allclose(grad(X).numpy(), expected, rtol=1e-6)


def test_constant_values_gradient_with_computed_paddings():
    @tf.function(input_signature=[tf.TensorSpec([None, 3]), tf.TensorSpec([])])
    def grad(x, c):
        with tf.GradientTape() as tape:
            tape.watch(c)
            y = tf.reduce_sum(tf.pad(x, [[0, tf.shape(x)[0]], [1, 0]], constant_values=c))
        return tape.gradient(y, c)

    # padded to [8, 4]: 32 elements, 12 of them x's
    assert float(grad(X, np.float32(0.5))) == 20.0
