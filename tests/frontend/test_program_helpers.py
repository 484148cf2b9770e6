"""tf.executing_eagerly, is_tensor, get_static_value, identity_n, no_op, group: TF 2.21's
answers eagerly and while tracing (recorded by hand from TF)."""
import numpy as np
import pytest

import flowjit as tf


def test_eagerly():
    assert tf.executing_eagerly() and not tf.inside_function()
    assert tf.is_tensor(tf.Variable(1.)) and tf.is_tensor(tf.constant(1)) and not tf.is_tensor(3)
    assert tf.get_static_value(3) == 3
    np.testing.assert_array_equal(tf.get_static_value(tf.constant([1, 2])), [1, 2])
    assert tf.no_op() is None and tf.group(tf.constant(1)) is None
    with pytest.raises(ValueError):
        tf.group(tf.constant(1), control_inputs=[])


def test_is_tensor_counts_tfs_tensor_like_values():
    # TF 2.21: True for sparse, ragged and IndexedSlices values; False for a TensorArray, a
    # Dataset, a TensorSpec and a Python number
    assert tf.is_tensor(tf.SparseTensor([[0, 0]], [1.0], [2, 3]))
    assert tf.is_tensor(tf.ragged.constant([[1], [2, 3]]))
    assert tf.is_tensor(tf.IndexedSlices(tf.constant([1.]), tf.constant([0])))
    assert not tf.is_tensor(tf.TensorArray(tf.float32, 2))
    assert not tf.is_tensor(tf.data.Dataset.range(2))
    assert not tf.is_tensor(tf.TensorSpec([])) and not tf.is_tensor(1.0)


def test_while_tracing():
    seen = {}

    @tf.function
    def f(x):
        c = tf.constant([1., 2.]) * 2
        seen.update(eager=tf.executing_eagerly(), inside=tf.inside_function(),
                    product=tf.get_static_value(c), arg=tf.get_static_value(x),
                    symbolic=tf.is_symbolic_tensor(x), shape=tf.get_static_value(tf.shape(c)),
                    const=tf.get_static_value(tf.constant(3)))
        return tf.identity_n([x, c])
    a, b = f(tf.constant(1.))
    assert seen["eager"] is False and seen["inside"] is True and seen["symbolic"] is True
    # TF folds constants and shapes, not arithmetic, and knows no argument's value
    assert seen["product"] is None and seen["arg"] is None
    np.testing.assert_array_equal(seen["shape"], [2])
    assert seen["const"] == 3
    assert float(a) == 1. and b.numpy().tolist() == [2., 4.]


def test_identity_n_gradient():
    x, y = tf.constant(2.), tf.constant([1., 3.])
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        a, b = tf.identity_n([x, y])
        loss = a * 3. + tf.reduce_sum(b * b)
    gx, gy = tape.gradient(loss, [x, y])
    assert float(gx) == 3. and gy.numpy().tolist() == [2., 6.]
