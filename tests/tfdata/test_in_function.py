"""Datasets and iterators inside `tf.function`: AutoGraph's `for` (with break, return and
loop-carried state), `iter`/`next` on a captured or passed iterator, `Dataset.reduce`, a
dataset built inside the function, and TF's refusal under `jit_compile=True`."""
import numpy as np
import pytest

import flowjit as tf


def _sum_squares(ds):
    total = tf.constant(0, tf.int64)
    count = tf.constant(0, tf.int64)
    for x in ds:
        total += x * x
        count += 1
    return total, count


@pytest.mark.parametrize("n", [0, 1, 7])
def test_for_over_dataset_carries_state(n):
    f = tf.function(_sum_squares)
    ds = tf.data.Dataset.range(n)
    want = (sum(i * i for i in range(n)), n)
    for _ in range(2):   # each call iterates the dataset from its first element
        total, count = f(ds)
        assert (int(total), int(count)) == want
    assert f.experimental_get_tracing_count() == 1


def test_for_with_break_and_batches():
    @tf.function
    def first_rows(ds):
        acc = tf.zeros([3], tf.float32)
        for x, y in ds:
            if tf.reduce_sum(y) > 10.0:
                break
            acc += tf.reduce_sum(x, axis=0) * 0.0 + y[0]
        return acc

    xs = np.arange(24, dtype=np.float32).reshape(8, 3)
    ys = np.arange(8, dtype=np.float32)
    ds = tf.data.Dataset.from_tensor_slices((xs, ys)).batch(3)
    # batch sums of ys: 3, 12, ...: the loop stops at the second batch, keeping the first
    np.testing.assert_array_equal(first_rows(ds).numpy(), np.zeros(3) + 0.0)


def test_for_with_return_inside_raises_as_tf():
    @tf.function
    def find(ds, target):
        for i, x in ds:
            if x == target:
                return i
        return tf.constant(-1, tf.int64)

    ds = tf.data.Dataset.from_tensor_slices(np.array([5, 9, 9, 2], np.int64)).enumerate()
    # TF 2.21 refuses a return inside a staged dataset loop as inside a tf.range loop
    with pytest.raises(NotImplementedError, match="^in user code:(.|\n)*a return statement "
                                                  "cannot be placed inside this TensorFlow "
                                                  "loop"):
        find(ds, tf.constant(9, tf.int64))


def test_break_consumes_no_extra_element_from_iterator():
    it = iter(tf.data.Dataset.range(10))

    @tf.function
    def take_until_three(it):
        s = tf.constant(0, tf.int64)
        for x in it:
            s += x
            if x >= 3:
                break
        return s

    assert int(take_until_three(it)) == 0 + 1 + 2 + 3
    # as TF: the loop over an iterator continues where it stopped
    assert int(next(it)) == 4
    assert int(take_until_three(it)) == 5   # 5 >= 3: one element, then break


def test_python_enumerate_and_zip_of_datasets_stay_datasets():
    @tf.function
    def weighted(a, b):
        acc = tf.constant(0, tf.int64)
        for i, (x, y) in enumerate(zip(a, b), 1):
            acc += i * x * y
        return acc

    a, b = tf.data.Dataset.range(4), tf.data.Dataset.range(10, 13)
    assert int(weighted(a, b)) == 1 * 0 * 10 + 2 * 1 * 11 + 3 * 2 * 12


def test_next_on_captured_and_passed_iterator():
    it = iter(tf.data.Dataset.from_tensor_slices(np.array([1.5, 2.5, 4.0], np.float32)))

    @tf.function
    def pair(it):
        return next(it) + it.get_next()

    assert float(pair(it)) == 4.0
    with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
        pair(it)

    captured = iter(tf.data.Dataset.range(3))

    @tf.function
    def step():
        return captured.get_next() * 10

    assert [int(step()) for _ in range(3)] == [0, 10, 20]


def test_get_next_as_optional_in_function():
    it = iter(tf.data.Dataset.range(1))

    @tf.function
    def pull(it):
        opt = it.get_next_as_optional()
        return opt.has_value(), opt.get_value()

    has, value = pull(it)
    assert bool(has) and int(value) == 0
    has, _ = pull(it)
    assert not bool(has)


def test_reduce_in_function_and_eagerly():
    ds = tf.data.Dataset.range(1, 6).map(lambda x: (x, tf.cast(x, tf.float32)))

    def red(ds):
        return ds.reduce((tf.constant(1, tf.int64), tf.constant(0.0)),
                         lambda s, e: (s[0] * e[0], s[1] + e[1]))

    for fn in (red, tf.function(red)):
        prod, total = fn(ds)
        assert int(prod) == 120 and float(total) == 15.0
    empty = tf.data.Dataset.range(0)
    assert int(tf.function(lambda d: d.reduce(tf.constant(7, tf.int64),
                                              lambda s, x: s + x))(empty)) == 7


def test_dataset_built_inside_function():
    @tf.function
    def build():
        ds = tf.data.Dataset.range(4).map(lambda x: x * 3).batch(3)
        total = tf.constant(0, tf.int64)
        for b in ds:
            total += tf.reduce_sum(b)
        return total

    assert int(build()) == 18
    assert int(build()) == 18


def test_print_in_map_runs_per_element_python_side_effect_once(capsys):
    traces = []

    def f(x):
        traces.append(1)            # Python: runs while the map function is traced
        tf.print("elem", x)         # a graph op: runs for every element
        return x + 1

    ds = tf.data.Dataset.range(3).map(f)
    assert [int(v) for v in ds] == [1, 2, 3]
    assert [int(v) for v in ds] == [1, 2, 3]
    assert len(traces) == 1
    assert capsys.readouterr().err.count("elem") == 6


def test_jit_compile_refuses_iterator_ops():
    @tf.function(jit_compile=True)
    def f(ds):
        s = tf.constant(0, tf.int64)
        for x in ds:
            s += x
        return s

    with pytest.raises(tf.errors.InvalidArgumentError, match="IteratorGetNext"):
        f(tf.data.Dataset.range(3))
