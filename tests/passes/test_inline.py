"""`inline`: a `df.case` whose branch is known at compile time (constant index, or a single
branch) is replaced by that branch's ops; side effects keep their order; results unchanged;
idempotent. (Nested tf.function calls are inlined at trace time: there is no call op.)"""
import io

import numpy as np

import flowjit as tf
from flowjit.ir.dialect import CaseOp, CondOp
from pass_helpers import assert_idempotent, check

PASS = "inline"
X = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)


def _count(fn, args, cls, passes=PASS):
    f = tf.function(fn, passes=passes)
    m = f.get_concrete_function(*[tf.constant(a) for a in args]).optimized_module()
    return sum(isinstance(o, cls) for o in m.walk())


def test_constant_index_inlines_the_branch():
    def f(x):
        branches = [lambda: x + 1.0, lambda: tf.exp(x), lambda: -x]
        return (tf.switch_case(tf.constant(1), branches),
                tf.switch_case(tf.constant(-4), branches),   # out of range: the last
                tf.switch_case(tf.constant(9), branches))
    check(f, [X], PASS)
    assert _count(f, [X], CaseOp, "") == 3 and _count(f, [X], CaseOp) == 0
    assert_idempotent(f, [X], PASS)


def test_runtime_index_stays_and_cond_is_left_to_constant_folding():
    def f(x, i):
        return (tf.switch_case(i, [lambda: x + 1.0, lambda: x * 3.0]),
                tf.cond(tf.constant(True), lambda: x * 2.0, lambda: x))
    for i in (0, 1, 5):
        check(f, [X, np.int32(i)], PASS)
    assert _count(f, [X, np.int32(0)], CaseOp) == 1
    assert _count(f, [X, np.int32(0)], CondOp) == 1
    assert _count(f, [X, np.int32(0)], CondOp, "constant-folding") == 0


def test_nested_and_with_side_effects_in_order():
    log = io.StringIO()
    v = tf.Variable(1.0)

    def f(x):
        def inner():
            tf.print("inner", output_stream=log)
            v.assign_add(2.0)
            return tf.switch_case(tf.constant(0), [lambda: x * v.read_value(), lambda: x])
        tf.print("before", output_stream=log)
        y = tf.switch_case(tf.constant(1), [lambda: x, inner])
        tf.print("after", output_stream=log)
        return y

    def reset():
        v.assign(1.0)
        log.seek(0)
        log.truncate()
    check(f, [X], PASS, reset=reset, xla=False)     # print does not run under XLA
    assert _count(f, [X], CaseOp) == 0
    reset()
    np.testing.assert_array_equal(tf.function(f, passes=PASS)(X).numpy(), X * 3.0)
    assert log.getvalue().split() == ["before", "inner", "after"]
    assert_idempotent(f, [X], PASS)
    reset()


def test_nested_tf_function_calls_are_inlined_at_trace_time():
    @tf.function
    def g(x):
        return x * 2.0

    def f(x):
        return g(x) + 1.0
    m = tf.function(f, passes="").get_concrete_function(tf.constant(X)).dataflow_module()
    names = [o.name for o in m.walk()]
    assert "df.mul" in names and not any("call" in n for n in names)
