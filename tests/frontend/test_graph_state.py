"""Variables and side effects inside traced functions: capture by reference, assigns seen
from Python, creation rules, print/assert order, stateful random."""
import sys

import numpy as np
import pytest

import flowjit as tf


def test_variables_are_captured_by_reference():
    v = tf.Variable(2.0)

    @tf.function
    def f(x):
        return x * v

    assert float(f(tf.constant(3.0))) == 6.0
    v.assign(5.0)
    assert float(f(tf.constant(3.0))) == 15.0  # reads the current value, no retrace
    assert f.experimental_get_tracing_count() == 1
    cf = f.get_concrete_function(tf.constant(3.0))
    assert cf.variables == [v] and cf.captured_inputs == [v]


def test_assigns_inside_are_seen_from_python_in_order():
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def step(delta):
        v.assign_add(delta)
        first = v.read_value()
        v.assign(v * 10.0)
        v.assign_sub([1.0, 1.0])
        return first, v.read_value()

    first, last = step(tf.constant([1.0, 1.0]))
    np.testing.assert_allclose(first.numpy(), [2.0, 3.0])
    np.testing.assert_allclose(last.numpy(), [19.0, 29.0])
    np.testing.assert_allclose(v.numpy(), [19.0, 29.0])
    step(tf.constant([0.0, 0.0]))
    np.testing.assert_allclose(v.numpy(), [189.0, 289.0])


def test_bad_assign_inside_raises_at_trace_time_and_keeps_value():
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def f():
        v.assign([1.0, 2.0, 3.0])

    with pytest.raises(ValueError, match=r"assign.*Variable"):
        f()
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_variable_creation_first_trace_only():
    class Counter:
        def __init__(self):
            self.v = None

        @tf.function
        def __call__(self, x):
            if self.v is None:
                self.v = tf.Variable(tf.zeros([2]))
            self.v.assign_add(x)
            return self.v.read_value()

    c = Counter()
    np.testing.assert_allclose(c(tf.constant([1.0, 2.0])).numpy(), [1.0, 2.0])
    np.testing.assert_allclose(c(tf.constant([1.0, 2.0])).numpy(), [2.0, 4.0])

    @tf.function
    def bad(x):
        w = tf.Variable(1.0)
        return x * w

    # TF 2.21: the first call already raises (its trace is redone with creation refused), and
    # so does every later one; the text starts "tf.function only supports singleton
    # tf.Variables created on the first call. Make sure the tf.Variable is only created once
    # or created outside tf.function."
    for x in (tf.constant(1.0), tf.constant(1.0), tf.constant([1.0, 2.0])):
        with pytest.raises(ValueError, match="singleton tf.Variables created on the first call. "
                                             "Make sure the tf.Variable is only created once"):
            bad(x)


def test_init_scope_runs_eagerly():
    seen = {}

    @tf.function
    def f(x):
        with tf.init_scope():
            seen["eager"] = tf.constant(3.0) + 1.0
        return x + 1.0

    f(tf.constant(1.0))
    assert float(seen["eager"].numpy()) == 4.0


def test_print_order_and_format(capfd):
    v = tf.Variable(0)

    @tf.function
    def f(x):
        tf.print("first", x)
        v.assign_add(1)
        tf.print("v =", v, output_stream=sys.stdout)
        tf.print("last", x * 2, summarize=1)
        return x

    f(tf.constant([1, 2, 3]))
    out, err = capfd.readouterr()
    assert err == "first [1 2 3]\nlast [2 ... 6]\n"
    assert out == "v = 1\n"
    f(tf.constant([4, 5, 6]))
    out, err = capfd.readouterr()
    assert err == "first [4 5 6]\nlast [8 ... 12]\n" and out == "v = 2\n"


def test_asserts_raise_when_the_graph_runs(capfd):
    @tf.function
    def f(x, y):
        tf.print("before")
        tf.debugging.assert_equal(x, y, message="x and y differ")
        tf.print("after")
        return x + y

    np.testing.assert_array_equal(f(tf.constant([1, 2]), tf.constant([1, 2])).numpy(), [2, 4])
    capfd.readouterr()
    with pytest.raises(tf.errors.InvalidArgumentError, match="x and y differ"):
        f(tf.constant([1, 2]), tf.constant([1, 3]))
    _, err = capfd.readouterr()
    assert err == "before\n"  # ordered: the second print never ran


@pytest.mark.parametrize("name,x,y,ok", [
    ("assert_greater", [2, 3], [1, 2], True), ("assert_greater", [2, 3], [2, 2], False),
    ("assert_less", [1, 2], [2, 3], True), ("assert_less", [1, 5], [2, 3], False),
])
def test_assert_family_eager_and_graph(name, x, y, ok):
    fn = getattr(tf.debugging, name)
    traced = tf.function(lambda a, b: fn(a, b) or a)
    for run in (lambda: fn(tf.constant(x), tf.constant(y)),
                lambda: traced(tf.constant(x), tf.constant(y))):
        if ok:
            run()
        else:
            cond = "x > y" if name == "assert_greater" else "x < y"
            with pytest.raises(tf.errors.InvalidArgumentError, match=f"Condition {cond}"):
                run()


def test_assert_near_and_rank_and_Assert():
    tf.debugging.assert_near(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0 + 1e-7]))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.debugging.assert_near(tf.constant([1.0]), tf.constant([1.1]))
    tf.debugging.assert_rank(tf.zeros([2, 3]), 2)
    with pytest.raises(ValueError, match="rank 3"):
        tf.debugging.assert_rank(tf.zeros([2, 3]), 3)

    @tf.function
    def f(x):
        tf.debugging.Assert(tf.reduce_all(x > 0), ["x must be positive", x])
        return x

    f(tf.constant([1.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="x must be positive"):
        f(tf.constant([-1.0]))


def test_stateful_random_differs_per_call_and_is_reproducible():
    @tf.function
    def f():
        return tf.random.uniform([4], seed=7)

    tf.random.set_seed(1)
    a, b = f().numpy(), f().numpy()
    assert not np.array_equal(a, b)
    tf.random.set_seed(1)
    np.testing.assert_array_equal(f().numpy(), a)
