"""flowjit quickstart: TF2-style eager code, unchanged, with `import flowjit as tf`.

A dense layer and a few steps of gradient-free "training" by hand, run eagerly on NumPy
kernels. Later stages of the project trace and compile the same code.
"""
import numpy as np

import flowjit as tf

tf.random.set_seed(0)

# Eager tensors behave like TF's: dtypes are never promoted implicitly.
x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print("x =", x)
print("x * 2 + 1 =", x * 2 + 1)
print("row sums =", tf.reduce_sum(x, axis=1))
print("x[:, ::2] =", x[:, ::2])
try:
    x + tf.constant([1, 2, 3])
except tf.errors.InvalidArgumentError as e:
    print("int32 + float32 raises InvalidArgumentError:", str(e).split(" [at")[0])

# A dense layer with Variables.
w = tf.Variable(tf.random.normal([3, 4], stddev=0.1, seed=1), name="w")
b = tf.Variable(tf.zeros([4]), name="b")


def dense(inputs):
    return tf.nn.relu(tf.matmul(inputs, w) + b)


y = dense(x)
print("dense(x) shape:", y.shape, "dtype:", y.dtype)

# Variables update in place; a bad assign raises and changes nothing.
b.assign_add(tf.ones([4]) * 0.5)
print("b after assign_add:", b.numpy())
try:
    b.assign(tf.ones([5]))
except ValueError as e:
    print("bad assign rejected:", str(e).split(" [at")[0])
print("b unchanged:", b.numpy())

probs = tf.nn.softmax(dense(x))
np.testing.assert_allclose(tf.reduce_sum(probs, axis=-1).numpy(), np.ones(2), rtol=1e-6)
print("softmax rows sum to 1:", tf.reduce_sum(probs, axis=-1).numpy())
