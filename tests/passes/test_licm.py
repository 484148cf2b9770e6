"""`loop-invariant-code-motion`: invariant pure ops leave `df.while` regions; stateful ops,
ops on loop values and ops that could raise in a zero-trip loop stay. Results are unchanged
in the executor and under XLA (bit for bit), for zero, one and several iterations; the pass
is idempotent."""
import numpy as np
import pytest

import flowjit as tf
from flowjit.ir.dialect import WhileOp
from pass_helpers import assert_idempotent, check

PASS = "loop-invariant-code-motion"
RNG = np.random.default_rng(0)
W = RNG.normal(size=(3, 5)).astype(np.float32)
X = RNG.normal(size=(4, 3)).astype(np.float32)


def _loop_ops(fn, args, passes=PASS):
    """Names of the ops inside while regions, after `passes`."""
    f = tf.function(fn, passes=passes)
    m = f.get_concrete_function(*[tf.constant(a) for a in args]).optimized_module()
    names = []
    for op in m.walk():
        if isinstance(op, WhileOp):
            names += [o.name for o in op.walk() if o is not op]
    return names


def body_chain(x, n):
    def body(i, acc):
        c = tf.constant(2.0) * W            # invariant
        s = tf.reduce_sum(tf.exp(c))        # invariant, uses the hoisted value
        return i + 1, acc * 0.5 + s
    return tf.while_loop(lambda i, a: i < n, body, (tf.constant(0), x))[1]


@pytest.mark.parametrize("n", [0, 1, 4])
def test_invariant_chain_leaves_the_loop(n):
    check(body_chain, [X, np.int32(n)], PASS)
    inside = _loop_ops(body_chain, [X, np.int32(n)])
    for name in ("df.exp", "df.reduce_sum"):
        assert name not in inside
    assert "df.mul" in inside and "df.add" in inside   # they use loop values
    assert_idempotent(body_chain, [X, np.int32(2)], PASS)


def test_nested_loops_hoist_through_both():
    def f(x, n):
        def outer(i, acc):
            def inner(j, a):
                return j + 1, a + tf.reduce_max(tf.sqrt(tf.abs(W)))
            return i + 1, tf.while_loop(lambda j, a: j < n, inner, (tf.constant(0), acc))[1]
        return tf.while_loop(lambda i, a: i < n, outer, (tf.constant(0), x))[1]
    check(f, [X, np.int32(3)], PASS)
    inside = _loop_ops(f, [X, np.int32(3)])
    assert "df.sqrt" not in inside and "df.reduce_max" not in inside and "df.abs" not in inside
    assert_idempotent(f, [X, np.int32(3)], PASS)


def test_stateful_ops_and_their_users_stay():
    v = tf.Variable(1.5)

    def f(x, n):
        def body(i, acc):
            r = v.read_value() * 2.0        # read is stateful; the mul uses its result
            v.assign_add(1.0)
            return i + 1, acc + r
        return tf.while_loop(lambda i, a: i < n, body, (tf.constant(0), x))[1], v.read_value()
    check(f, [X, np.int32(3)], PASS, reset=lambda: v.assign(1.5))
    inside = _loop_ops(f, [X, np.int32(3)])
    assert inside.count("df.read_variable") == 1 and "df.assign_add_variable" in inside
    assert "df.mul" in inside
    v.assign(1.5)


@pytest.mark.parametrize("n", [0, 2])
def test_integer_division_stays_in_the_body(n):
    # d == 0: the division would raise; with n == 0 it never runs, so it must not move
    def f(x, d, n):
        def body(i, acc):
            return i + 1, acc + tf.cast(tf.math.floordiv(7, d), tf.float32)
        return tf.while_loop(lambda i, a: i < n, body, (tf.constant(0), x))[1]
    if n == 0:
        got = tf.function(f, passes=PASS)(X, tf.constant(0), tf.constant(0)).numpy()
        np.testing.assert_array_equal(got, X)
    else:
        check(f, [X, np.int32(3), np.int32(n)], PASS)
    assert "df.floordiv" in _loop_ops(f, [X, np.int32(3), np.int32(n)])


def test_float_division_moves_and_dynamic_shapes_stay():
    def f(x, n):
        def body(i, acc):
            return i + 1, acc + tf.reduce_sum(W / 3.0) + tf.reduce_sum(tf.exp(x))
        return tf.while_loop(lambda i, a: i < n, body, (tf.constant(0), x))[1]
    sig = [tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([], tf.int32)]
    g = tf.function(f, passes=PASS, input_signature=sig)
    m = g.get_concrete_function().optimized_module()
    inside = [o.name for w in m.walk() if isinstance(w, WhileOp) for o in w.walk() if o is not w]
    assert "df.div" not in inside          # static float: safe to run speculatively
    assert "df.exp" in inside              # x has an unknown dim: a shape error could raise
    np.testing.assert_array_equal(g(X, tf.constant(3)).numpy(),
                                  tf.function(f, passes="", input_signature=sig)(
                                      X, tf.constant(3)).numpy())
    check(f, [X, np.int32(3)], PASS)


def test_cond_region_constants_leave_the_loop():
    def f(x, n):
        return tf.while_loop(lambda i, a: i < n * 2 + 1, lambda i, a: (i + 1, a * 1.5),
                             (tf.constant(0), x))[1]
    check(f, [X, np.int32(2)], PASS)
    inside = _loop_ops(f, [X, np.int32(2)])
    # n * 2 + 1 and every constant leave; i < bound, i + 1 and a * 1.5 stay
    assert "df.const" not in inside
    assert inside.count("df.mul") == inside.count("df.add") == inside.count("df.less") == 1


def test_results_with_nan_and_inf():
    w = W.copy()
    w[0, 0], w[1, 1] = np.nan, np.inf

    def f(x, n):
        def body(i, acc):
            return i + 1, acc + tf.reduce_sum(tf.exp(w))
        return tf.while_loop(lambda i, a: i < n, body, (tf.constant(0), x))[1]
    check(f, [X, np.int32(2)], PASS)
    assert "df.exp" not in _loop_ops(f, [X, np.int32(2)])
