"""`tf.print` and asserts inside `jit_compile=True`, through XLA host callbacks: the text
and its order are the executor's (TF's), on every call, in loops and branches too; a failed
assert raises InvalidArgumentError after the call naming the user's line, and nothing after
it prints."""
import inspect
import sys

import numpy as np
import pytest

import flowjit as tf


def _program(x, n):
    tf.print("start", x, output_stream=sys.stdout)
    for i in tf.range(n):
        tf.print("step", i, x[i], output_stream=sys.stdout)
    if tf.reduce_sum(x) > 0:
        tf.print("positive", tf.reduce_sum(x), output_stream=sys.stdout)
    else:
        tf.print("not positive", summarize=1, output_stream=sys.stdout)
    tf.print("end", x * 2, output_stream=sys.stdout)
    return x * 2


def _printed(fn, capsys, *args):
    capsys.readouterr()
    result = fn(*args)
    return capsys.readouterr().out, result


@pytest.mark.parametrize("values", [[1.5, -2.0, 3.0, 0.25], [-1.0, -2.0, 0.0, np.nan]])
def test_print_under_xla_is_the_executors_text_in_order(values, capsys):
    x, n = tf.constant(values), tf.constant(3)
    graph = tf.function(_program)
    xla = tf.function(_program, jit_compile=True)
    expected, _ = _printed(graph, capsys, x, n)
    assert expected.startswith("start [") and expected.count("step") == 3
    for _ in range(2):           # every call prints, not only the compiling one
        got, result = _printed(xla, capsys, x, n)
        assert got == expected
        np.testing.assert_array_equal(result.numpy(), np.asarray(values, np.float32) * 2)


def _checked(x):
    tf.print("before", output_stream=sys.stdout)
    tf.debugging.assert_less(x, 10.0, message="x too large")
    tf.print("after", output_stream=sys.stdout)
    return x + 1


ASSERT_LINE = inspect.getsourcelines(_checked)[1] + 2


def test_assert_under_xla_raises_after_the_call_naming_the_line(capsys):
    f = tf.function(_checked, jit_compile=True)
    out, result = _printed(f, capsys, tf.constant([1.0, 2.0]))
    assert out == "before\nafter\n" and result.numpy().tolist() == [2.0, 3.0]
    capsys.readouterr()
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.constant([1.0, 12.0]))
    message = str(info.value)
    assert "x too large" in message and "Condition x < y did not hold" in message
    assert f"{__file__}:{ASSERT_LINE}" in message
    assert capsys.readouterr().out == "before\n"       # nothing after the failed assert
    out, result = _printed(f, capsys, tf.constant([3.0, 4.0]))   # the next call is clean
    assert out == "before\nafter\n" and result.numpy().tolist() == [4.0, 5.0]


def test_tf_assert_in_a_loop_under_xla():
    @tf.function(jit_compile=True)
    def f(x):
        total = tf.constant(0.0)
        for i in tf.range(4):
            total += x[i]
            tf.Assert(total < 5.0, ["running total", total])
        return total

    assert float(f(tf.constant([1.0, 1.0, 1.0, 1.0]))) == 4.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="running total"):
        f(tf.constant([1.0, 1.0, 4.0, 1.0]))
