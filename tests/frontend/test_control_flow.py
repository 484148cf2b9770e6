"""cond / switch_case / while_loop: eager Python and traced df regions, nested, with captures,
variables, and the structure/dtype/shape errors TF raises."""
import numpy as np
import pytest

import flowjit as tf


def _both(fn, *args, **kw):
    """Run eagerly and traced; both results are returned for comparison with NumPy."""
    return fn(*args), tf.function(fn, **kw)(*args)


@pytest.mark.parametrize("p", [True, False])
def test_cond_numerics(p):
    x = np.random.default_rng(0).normal(size=(3, 2)).astype(np.float32)

    def f(pred, t):
        return tf.cond(pred, lambda: t * 2.0 + 1.0, lambda: tf.nn.relu(t))

    expected = x * 2 + 1 if p else np.maximum(x, 0)
    for out in _both(f, tf.constant(p), tf.constant(x)):
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


def test_cond_nested_with_captures_and_structures():
    c = tf.constant(100.0)

    def f(a, b, x):
        def outer_true():
            return tf.cond(b, lambda: (x + c, {"k": x * 0.0}), lambda: (x - c, {"k": x}))
        return tf.cond(a, outer_true, lambda: (x, {"k": x * 3.0}))

    traced = tf.function(f)
    x = tf.constant([1.0, 2.0])
    for a in (True, False):
        for b in (True, False):
            got = traced(tf.constant(a), tf.constant(b), x)
            xs = np.array([1.0, 2.0], np.float32)
            if a:
                exp = (xs + 100, xs * 0) if b else (xs - 100, xs)
            else:
                exp = (xs, xs * 3)
            np.testing.assert_allclose(got[0].numpy(), exp[0])
            np.testing.assert_allclose(got[1]["k"].numpy(), exp[1])
    assert traced.experimental_get_tracing_count() == 1


def test_cond_branch_shapes_merge():
    @tf.function
    def f(p):
        return tf.cond(p, lambda: tf.zeros([2]), lambda: tf.ones([3]))

    assert f(tf.constant(True)).shape == (2,)
    assert f(tf.constant(False)).shape == (3,)
    assert f.get_concrete_function(tf.constant(True)).outputs[0].shape.as_list() == [None]


def test_cond_errors_name_the_problem():
    @tf.function
    def bad_dtype(p):
        return tf.cond(p, lambda: tf.constant(1), lambda: tf.constant(1.0))

    with pytest.raises(TypeError, match=r"output 0 of true_fn has dtype int32.*float32"):
        bad_dtype(tf.constant(True))

    @tf.function
    def bad_structure(p):
        return tf.cond(p, lambda: (tf.constant(1), tf.constant(2)), lambda: tf.constant(1))

    with pytest.raises(ValueError, match="same number, type, and overall structure"):
        bad_structure(tf.constant(True))


def test_cond_with_variable_updates_in_branches():
    v = tf.Variable(0.0)

    @tf.function
    def f(p):
        tf.cond(p, lambda: v.assign_add(1.0), lambda: v.assign_sub(1.0))
        return v.read_value()

    assert float(f(tf.constant(True))) == 1.0
    assert float(f(tf.constant(True))) == 2.0
    assert float(f(tf.constant(False))) == 1.0
    assert float(v.numpy()) == 1.0


@pytest.mark.parametrize("jit", [False, True])
def test_branches_run_for_their_side_effects_return_none(jit):
    """TF 2.21: a branch may return None (Keras's loss-scale update does); the Nones keep
    their places in the structure, the branch's updates run, in the graph and under XLA."""
    v = tf.Variable(0.0)

    def up():
        v.assign_add(1.0)

    def up_ten():
        v.assign_add(10.0)

    def nothing():
        return None

    @tf.function(jit_compile=jit)
    def f(x):
        r = tf.cond(x > 0, up, nothing)
        s = tf.switch_case(tf.cast(x > 0, tf.int32), [nothing, up_ten])
        pair = tf.cond(x > 0, lambda: (x * 2, None), lambda: (x, None))
        return r, s, pair, v.read_value()

    r, s, (doubled, hole), after = f(tf.constant(1.0))
    assert r is None and s is None and hole is None
    assert float(doubled) == 2.0 and float(after) == 11.0
    assert float(f(tf.constant(-1.0))[3]) == 11.0


def test_a_none_against_a_tensor_in_branches_is_tfs_error():
    @tf.function
    def mixed(x):
        return tf.cond(x > 0, lambda: None, lambda: tf.constant(1.0))

    # TF's lines, indented under "in user code:" as TF indents them
    with pytest.raises(ValueError, match=r"Lengths of branch outputs of cond must match\.\n"
                       r"\s*len\(graphs\[0\]\.outputs\): 0\n\s*len\(graphs\[1\]\.outputs\): 1"):
        mixed(tf.constant(1.0))


def test_gradient_through_a_branch_with_a_none_output():
    w = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = tf.function(lambda: tf.cond(w > 0, lambda: (w * w, None), lambda: (w, None)))()
    assert y[1] is None and float(tape.gradient(y[0], w)) == 6.0


@pytest.mark.parametrize("i", [0, 1, 2, 7, -1])
def test_switch_case(i):
    x = tf.constant(3.0)

    def f(idx):
        return tf.switch_case(idx, [lambda: x * 1.0, lambda: x * 10.0, lambda: x * 100.0])

    expected = {0: 3.0, 1: 30.0, 2: 300.0}.get(i, 300.0)  # out of range -> last branch
    for out in _both(f, tf.constant(i)):
        assert float(out) == expected


def test_while_loop_numerics_and_structure():
    def f(n):
        i = tf.constant(0)
        acc = tf.constant(1.0)
        return tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a * 2.0), [i, acc])

    for n in (0, 1, 5):
        for out in _both(f, tf.constant(n)):
            assert int(out[0]) == n and float(out[1]) == 2.0 ** n


def test_while_loop_nested_with_captures():
    def f(n, m):
        scale = tf.constant(2)

        def body(i, total):
            inner = tf.while_loop(lambda j, s: j < m, lambda j, s: (j + 1, s + i * scale),
                                  (tf.constant(0), tf.constant(0)))
            return i + 1, total + inner[1]

        return tf.while_loop(lambda i, t: i < n, body, (tf.constant(0), tf.constant(0)))[1]

    expected = sum(2 * i * 3 for i in range(4))
    for out in _both(f, tf.constant(4), tf.constant(3)):
        assert int(out) == expected


def test_while_loop_single_var_dict_and_max_iterations():
    def f(x):
        out = tf.while_loop(lambda d: d["v"] < 1000.0, lambda d: {"v": d["v"] * 3.0},
                            [{"v": x}], maximum_iterations=4)
        return out[0]["v"]

    for out in _both(f, tf.constant(1.0)):
        assert float(out) == 81.0
    for out in _both(lambda x: tf.while_loop(lambda v: v < 50, lambda v: v * 2, x),
                     tf.constant(3)):
        assert int(out) == 96


def test_while_loop_variable_updates():
    v = tf.Variable(0)

    @tf.function
    def f(n):
        def body(i):
            v.assign_add(i)
            return i + 1
        tf.while_loop(lambda i: i < n, body, [tf.constant(0)])
        return v.read_value()

    assert int(f(tf.constant(5))) == 10
    assert int(v.numpy()) == 10


def test_while_loop_errors_name_the_variable():
    @tf.function
    def bad_shape(x):
        return tf.while_loop(lambda v: tf.reduce_sum(v) < 10.0,
                             lambda v: tf.concat([v, v], 0), [x])

    with pytest.raises(ValueError, match=r"loop_vars\[0\].*enters the loop with shape \(2,\)"
                                         r".*shape \(4,\).*shape_invariants"):
        bad_shape(tf.constant([1.0, 1.0]))

    @tf.function
    def ok_shape(x):
        return tf.while_loop(lambda v: tf.reduce_sum(v) < 10.0,
                             lambda v: tf.concat([v, v], 0), [x],
                             shape_invariants=[tf.TensorShape([None])])[0]

    assert ok_shape(tf.constant([1.0, 1.0])).shape == (16,)  # 2 -> 4 -> 8 -> 16

    @tf.function
    def bad_dtype(x):
        return tf.while_loop(lambda v: v < 10, lambda v: tf.cast(v, tf.float32), [x])

    with pytest.raises(TypeError, match=r"loop_vars\[0\].*int32.*float32"):
        bad_dtype(tf.constant(1))

    @tf.function
    def bad_structure(x):
        return tf.while_loop(lambda a, b: a < 10, lambda a, b: (a + 1,), [x, x])

    with pytest.raises(ValueError, match="same structure"):
        bad_structure(tf.constant(1))


def test_control_flow_in_dataflow_stage():
    @tf.function
    def f(p, n):
        y = tf.cond(p, lambda: n + 1, lambda: n - 1)
        return tf.while_loop(lambda i: i < 10, lambda i: i + y, [tf.constant(0)])

    text = f.experimental_get_compiler_ir(tf.constant(True), tf.constant(2))(stage="dataflow")
    assert "df.cond" in text and "df.while" in text and "df.yield" in text
    assert int(f(tf.constant(True), tf.constant(2))[0]) == 12
