"""SparseTensor and RaggedTensor dataset elements: TF 2.21's recorded specs, elements and
errors (composite_cases.py, tools/record_tfdata_composite.py), and what a recording cannot
show: loops inside tf.function, reduce, shuffles, cache files and as_numpy_iterator."""
import json
import os

import numpy as np
import pytest

import flowjit as tf

from tfdata import composite_cases as cases

RECORDED = json.load(open(os.path.join(os.path.dirname(__file__), "..", "data",
                                       "tfdata_composite.json")))


def test_every_case_is_recorded():
    assert sorted(RECORDED["datasets"]) == sorted(cases.DATASETS)
    assert sorted(RECORDED["errors"]) == sorted(cases.ERRORS)


@pytest.mark.parametrize("name", sorted(cases.DATASETS))
def test_dataset_matches_tf(name):
    got = cases.dataset_record(tf, cases.DATASETS[name])
    assert got == RECORDED["datasets"][name]


@pytest.mark.parametrize("name", sorted(cases.ERRORS))
def test_error_matches_tf(name):
    got = cases.error_record(tf, cases.ERRORS[name])
    want = RECORDED["errors"][name]
    assert got["class"] == want["class"], got
    # TF names the pipeline stage before some run-time texts ("Error in user-defined
    # function passed to MapDataset:169 ..."): flowjit's text is what follows
    assert got["message"] and want["message"].endswith(got["message"]), (got, want)


def _sparse():
    return tf.sparse.SparseTensor(indices=[[0, 0], [1, 2], [3, 1]], values=[1, 2, 3],
                                  dense_shape=[5, 4])


def _ragged():
    return tf.ragged.constant([[1, 2], [3], [], [4, 5, 6], [7]])


def test_loops_inside_function():
    sparse = tf.data.Dataset.from_tensor_slices(_sparse())
    ragged = tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[[1], [2, 3]], [], [[4]]]))

    @tf.function
    def sparse_sum(ds):
        total = tf.constant(0)
        for x in ds:
            total += tf.reduce_sum(tf.sparse.to_dense(x)) * tf.cast(x.dense_shape[0], tf.int32)
        return total

    @tf.function
    def ragged_rows(ds):
        it = iter(ds)
        first, second = next(it), next(it)
        return first.row_lengths(), second.nrows(), tf.reduce_sum(first.flat_values)

    @tf.function
    def first_or_empty(ds):
        opt = iter(ds).get_next_as_optional()
        return opt.has_value(), tf.sparse.to_dense(opt.get_value())

    assert int(sparse_sum(sparse)) == 24
    assert int(sparse_sum(sparse.batch(2))) == (1 + 2) * 2 + 3 * 2   # dense_shape[0]: rows
    has, first = first_or_empty(sparse)
    assert bool(has) and first.numpy().tolist() == [1, 0, 0, 0]
    has, _ = first_or_empty(sparse.take(0))
    assert not bool(has)
    lengths, nrows, total = ragged_rows(ragged)
    assert lengths.numpy().tolist() == [1, 2] and int(nrows) == 0 and int(total) == 6
    with pytest.raises(tf.errors.InvalidArgumentError, match="IteratorGetNext"):
        tf.function(lambda ds: next(iter(ds)), jit_compile=True)(sparse)


def test_reduce_with_composite_state_eagerly_and_traced():
    ds = tf.data.Dataset.from_tensor_slices(_sparse())

    def add(state, x):
        return tf.sparse.SparseTensor(state.indices, state.values + tf.reduce_sum(x.values),
                                      state.dense_shape)
    start = tf.sparse.SparseTensor([[1]], [10], [3])
    eager = ds.reduce(start, add)
    traced = tf.function(lambda: ds.reduce(start, add))()
    for out in (eager, traced):
        assert isinstance(out, tf.SparseTensor)
        assert tf.sparse.to_dense(out).numpy().tolist() == [0, 16, 0]


@pytest.mark.parametrize("batch", [1, 2, 3])
def test_shuffle_keeps_every_element(batch):
    ds = tf.data.Dataset.from_tensor_slices(_ragged()).shuffle(
        5, seed=3, reshuffle_each_iteration=False).ragged_batch(batch)
    rows = [r for b in ds for r in b.to_list()]
    assert sorted(map(tuple, rows)) == sorted(map(tuple, _ragged().to_list()))
    # an order drawn once is the order of every pass
    assert [r for b in ds for r in b.to_list()] == rows


def test_cache_file_round_trip(tmp_path):
    ds = tf.data.Dataset.zip((tf.data.Dataset.from_tensor_slices(_sparse()),
                              tf.data.Dataset.from_tensor_slices(_ragged())))
    path = str(tmp_path / "cache")

    def values(d):
        return [(tf.sparse.to_dense(s).numpy().tolist(), r.numpy().tolist()) for s, r in d]
    first = values(ds.cache(path))
    replay = ds.map(lambda s, r: (s * 0, r * 0)).cache(path)   # the file answers, not the map
    assert values(replay) == first and first[3] == ([0, 3, 0, 0], [4, 5, 6])


def test_as_numpy_iterator_densifies_sparse_and_lists_ragged_rows():
    sparse = list(tf.data.Dataset.from_tensor_slices(_sparse()).as_numpy_iterator())
    assert np.array_equal(np.stack(sparse), tf.sparse.to_dense(_sparse()).numpy())
    (rows,) = tf.data.Dataset.from_tensors(_ragged()).as_numpy_iterator()
    assert rows.dtype == object and [r.tolist() for r in rows] == _ragged().to_list()


def test_map_signature_holds_the_composite_spec():
    seen = []

    def fn(x):
        seen.append(x)
        return x.values
    tf.data.Dataset.from_tensor_slices(_sparse()).map(fn)
    assert len(seen) == 1 and isinstance(seen[0], tf.SparseTensor)
    assert seen[0].shape.as_list() == [4]
