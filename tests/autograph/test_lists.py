"""Python lists appended to inside staged loops: staged as tensor lists (a preallocated
buffer when the trip count is known, XLA included; a growing one otherwise), read back with
tf.stack / tf.concat / indexing / len / iteration. Unstageable uses raise naming the line."""
import inspect

import numpy as np
import pytest

import flowjit as tf

# Staged lists are TF's optional Feature.LISTS (off by default, as in TF).
LISTS = {"experimental_autograph_options": tf.autograph.experimental.Feature.LISTS}


def f_append_rows(x):
    out = []
    for row in x:
        out.append(row * 2.0 + 1.0)
    return tf.stack(out)


def test_append_in_loop_over_tensor(call):
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_allclose(call(f_append_rows, tf.constant(x), **LISTS).numpy(),
                               x * 2.0 + 1.0)


def test_fixed_capacity_list_keeps_static_shape():
    cf = tf.function(f_append_rows, **LISTS).get_concrete_function(tf.zeros([5, 2]))
    assert cf.outputs[0].shape.as_list() == [5, 2]


def f_append_tensor_bound(n, x):
    acc = []
    i = 0
    while i < n:
        acc.append(x * tf.cast(i, tf.float32))
        i += 1
    return tf.stack(acc), len(acc)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_append_with_tensor_trip_count(n):
    x = np.array([1.0, -1.0], np.float32)
    for f, empty_shape in ((f_append_tensor_bound, (0,)),     # eager: tf.stack([]) as TF
                           (tf.function(f_append_tensor_bound, **LISTS), (0, 2))):
        stacked, length = f(tf.constant(n), tf.constant(x))
        ref = np.stack([x * i for i in range(n)]) if n else np.zeros(empty_shape, np.float32)
        np.testing.assert_allclose(stacked.numpy(), ref)
        assert int(length) == n


def f_conditional_append(x):
    kept = []
    for row in x:
        if tf.reduce_sum(row) > 0:
            kept.append(row)
    return tf.stack(kept)


def test_conditional_append():
    x = np.array([[1, 2], [-3, -4], [5, -1], [0, 0]], np.float32)
    out = tf.function(f_conditional_append, **LISTS)(tf.constant(x))
    np.testing.assert_allclose(out.numpy(), x[x.sum(1) > 0])


def f_nested_appends(x):
    flat = []
    for row in x:
        for v in row:
            flat.append(v * v)
        flat.append(tf.reduce_sum(row))
    return tf.stack(flat)


def test_appends_in_nested_loops(call):
    x = np.array([[1, 2], [3, 4], [5, 6]], np.float32)
    ref = []
    for row in x:
        ref += list(row * row) + [row.sum()]
    np.testing.assert_allclose(call(f_nested_appends, tf.constant(x), **LISTS).numpy(), ref)


def f_list_reads(x):
    vals = [x[0]]
    for row in x:
        vals.append(vals[-1] + row)
    total = 0.0
    for v in vals:
        total += tf.reduce_sum(v)
    return tf.concat(vals, 0), total, len(vals)


def test_list_reads_inside_and_after_loop(call):
    x = np.array([[1, 2], [3, 4], [5, 6]], np.float32)
    vals = [x[0]]
    for row in x:
        vals.append(vals[-1] + row)
    cat, total, n = call(f_list_reads, tf.constant(x), **LISTS)
    np.testing.assert_allclose(cat.numpy(), np.concatenate(vals))
    assert float(total) == float(sum(v.sum() for v in vals))
    assert int(n) == 4


def f_list_after_break(x, limit):
    out = []
    for v in x:
        if v > limit:
            break
        out.append(v)
    return tf.stack(out)


@pytest.mark.parametrize("limit", [-1.0, 2.5, 10.0])
def test_list_with_break(limit):
    x = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    out = tf.function(f_list_after_break, **LISTS)(tf.constant(x), tf.constant(limit))
    ref = []
    for v in x:
        if v > limit:
            break
        ref.append(v)
    np.testing.assert_allclose(out.numpy(), np.array(ref, np.float32))


def test_list_returned_directly_and_python_loops_unchanged():
    @tf.function(**LISTS)
    def f(x):
        staged = []
        for v in x:
            staged.append(v + 1.0)
        python = []
        for k in range(3):
            python.append(x * float(k))
        return staged, python

    staged, python = f(tf.constant([1.0, 2.0]))
    np.testing.assert_allclose(staged.numpy(), [2.0, 3.0])    # a staged list comes back stacked
    assert isinstance(python, list) and len(python) == 3
    np.testing.assert_allclose(python[2].numpy(), [2.0, 4.0])


def test_unsupported_list_use_raises_naming_the_line():
    def f(x):
        out = []
        for v in x:
            out.append(v)
            out.pop()
        return out

    line = inspect.getsourcelines(f)[1] + 4
    with pytest.raises(NotImplementedError, match=rf"line {line}, in f  \*\n +out.pop\(\)\n"
                                                  r"(.|\n)*`out.pop\(\)` cannot be staged"):
        tf.function(f, **LISTS)(tf.constant([1.0, 2.0]))


def test_mixed_dtype_appends_raise():
    def f(x):
        out = []
        for v in x:
            out.append(v)
            out.append(tf.cast(v, tf.int32))
        return tf.stack(out)

    with pytest.raises(TypeError, match="list 'out' is staged as a tensor list of float32 "
                                        "elements, but a int32 element is appended"):
        tf.function(f, **LISTS)(tf.constant([1.0, 2.0]))
