"""Functions that return datasets (`interleave`, `flat_map`) are traced once, as TF traces
them: their Python runs once when the transformation is built, their `tf.print`s run per
element, and the datasets they build per element are the same as a per-element call's."""
import flowjit as tf


def _counting(build):
    calls = []

    def fn(*args):
        calls.append(1)
        return build(*args)

    return fn, calls


def test_interleave_function_runs_once_and_its_print_per_element(capfd):
    def build(x):
        tf.print("element", x)
        return tf.data.Dataset.range(x * 2).map(lambda y: y * 10).batch(2)

    fn, calls = _counting(build)
    ds = tf.data.Dataset.range(1, 4).interleave(fn, cycle_length=2)
    assert len(calls) == 1
    assert repr(ds.element_spec) == "TensorSpec(shape=(None,), dtype=tf.int64, name=None)"
    capfd.readouterr()
    expected = [[0, 10], [0, 10], [20, 30], [0, 10], [20, 30], [40, 50]]
    for _ in range(2):
        assert [b.numpy().tolist() for b in ds] == expected
    printed = capfd.readouterr()
    assert (printed.out + printed.err).split("\n").count("element 2") == 2
    assert len(calls) == 1


def test_map_inside_the_returned_dataset_is_traced_once():
    fn, calls = _counting(lambda y: y + 1)
    ds = tf.data.Dataset.range(4).flat_map(lambda x: tf.data.Dataset.range(x).map(fn))
    assert [int(v) for v in ds] == [1, 1, 2, 1, 2, 3]
    assert len(calls) == 1


def test_flat_map_of_windows_and_nested_interleaves():
    windows = tf.data.Dataset.range(7).window(3, shift=2)
    fn, calls = _counting(lambda d: d.batch(3))
    assert [b.numpy().tolist() for b in windows.flat_map(fn)] == \
        [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6]]
    assert [int(v) for v in windows.flat_map(lambda d: d)] == [0, 1, 2, 2, 3, 4, 4, 5, 6, 6]
    inner, inner_calls = _counting(lambda y: tf.data.Dataset.range(y))
    nested = tf.data.Dataset.range(4).flat_map(
        lambda x: tf.data.Dataset.range(x).interleave(inner, cycle_length=1))
    assert [int(v) for v in nested] == [0, 0, 0, 1]   # range(y) for y < x < 4
    assert len(calls) == len(inner_calls) == 1


def test_element_tensors_reach_the_sources():
    fn, calls = _counting(lambda name: tf.data.Dataset.from_tensors(
        tf.strings.join([name, "!"])).repeat(2))
    ds = tf.data.Dataset.from_tensor_slices(["a", "bc"]).flat_map(fn)
    assert [v.numpy() for v in ds] == [b"a!", b"a!", b"bc!", b"bc!"]
    assert len(calls) == 1


def test_a_dataset_subclass_built_in_new_is_made_once():
    made = []

    class Counted(tf.data.Dataset):
        def __new__(cls, n):
            made.append(1)
            return tf.data.Dataset.range(n)

    ds = tf.data.Dataset.range(3).interleave(lambda x: Counted(x + 1), cycle_length=1)
    assert [int(v) for v in ds] == [0, 0, 1, 0, 1, 2]
    assert len(made) == 1


def test_a_map_reading_the_element_is_traced_per_element_the_function_once():
    outer, outer_calls = _counting(lambda x: tf.data.Dataset.range(x).map(lambda y: y * 10 + x))
    ds = tf.data.Dataset.range(1, 4).interleave(outer, cycle_length=1)
    for _ in range(2):
        assert [int(v) for v in ds] == [1, 2, 12, 3, 13, 23]
    assert len(outer_calls) == 1


def test_a_function_the_trace_cannot_follow_runs_per_element():
    # the element read as a Python number: built per element from its value
    fn, calls = _counting(lambda x: tf.data.Dataset.range(int(x.numpy())))
    ds = tf.data.Dataset.range(1, 4).flat_map(fn)
    assert [int(v) for v in ds] == [0, 0, 1, 0, 1, 2]
    assert len(calls) == 2 + 3   # the failed trace, the placeholder probe, each element


def test_a_function_returning_a_tensor_is_refused():
    import pytest
    with pytest.raises(TypeError, match="must return a `Dataset` object"):
        tf.data.Dataset.range(3).flat_map(lambda x: x + 1)


def test_group_by_window_reduce_function_runs_once():
    fn, calls = _counting(lambda key, window: window.batch(3))
    ds = tf.data.Dataset.range(10).group_by_window(lambda x: x % 2, fn, window_size=3)
    assert [b.numpy().tolist() for b in ds] == [[0, 2, 4], [1, 3, 5], [6, 8], [7, 9]]
    assert len(calls) == 1


def test_group_by_window_size_function_runs_once():
    fn, calls = _counting(lambda key: key + 2)
    ds = tf.data.Dataset.range(10).group_by_window(
        lambda x: x % 2, lambda key, window: window.batch(4), window_size_func=fn)
    # TF 2.21: the windows left at the end come out by key
    assert [b.numpy().tolist() for b in ds] == [[0, 2], [1, 3, 5], [4, 6], [8], [7, 9]]
    assert len(calls) == 1
