"""`t[i]` with a scalar index computed inside a traced function (e.g. a loop counter):
lowered to strided_slice + gather, checked against NumPy indexing in the executor and XLA."""
import numpy as np
import pytest

import flowjit as tf


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("i,j", [(1, -1), (0, 2), (-2, 0)])
def test_graph_scalar_indices_match_numpy(jit, i, j):
    x = np.random.default_rng(0).normal(size=(2, 3, 4)).astype(np.float32)

    @tf.function(jit_compile=jit)
    def f(t, i, j):
        return t[i], t[:, j], t[1, j, ::2], t[..., i], t[i, tf.newaxis, j], t[-1, j]

    outs = f(tf.constant(x), tf.constant(i), tf.constant(j))
    expected = (x[i], x[:, j], x[1, j, ::2], x[..., i], x[i, None, j], x[-1, j])
    for got, exp in zip(outs, expected):
        np.testing.assert_array_equal(got.numpy(), exp)
    assert f.experimental_get_tracing_count() == 1  # the index values are not baked in


@pytest.mark.parametrize("jit", [False, True])
def test_loop_counter_indexes_rows(jit):
    x = np.random.default_rng(1).normal(size=(5, 3)).astype(np.float32)

    @tf.function(jit_compile=jit)
    def f(t):
        total = tf.zeros([3])
        for i in tf.range(4):
            total += t[i] * tf.cast(i, tf.float32)
        return total

    expected = sum(x[i] * i for i in range(4))
    np.testing.assert_allclose(f(tf.constant(x)).numpy(), expected, rtol=1e-6)


def test_unknown_dim_negative_index():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.int32), tf.TensorSpec([], tf.int32)])
    def f(t, i):
        return t[i]

    v = np.arange(7, dtype=np.int32) * 3
    for i in (0, 3, -1, -7):
        assert int(f(tf.constant(v), tf.constant(i))) == v[i]
