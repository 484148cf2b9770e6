"""GradientTape semantics (TF 2's, checked against TF once while writing): watching, persistence,
nested tapes and second derivatives, unconnected gradients, stop_gradient, custom_gradient,
automatically watched variables, jacobians. Expected values are analytic (NumPy)."""
import numpy as np
import pytest

import flowjit as tf
from helpers import assert_close

X = np.array([0.5, -1.25, 2.0], np.float32)


def test_watch_tensor_and_gradient_of_polynomial():
    x = tf.constant(X)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(x * x * x - 2.0 * x)
    assert_close(t.gradient(y, x), 3 * X ** 2 - 2, rtol=1e-6)


def test_unwatched_tensor_gets_none_and_ops_on_it_are_not_recorded():
    x, w = tf.constant(X), tf.constant(X + 1)
    with tf.GradientTape() as t:
        t.watch(w)
        y = tf.reduce_sum(x * w)
    gx, gw = t.gradient(y, [x, w])
    assert gx is None
    assert_close(gw, X)
    with tf.GradientTape() as t:
        y = tf.reduce_sum(x * x)
    assert t.gradient(y, x) is None


def test_source_equal_to_target_and_output_gradients():
    x = tf.constant(X)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x
    assert_close(t.gradient(x, x), np.ones(3, np.float32))
    og = np.array([1.0, 2.0, -3.0], np.float32)
    assert_close(t.gradient(y, x, output_gradients=tf.constant(og)), 2 * X * og)


def test_nested_sources_and_targets_keep_structure():
    x, z = tf.constant(X), tf.constant(2.0)
    with tf.GradientTape() as t:
        t.watch([x, z])
        ys = {"a": tf.reduce_sum(x) * z, "b": [z * z]}
    g = t.gradient(ys, {"x": x, "pair": (z, x)})
    assert set(g) == {"x", "pair"} and isinstance(g["pair"], tuple)
    assert_close(g["x"], np.full(3, 2.0, np.float32))
    assert_close(g["pair"][0], np.float32(X.sum() + 4.0))
    assert_close(g["pair"][1], np.full(3, 2.0, np.float32))


def test_gradient_sums_over_all_uses():
    x = tf.constant(1.5)
    with tf.GradientTape() as t:
        t.watch(x)
        a = tf.sin(x)
        y = a * a + a * x + x
    xv = 1.5
    expected = 2 * np.sin(xv) * np.cos(xv) + np.cos(xv) * xv + np.sin(xv) + 1
    assert_close(t.gradient(y, x), np.float32(expected), rtol=1e-6)


def test_intermediate_source():
    x = tf.constant(2.0)
    with tf.GradientTape() as t:
        t.watch(x)
        h = x * x
        y = h * h + h + x
    gh, gx = t.gradient(y, [h, x])
    assert_close(gh, np.float32(2 * 4.0 + 1))
    assert_close(gx, np.float32(4 * 8.0 + 2 * 2.0 + 1))


def test_non_persistent_tape_is_single_use_and_persistent_is_not():
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
    t.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent GradientTape"):
        t.gradient(y, x)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x
        z = y * x
    assert_close(t.gradient(y, x), np.float32(6.0))
    assert_close(t.gradient(z, x), np.float32(27.0))
    assert_close(t.gradient(z, y), np.float32(3.0))


def test_nested_tapes_second_and_third_derivative():
    xv = 0.7
    x = tf.constant(xv)
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = tf.sin(x) * x
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    s, c = np.sin(xv), np.cos(xv)
    assert_close(d1, np.float32(c * xv + s), rtol=1e-6)
    assert_close(d2, np.float32(-s * xv + 2 * c), rtol=1e-6)
    assert_close(d3, np.float32(-c * xv - 3 * s), rtol=1e-5)


def test_persistent_tape_records_its_own_gradient_inside_its_context():
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x * x
        dy = t.gradient(y, x)
    assert_close(dy, np.float32(12.0))
    assert_close(t.gradient(dy, x), np.float32(12.0))  # 6x


def test_gradient_inside_context_stops_non_persistent_tape():
    x = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as t:
            t.watch(x)
            y = x * x
            dy = t.gradient(y, x)    # recorded by `outer`, not by `t`
            z = dy * x               # t no longer records
    assert len(t._entries) == 0
    assert_close(outer.gradient(z, x), np.float32(8.0))   # d(2x*x)/dx


def test_unconnected_gradients():
    x, w = tf.constant(X), tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = tf.reduce_sum(x) * 3.0
    assert t.gradient(y, w) is None
    z = t.gradient(y, [w, x], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert_close(z[0], np.float32(0.0))
    assert_close(z[1], np.full(3, 3.0, np.float32))
    assert_close(t.gradient(tf.constant(1.0), x, unconnected_gradients="zero"),
                 np.zeros(3, np.float32))
    assert [u.value for u in tf.UnconnectedGradients] == ["none", "zero"]


def test_stop_gradient_and_stop_recording():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * tf.stop_gradient(x * x)
        with t.stop_recording():
            z = x * x
        w = z * x
    assert_close(t.gradient(y, x), np.float32(9.0))
    assert t.gradient(z, x) is None
    assert_close(t.gradient(w, x), np.float32(9.0))  # z is a constant to the tape
    with pytest.raises(RuntimeError, match="not recording"):
        with tf.GradientTape().stop_recording():
            pass


def test_reset_forgets_recording():
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = x * x
        t.reset()
        t.watch(x)
        z = x * x * x
    assert t.gradient([y, z], x).numpy() == pytest.approx(27.0)


def test_reenter_and_bad_watch():
    t = tf.GradientTape()
    with t:
        with pytest.raises(ValueError, match="still recording"):
            t.__enter__()
        with pytest.raises(ValueError, match="not tf.Tensor or tf.Variable"):
            t.watch(3.0)


def test_integer_tensors_get_no_gradient():
    i = tf.constant(3)
    with tf.GradientTape() as t:
        t.watch(i)
        y = i * 2
    assert t.gradient(y, i) is None


def test_trainable_variables_are_watched_automatically():
    v1, v2 = tf.Variable(1.5), tf.Variable(-2.0)
    frozen = tf.Variable(4.0, trainable=False)
    with tf.GradientTape() as t:
        y = v2 * v1 * frozen + v1 * v1
    assert t.watched_variables() == (v1, v2)   # by creation, as TF
    g1, g2, g3 = t.gradient(y, [v1, v2, frozen])
    assert_close(g1, np.float32(-2.0 * 4.0 + 2 * 1.5))
    assert_close(g2, np.float32(1.5 * 4.0))
    assert g3 is None


def test_watch_accessed_variables_false_and_explicit_watch():
    v, u = tf.Variable(2.0), tf.Variable(3.0)
    with tf.GradientTape(watch_accessed_variables=False) as t:
        t.watch(u)
        y = v * u * u
    assert t.watched_variables() == (u,)
    gv, gu = t.gradient(y, [v, u])
    assert gv is None
    assert_close(gu, np.float32(12.0))


def test_variable_used_through_operators_and_ops():
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    x = np.array([[1.0, -1.0]], np.float32)
    with tf.GradientTape() as t:
        y = tf.reduce_sum(tf.matmul(x, w) * 2.0) + tf.reduce_sum(w[0])
    expected = 2.0 * np.repeat(x.T, 2, axis=1) + np.array([[1, 1], [0, 0]], np.float32)
    assert_close(t.gradient(y, w), expected)


def test_custom_gradient_single_and_multiple_inputs():
    @tf.custom_gradient
    def clip_grad(x):
        def grad(dy):
            return tf.clip_by_value(dy, -1.0, 1.0)
        return x * 1.0, grad

    @tf.custom_gradient
    def prod(a, b):
        def grad(dy):
            return dy * 10.0, dy * 100.0
        return a * b, grad

    x, a, b = tf.constant(X), tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape(persistent=True) as t:
        t.watch([x, a, b])
        y = clip_grad(x) * 5.0
        z = prod(a, b) * 2.0
    assert_close(t.gradient(y, x), np.ones(3, np.float32))
    ga, gb = t.gradient(z, [a, b])
    assert_close(ga, np.float32(20.0))
    assert_close(gb, np.float32(200.0))


def test_custom_gradient_identity_output_and_no_tape():
    @tf.custom_gradient
    def ident(x):
        return x, lambda dy: dy * 7.0

    x = tf.constant(2.0)
    assert float(ident(x)) == 2.0  # no tape: just the function
    with tf.GradientTape() as t:
        t.watch(x)
        y = ident(x)
    assert_close(t.gradient(y, x), np.float32(7.0))


def test_custom_gradient_with_variables():
    v = tf.Variable(2.0)

    @tf.custom_gradient
    def scaled(x):
        y = x * v

        def grad(dy, variables=None):
            assert variables == [v]
            return dy * 10.0, [dy * 7.0]
        return y, grad

    @tf.custom_gradient
    def no_kw(x):
        return x * v, lambda dy: dy

    x = tf.constant(1.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = scaled(x)
    gx, gv = t.gradient(y, [x, v])
    assert_close(gx, np.float32(10.0))
    assert_close(gv, np.float32(7.0))
    with tf.GradientTape() as t:
        t.watch(x)
        with pytest.raises(TypeError, match="variables"):
            no_kw(x)


def test_custom_gradient_second_order():
    @tf.custom_gradient
    def cube(x):
        def grad(dy):
            return dy * 3.0 * x * x
        return x * x * x, grad

    x = tf.constant(2.0)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = cube(x)
        d = t1.gradient(y, x)
    assert_close(d, np.float32(12.0))
    assert_close(t2.gradient(d, x), np.float32(12.0))


def test_jacobian_and_batch_jacobian():
    xv = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    x = tf.constant(xv)
    w = tf.Variable([0.5, -1.0])
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x * w
    j = t.jacobian(y, x)
    expected = np.zeros((2, 2, 2, 2), np.float32)
    for i in range(2):
        for k in range(2):
            expected[i, k, i, k] = 2 * xv[i, k] * [0.5, -1.0][k]
    assert_close(j, expected)
    jw = t.jacobian(y, w)
    ew = np.zeros((2, 2, 2), np.float32)
    for i in range(2):
        for k in range(2):
            ew[i, k, k] = xv[i, k] ** 2
    assert_close(jw, ew)
    bj = t.batch_jacobian(y, x)
    eb = np.zeros((2, 2, 2), np.float32)
    for i in range(2):
        for k in range(2):
            eb[i, k, k] = expected[i, k, i, k]
    assert_close(bj, eb)
    assert t.jacobian(y, tf.Variable(1.0)) is None


def test_tape_inside_function_matches_eager():
    v = tf.Variable([1.0, -2.0, 0.5])

    def f(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(tf.tanh(x * v) * x)
        return t.gradient(y, [x, v])

    x = tf.constant(X)
    th = np.tanh(X * v.numpy())
    ex = (1 - th ** 2) * v.numpy() * X + th
    ev = (1 - th ** 2) * X * X
    for fn in (f, tf.function(f), tf.function(f, jit_compile=True)):
        gx, gv = fn(x)
        assert_close(gx, ex, rtol=1e-5)
        assert_close(gv, ev, rtol=1e-5)


def test_second_derivative_inside_function():
    @tf.function
    def f(x):
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = tf.exp(x) * x
            d1 = t1.gradient(y, x)
        return d1, t2.gradient(d1, x)

    d1, d2 = f(tf.constant(X))
    assert_close(d1, np.exp(X) * (X + 1), rtol=1e-6)
    assert_close(d2, np.exp(X) * (X + 2), rtol=1e-6)


@pytest.mark.parametrize("jit", [False, True])
def test_traced_function_called_under_eager_tape(jit):
    v = tf.Variable([1.0, 2.0, 3.0])

    @tf.function(jit_compile=jit)
    def f(x):
        return tf.reduce_sum(tf.sin(x) * v)

    x = tf.constant(X)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    gx, gv = t.gradient(y, [x, v])
    assert_close(y, np.float32((np.sin(X) * [1, 2, 3]).sum()), rtol=1e-6)
    assert_close(gx, np.cos(X) * np.array([1, 2, 3], np.float32), rtol=1e-6)
    assert_close(gv, np.sin(X), rtol=1e-6)


def test_missing_gradient_is_a_lookup_error():
    from flowjit.frontend.gradients import GRADIENTS
    x = tf.constant(X)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(tf.sin(x))
    saved = GRADIENTS.pop("sin")
    try:
        with pytest.raises(LookupError, match="No gradient defined for operation 'sin'"):
            t.gradient(y, x)
    finally:
        GRADIENTS["sin"] = saved


def test_no_tape_no_hook():
    from flowjit.frontend.function.context import context
    assert context().tape_hook is None and context().watch_hook is None
    with tf.GradientTape():
        assert context().tape_hook is not None
    assert context().tape_hook is None and context().watch_hook is None
