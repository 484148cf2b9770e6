"""tf's function-taking and shape-returning additions that the TF oracle cannot express as
data: vectorized_map, recompute_grad, control_dependencies, broadcast_static_shape."""
from __future__ import annotations

import numpy as np
import pytest

import flowjit as tf

X = np.array([[0., 1.], [2., -3.], [4., 0.5]], np.float32)


@pytest.mark.parametrize("mode", ["eager", "graph", "xla", "graph-unknown-batch"])
def test_vectorized_map_stacks_per_slice_results(mode):
    def body(x):
        return tf.vectorized_map(lambda r: (tf.reduce_sum(r * r), tf.cast(r, tf.int32)), x)
    if mode != "eager":
        sig = [tf.TensorSpec([None, 2])] if mode == "graph-unknown-batch" else None
        body = tf.function(body, jit_compile=mode == "xla", input_signature=sig)
    total, ints = body(tf.constant(X))
    np.testing.assert_allclose(total.numpy(), (X * X).sum(1))
    assert ints.dtype == tf.int32 and ints.numpy().tolist() == X.astype(np.int32).tolist()


def test_vectorized_map_gradient():
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.vectorized_map(lambda r: tf.sin(r) * r[0], x))
    want = np.cos(X) * X[:, :1]
    want[:, 0] += np.sin(X).sum(1)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), want, rtol=1e-6)


@pytest.mark.parametrize("jit", [None, False, True])
def test_recompute_grad_gives_the_functions_values_and_gradients(jit):
    v = tf.Variable(3.0)
    g = tf.recompute_grad(lambda a, b: tf.sin(a) * v + b * b)

    def run(a, b):
        with tf.GradientTape() as tape:
            tape.watch([a, b])
            y = tf.reduce_sum(g(a, b))
        return (y, *tape.gradient(y, [a, v, b]))
    if jit is not None:
        run = tf.function(run, jit_compile=jit)
    y, da, dv, db = run(tf.constant(X), tf.constant([1., -2.]))
    np.testing.assert_allclose(y.numpy(), 3 * np.sin(X).sum() + 3 * 5., rtol=1e-6)
    np.testing.assert_allclose(da.numpy(), 3 * np.cos(X), rtol=1e-6)
    np.testing.assert_allclose(dv.numpy(), np.sin(X).sum(), rtol=1e-6)
    np.testing.assert_allclose(db.numpy(), [3 * 2., 3 * -4.], rtol=1e-6)


def test_control_dependencies_orders_and_checks_its_argument():
    v = tf.Variable(1.0)

    @tf.function
    def step(a):
        with tf.control_dependencies([v.assign_add(1.0)]):
            return v.read_value() + a
    assert step(1.0).numpy() == 3.0 and v.numpy() == 2.0
    with tf.control_dependencies(None):
        pass
    with pytest.raises(TypeError):
        tf.control_dependencies(lambda: None)


def test_broadcast_static_shape():
    assert tf.broadcast_static_shape(tf.TensorShape([2, None, 3]),
                                     tf.TensorShape([4, 1])).as_list() == [2, 4, 3]
    assert tf.broadcast_static_shape(tf.TensorShape([1, 5]),
                                     tf.TensorShape([None, 1])).as_list() == [None, 5]
    assert tf.broadcast_static_shape(tf.TensorShape(None), tf.TensorShape([2])).rank is None
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        tf.broadcast_static_shape(tf.TensorShape([2, 3]), tf.TensorShape([4]))


def test_initializers():
    assert tf.zeros_initializer()([2, 3]).numpy().tolist() == [[0.] * 3] * 2
    ones = tf.ones_initializer()([2], tf.int32)
    assert ones.dtype == tf.int32 and ones.numpy().tolist() == [1, 1]
    assert tf.constant_initializer(7)([2, 2], tf.int64).numpy().tolist() == [[7, 7], [7, 7]]
    assert tf.constant_initializer([1, 2, 3, 4])([2, 2]).numpy().tolist() == [[1., 2.], [3., 4.]]
    with pytest.raises(TypeError):
        tf.constant_initializer([1, 2, 3])([2, 2])
    normal = tf.random_normal_initializer(mean=5.0, stddev=0.01, seed=1)([1000])
    assert abs(float(tf.reduce_mean(normal)) - 5.0) < 0.01
    uniform = tf.random_uniform_initializer(-1.0, 1.0)([1000], tf.float64)
    assert uniform.dtype == tf.float64 and -1 <= float(tf.reduce_min(uniform)) < -0.9
    config = tf.random_uniform_initializer(0.0, 2.0, seed=3).get_config()
    again = tf.random_uniform_initializer.from_config(config)
    assert (again.minval, again.maxval, again.seed) == (0.0, 2.0, 3)
    with pytest.raises(ValueError):
        tf.random_normal_initializer()([2], tf.int32)
    v = tf.Variable(tf.ones_initializer()([3]))
    assert v.numpy().tolist() == [1., 1., 1.]


@pytest.mark.parametrize("jit", [False, True])
def test_gradients_and_hessians_in_a_function(jit):
    @tf.function(jit_compile=jit)
    def f(x, y):
        s = tf.sin(x)
        z = tf.reduce_sum(s * y + tf.reshape(x, [tf.shape(x)[0], -1])[:, 0])
        w = tf.stop_gradient(x) * 3.0
        dx, dy, dw = tf.gradients(z, [x, y, w])
        (weighted,) = tf.gradients([z, tf.reduce_sum(x * x)], x, grad_ys=[2.0, 1.0])
        (cut,) = tf.gradients(z, x, stop_gradients=[s])
        (hess,) = tf.hessians(tf.reduce_sum(x ** 3 * y), x)
        (zero,) = tf.gradients(tf.reduce_sum(y), x, unconnected_gradients="zero")
        return dx, dy, dw, weighted, cut, hess, zero
    x, y = np.array([1., 2.], np.float32), np.array([3., -1.], np.float32)
    dx, dy, dw, weighted, cut, hess, zero = f(tf.constant(x), tf.constant(y))
    np.testing.assert_allclose(dx.numpy(), np.cos(x) * y + 1, rtol=1e-6)
    np.testing.assert_allclose(dy.numpy(), np.sin(x), rtol=1e-6)
    assert dw is None
    np.testing.assert_allclose(weighted.numpy(), 2 * (np.cos(x) * y + 1) + 2 * x, rtol=1e-6)
    np.testing.assert_allclose(cut.numpy(), [1., 1.])
    np.testing.assert_allclose(hess.numpy(), np.diag(6 * x * y), rtol=1e-6)
    assert zero.numpy().tolist() == [0., 0.]


def test_gradients_refuses_eager_execution():
    with pytest.raises(RuntimeError, match="Use tf.GradientTape instead"):
        tf.gradients(tf.constant(1.0), tf.constant(2.0))


def test_debugging_settings_and_checks():
    assert tf.debugging.is_traceback_filtering_enabled()
    tf.debugging.disable_traceback_filtering()
    assert not tf.debugging.is_traceback_filtering_enabled()
    tf.debugging.enable_traceback_filtering()
    tf.debugging.set_log_device_placement(True)
    assert tf.debugging.get_log_device_placement()
    tf.debugging.set_log_device_placement(False)
    tf.debugging.enable_check_numerics()
    tf.debugging.disable_check_numerics()
    a, b = tf.constant([1.0]), tf.constant([2.0])
    assert tf.debugging.assert_same_float_dtype([a, b]) == tf.float32
    assert tf.debugging.assert_same_float_dtype() == tf.float32
    with pytest.raises(ValueError):
        tf.debugging.assert_same_float_dtype([a, tf.constant([1.0], tf.float64)])
    with pytest.raises(ValueError):
        tf.debugging.assert_same_float_dtype([tf.constant([1])])
    tf.debugging.assert_proper_iterable([1, 2])
    for bad in ("ab", a, 3):
        with pytest.raises(TypeError):
            tf.debugging.assert_proper_iterable(bad)
    assert tf.get_logger().name == "tensorflow"
    assert tf.get_current_name_scope() == ""
    with tf.name_scope("outer"), tf.name_scope("inner"):
        assert tf.get_current_name_scope() == "outer/inner"


def test_grad_pass_through_sends_the_upstream_gradient_to_the_input():
    x = tf.constant([0.4, 1.6, -2.2])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.grad_pass_through(tf.round)(x) * [1.0, 2.0, 3.0])
    assert y.numpy() == 0.0 + 4.0 - 6.0
    assert tape.gradient(y, x).numpy().tolist() == [1.0, 2.0, 3.0]
