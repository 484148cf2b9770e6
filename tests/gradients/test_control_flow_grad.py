"""Gradients through traced cond / switch_case / while_loop (graph executor and XLA), against
the same computation unrolled in Python (no control-flow node: the tape sees plain ops) and,
where short, analytic NumPy formulas."""
import numpy as np
import pytest

import flowjit as tf
from helpers import assert_close

MODES = ["graph", "xla"]
X = np.array([0.3, -0.7, 1.1], np.float32)


def _fn(f, mode):
    return tf.function(f, jit_compile=(mode == "xla"), autograph=False)


def _grads_eager(f, *args):
    """Gradient of the unrolled computation, recorded op by op."""
    with tf.GradientTape() as t:
        t.watch(list(args))
        y = f(*args)
    return t.gradient(y, list(args))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("pred", [True, False])
def test_cond_gradient_wrt_captured_tensor_and_variable(mode, pred):
    v = tf.Variable([2.0, -1.0, 0.5])

    def loop_free(x, p):
        return tf.reduce_sum(x * x * v) if p else tf.reduce_sum(tf.sin(x))

    def with_cond(x, p):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.cond(p, lambda: tf.reduce_sum(x * x * v), lambda: tf.reduce_sum(tf.sin(x)))
        return y, t.gradient(y, [x, v])

    y, (gx, gv) = _fn(with_cond, mode)(tf.constant(X), tf.constant(pred))
    x = tf.constant(X)
    with tf.GradientTape() as t:
        t.watch(x)
        ey = loop_free(x, pred)
    ex, ev = t.gradient(ey, [x, v])
    assert_close(y, ey.numpy(), rtol=1e-6)
    assert_close(gx, ex, rtol=1e-6)
    if pred:
        assert_close(gv, ev, rtol=1e-6)
        assert_close(gx, 2 * X * v.numpy(), rtol=1e-6)
    else:
        assert ev is None
        assert_close(gv, np.zeros(3, np.float32))   # the untaken branch: zeros
        assert_close(gx, np.cos(X), rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_cond_with_several_outputs_and_nested_cond(mode):
    def f(x, a, b):
        with tf.GradientTape() as t:
            t.watch(x)
            p, q = tf.cond(a, lambda: tf.cond(b, lambda: (x * x, x * 3.0),
                                               lambda: (tf.exp(x), x)),
                           lambda: (x, x * x * x))
            y = tf.reduce_sum(p * 2.0 + q)
        return t.gradient(y, x)

    g = _fn(f, mode)
    for a in (True, False):
        for b in (True, False):
            got = g(tf.constant(X), tf.constant(a), tf.constant(b))
            if a and b:
                want = 4 * X + 3
            elif a:
                want = 2 * np.exp(X) + 1
            else:
                want = 2 + 3 * X ** 2
            assert_close(got, want, rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_switch_case_gradient(mode):
    def f(x, i):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.switch_case(i, [lambda: tf.reduce_sum(x * x), lambda: tf.reduce_sum(x * 5.0),
                                   lambda: tf.reduce_sum(tf.tanh(x))])
        return t.gradient(y, x)

    g = _fn(f, mode)
    wants = [2 * X, np.full(3, 5.0, np.float32), 1 - np.tanh(X) ** 2]
    for i, want in enumerate(wants):
        assert_close(g(tf.constant(X), tf.constant(i)), want, rtol=1e-6)
    assert_close(g(tf.constant(X), tf.constant(7)), wants[-1], rtol=1e-6)  # out of range


def _body(i, y, x, v):
    return i + 1, tf.sin(y) * x + v * tf.cast(i, tf.float32)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("n", [0, 1, 4])
def test_while_gradient_matches_unrolled(mode, n):
    v = tf.Variable([0.5, 1.5, -0.25])

    def with_loop(x, n):
        with tf.GradientTape() as t:
            t.watch(x)
            _, y = tf.while_loop(lambda i, y: i < n, lambda i, y: _body(i, y, x, v),
                                 [tf.constant(0), x * 2.0], maximum_iterations=6)
            loss = tf.reduce_sum(y * y)
        return loss, t.gradient(loss, [x, v])

    def unrolled(x):
        i, y = tf.constant(0), x * 2.0
        for _ in range(n):
            i, y = _body(i, y, x, v)
        return tf.reduce_sum(y * y)

    loss, (gx, gv) = _fn(with_loop, mode)(tf.constant(X), tf.constant(n))
    x = tf.constant(X)
    with tf.GradientTape() as t:
        t.watch(x)
        ref = unrolled(x)
    ex, ev = t.gradient(ref, [x, v], unconnected_gradients="zero")
    assert_close(loss, ref.numpy(), rtol=1e-5)
    assert_close(gx, ex, rtol=1e-5, atol=1e-6)
    assert_close(gv, ev, rtol=1e-5, atol=1e-6)


def test_while_without_bound_graph_executor_matches_unrolled():
    def with_loop(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.while_loop(lambda y: tf.reduce_sum(y) < 50.0, lambda y: y * x + 1.0,
                              [x + 1.0])
            loss = tf.reduce_sum(y[0])
        return loss, t.gradient(loss, x)

    x0 = np.array([1.5, 2.0], np.float32)
    loss, g = _fn(with_loop, "graph")(tf.constant(x0))
    # Unrolled with the same trip count (found in NumPy), differentiated analytically:
    # y_{k+1} = y_k * x + 1, y_0 = x + 1; dy_{k+1}/dx = dy_k/dx * x + y_k.
    y, dy = x0 + 1.0, np.ones(2, np.float32)
    while y.sum() < 50.0:
        y, dy = y * x0 + 1.0, dy * x0 + y
    assert_close(loss, np.float32(y.sum()), rtol=1e-6)
    assert_close(g, dy, rtol=1e-6)


@pytest.mark.parametrize("mode,bound", [("graph", None), ("graph", 8), ("xla", 8)])
@pytest.mark.parametrize("x0", [np.array([1.5, 2.0], np.float32),
                                np.array([[0.5], [1.0], [-0.25]], np.float32),
                                np.zeros((0, 3), np.float32)])
def test_while_gradient_with_loop_values_of_unknown_rank(mode, bound, x0):
    if bound is None and x0.size == 0:
        bound = 3   # an empty sum never reaches 20
    """The kept iterations stack values whose rank is known only at run time (TF keeps them
    in TensorLists with an unknown element shape)."""
    def with_loop(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.while_loop(lambda y: tf.reduce_sum(y) < 20.0, lambda y: y * x + 1.0,
                              [x + 1.0], maximum_iterations=bound)
            loss = tf.reduce_sum(y[0])
        return loss, t.gradient(loss, x)

    fn = tf.function(with_loop, jit_compile=(mode == "xla"), autograph=False,
                     input_signature=[tf.TensorSpec(None, tf.float32)])
    loss, g = fn(tf.constant(x0))
    y, dy, steps = x0 + 1.0, np.ones_like(x0), 0
    while y.sum() < 20.0 and (bound is None or steps < bound):
        y, dy, steps = y * x0 + 1.0, dy * x0 + y, steps + 1
    assert_close(loss, np.float32(y.sum()), rtol=1e-6)
    assert_close(g, dy, rtol=1e-6)


def test_while_without_bound_under_xla_asks_for_maximum_iterations():
    def with_loop(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.while_loop(lambda y: tf.reduce_sum(y) < 50.0, lambda y: y * x + 1.0, [x])
        return t.gradient(y, x)

    with pytest.raises(ValueError, match="maximum_iterations"):
        _fn(with_loop, "xla")(tf.constant([1.5, 2.0]))


@pytest.mark.parametrize("mode", MODES)
def test_nested_while_gradient(mode):
    def with_loops(x):
        with tf.GradientTape() as t:
            t.watch(x)

            def outer(i, y):
                _, z = tf.while_loop(lambda j, z: j < 2, lambda j, z: (j + 1, tf.sin(z) * x),
                                     [0, y], maximum_iterations=2)
                return i + 1, z
            _, y = tf.while_loop(lambda i, y: i < 3, outer, [0, x], maximum_iterations=3)
            loss = tf.reduce_sum(y)
        return t.gradient(loss, x)

    def unrolled(x):
        y = x
        for _ in range(6):
            y = tf.sin(y) * x
        return tf.reduce_sum(y)

    got = _fn(with_loops, mode)(tf.constant(X))
    (want,) = _grads_eager(unrolled, tf.constant(X))
    assert_close(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_cond_inside_while_and_loop_variable_gradient(mode):
    def with_loop(x):
        with tf.GradientTape() as t:
            t.watch(x)
            _, y = tf.while_loop(
                lambda i, y: i < 4,
                lambda i, y: (i + 1, tf.cond(i % 2 == 0, lambda: y * y, lambda: y + x)),
                [0, x], maximum_iterations=4)
        return t.gradient(tf.reduce_sum(y) if False else y, x)

    def unrolled(x):
        y = x
        for i in range(4):
            y = y * y if i % 2 == 0 else y + x
        return y

    got = _fn(with_loop, mode)(tf.constant(X))
    (want,) = _grads_eager(unrolled, tf.constant(X))
    assert_close(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_second_derivative_through_cond(mode):
    def f(x):
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = tf.cond(tf.reduce_sum(x) > 0, lambda: tf.reduce_sum(x * x * x),
                            lambda: tf.reduce_sum(x))
            d = t1.gradient(y, x)
        return d, t2.gradient(d, x)

    xv = np.array([1.0, 2.0], np.float32)
    d, d2 = _fn(f, mode)(tf.constant(xv))
    assert_close(d, 3 * xv ** 2)
    assert_close(d2, 6 * xv)


def test_eager_control_flow_is_recorded_op_by_op():
    x = tf.constant(X)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.cond(tf.constant(True), lambda: x * x, lambda: x)
        _, z = tf.while_loop(lambda i, z: i < 3, lambda i, z: (i + 1, z * x), [0, y])
        loss = tf.reduce_sum(z)
    assert_close(t.gradient(loss, x), 5 * X ** 4, rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_second_derivative_through_while(mode):
    def f(x):
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * tf.sin(x)),
                                     [0, x], maximum_iterations=4)
                y = tf.reduce_sum(y)
            d = t1.gradient(y, x)
        return d, t2.gradient(d, x)

    xv = np.array([0.5, 1.25], np.float32)
    d, d2 = _fn(f, mode)(tf.constant(xv))
    s, c = np.sin(xv), np.cos(xv)     # y = x sin(x)^3
    assert_close(d, s ** 3 + 3 * xv * s ** 2 * c, rtol=1e-5)
    assert_close(d2, 6 * s ** 2 * c + 6 * xv * s * c ** 2 - 3 * xv * s ** 3, rtol=1e-5)
