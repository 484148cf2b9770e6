"""`debug-stripper`: asserts disappear (a failing assert no longer raises), everything else
keeps its order and results; off by default, on with TF's `debug_stripper` option."""
import io

import numpy as np
import pytest

import flowjit as tf
from flowjit.errors import InvalidArgumentError
from flowjit.passes.pipeline import default_passes
from pass_helpers import assert_idempotent, check, op_counts

PASS = "debug-stripper"
X = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)


def checked(x):
    tf.debugging.assert_less(x, 100.0)
    y = x * 2.0
    tf.debugging.Assert(tf.reduce_all(y < 1000.0), [y])
    return y


def test_asserts_removed_results_unchanged():
    counts, _ = check(checked, [X], PASS, xla=False)   # asserts cannot run under XLA
    assert counts["df.assert"] == 0
    counts, _ = check(checked, [X], PASS + ",dce", base="", xla=False)
    assert counts["df.assert"] == 0 and counts["df.less"] == 0 and counts["df.reduce_all"] == 0
    assert_idempotent(checked, [X], PASS)


def test_failing_assert_no_longer_raises():
    big = X + 500.0
    with pytest.raises(InvalidArgumentError, match="assert"):
        tf.function(checked, passes="")(big)
    np.testing.assert_array_equal(tf.function(checked, passes=PASS)(big).numpy(), big * 2)
    # stripped, the function also compiles for XLA (asserts have no XLA lowering)
    np.testing.assert_array_equal(
        tf.function(checked, passes=PASS, jit_compile=True)(big).numpy(), big * 2)


def test_token_chain_rethreaded_in_order():
    v = tf.Variable(0.0)
    log = io.StringIO()

    def f(x):
        tf.print("a", output_stream=log)
        tf.debugging.assert_greater(tf.abs(x) + 1.0, 0.0)
        v.assign_add(1.0)
        tf.debugging.Assert(v.read_value() > 0, [v.read_value()])
        tf.print("b", v.read_value(), output_stream=log)
        return v.read_value()

    def reset():
        v.assign(0.0)
        log.seek(0)
        log.truncate()
    counts, _ = check(f, [X], PASS, reset=reset, xla=False)
    assert counts["df.assert"] == 0 and counts["df.print"] == 2
    reset()
    assert float(tf.function(f, passes=PASS)(X)) == 1.0
    assert log.getvalue().split() == ["a", "b", "1"]
    reset()


def test_assert_inside_control_flow():
    def f(x, n):
        def body(i, a):
            tf.debugging.assert_less(i, n)
            return i + 1, a + 1.0
        y = tf.while_loop(lambda i, a: i < n, body, (tf.constant(0), x))[1]
        return tf.cond(n > 2, lambda: (tf.debugging.Assert(n > 2, [n]), y)[1], lambda: -y)
    for n in (0, 3):
        counts, _ = check(f, [X, np.int32(n)], PASS, xla=False)
        assert counts["df.assert"] == 0
    assert_idempotent(f, [X, np.int32(1)], PASS)


def test_off_by_default_on_with_tf_option():
    assert PASS not in default_passes()
    f = tf.function(checked)
    assert op_counts(f.get_concrete_function(tf.constant(X)).optimized_module())["df.assert"]
    tf.config.optimizer.set_experimental_options({"debug_stripper": True})
    try:
        assert PASS in default_passes()
        g = tf.function(checked)
        assert op_counts(g.get_concrete_function(tf.constant(X)).optimized_module())[
            "df.assert"] == 0
    finally:
        from flowjit.passes import pipeline
        pipeline._options.pop("debug_stripper", None)
