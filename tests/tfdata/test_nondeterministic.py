"""`deterministic=False` (or `tf.data.Options().deterministic = False`) lets parallel `map`,
`interleave` and `batch` yield elements as they complete; the default keeps the input order.

Element 0 is slow: its function waits until the consumer has received another element (or
`wait` seconds). Out of order, another element arrives first and releases it; in order,
element 0 comes first whatever the timings."""
import threading

import numpy as np
import pytest

import flowjit as tf


def _slow_first_map(released, wait):
    def hold(v):
        if v == 0:
            released.wait(wait)
        return v

    return lambda x: tf.numpy_function(hold, [x], tf.int64)


def _consume(ds, released):
    """The elements in the order they arrive; `released` set once the first one is in."""
    out = []
    for x in ds:
        out.append(int(x))
        released.set()
    return out


def _options(deterministic):
    options = tf.data.Options()
    options.deterministic = deterministic
    return options


# (map's deterministic argument, the pipeline's option, whether the order is kept): what
# TF 2.21 does with the same slow first element
MAP_CASES = [
    (False, None, False),
    (None, False, False),
    (True, False, True),    # the argument wins over the option
    (False, True, False),
    (None, None, True),     # deterministic by default
    (None, True, True),
]


@pytest.mark.parametrize("argument,option,in_order", MAP_CASES)
def test_parallel_map_order(argument, option, in_order):
    released = threading.Event()
    ds = tf.data.Dataset.range(6).map(_slow_first_map(released, 30 if not in_order else 0.2),
                                      num_parallel_calls=3, deterministic=argument)
    if option is not None:
        ds = ds.with_options(_options(option))
    got = _consume(ds, released)
    assert sorted(got) == list(range(6))
    assert (got == list(range(6))) == in_order
    if not in_order:
        assert got[0] != 0


def _held_inner(released, wait):
    def gen(x):
        if x == 0:
            released.wait(wait)
        for i in range(3):
            yield 10 * x + i

    return lambda x: tf.data.Dataset.from_generator(
        gen, args=(x,), output_signature=tf.TensorSpec([], tf.int64))


@pytest.mark.parametrize("deterministic", [False, True])
def test_parallel_interleave_order(deterministic):
    released = threading.Event()
    ds = tf.data.Dataset.range(3).interleave(
        _held_inner(released, 0.2 if deterministic else 30), cycle_length=2,
        num_parallel_calls=2, deterministic=deterministic)
    got = _consume(ds, released)
    assert sorted(got) == [0, 1, 2, 10, 11, 12, 20, 21, 22]
    if deterministic:
        assert got == [0, 10, 1, 11, 2, 12, 20, 21, 22]   # TF's cycle
    else:
        assert got[0] != 0


def test_parallel_interleave_error_reaches_the_consumer():
    def gen(x):
        yield x
        raise ValueError("bad file")

    ds = tf.data.Dataset.range(2).interleave(
        lambda x: tf.data.Dataset.from_generator(
            gen, args=(x,), output_signature=tf.TensorSpec([], tf.int64)),
        cycle_length=2, num_parallel_calls=2, deterministic=False)
    with pytest.raises(Exception, match="bad file"):
        list(ds)


@pytest.mark.parametrize("gathered", [False, True])
def test_parallel_batch_unordered_gives_the_same_batches(gathered):
    # slices are gathered by index; a map in front makes the batches stacked from rows
    ds = tf.data.Dataset.from_tensor_slices(np.arange(23))
    if not gathered:
        ds = ds.map(lambda x: x * 2)
    batches = ds.batch(4, num_parallel_calls=3, deterministic=False)
    got = sorted(tuple(b.numpy().tolist()) for b in batches)
    scale = 1 if gathered else 2
    assert got == sorted(tuple(scale * v for v in range(i, min(i + 4, 23)))
                         for i in range(0, 23, 4))
    ordered = [b.numpy().tolist() for b in ds.batch(4, num_parallel_calls=3)]
    assert ordered == [[scale * v for v in range(i, min(i + 4, 23))] for i in range(0, 23, 4)]
