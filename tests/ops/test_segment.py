"""Segment reductions against NumPy loops written here, in every mode, with TF 2.21's
results and errors for the edge cases (empty segments, negative and out-of-range ids)."""
from __future__ import annotations

import re

import numpy as np
import pytest

import flowjit as tf
from flowjit.errors import InvalidArgumentError, UnimplementedError
from helpers import assert_close
from xla_helpers import MODES, run_mode


def reference(data, ids, n, how, empty):
    """Rows of data grouped by id (ids < 0 skipped), one Python loop per segment."""
    rows = data.reshape((ids.size,) + data.shape[ids.ndim:])
    flat = ids.reshape(-1)
    out = np.full((n,) + data.shape[ids.ndim:], empty, data.dtype)
    for s in range(n):
        picked = rows[flat == s]
        if len(picked):
            out[s] = {"sum": picked.sum(0), "mean": picked.mean(0), "max": picked.max(0)}[how]
    return out


RNG = np.random.default_rng(11)
DATA = RNG.uniform(-3, 3, (7, 2)).astype(np.float32)
SORTED_IDS = np.array([0, 0, 1, 3, 3, 3, 4], np.int32)        # segment 2 is empty
UNSORTED_IDS = np.array([2, -1, 0, 2, 5, 0, 2], np.int64)     # -1 dropped, 1/3/4 empty


@pytest.mark.parametrize("how", ["sum", "mean", "max"])
@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_sorted(how, mode):
    got = run_mode(mode, getattr(tf.math, f"segment_{how}"), DATA, SORTED_IDS)
    # TF 2.21: an empty segment of segment_max is 0 (not the lowest value).
    assert_close(got, reference(DATA, SORTED_IDS, 5, how, 0))


@pytest.mark.parametrize("how", ["sum", "max"])
@pytest.mark.parametrize("mode", MODES)
def test_unsorted(how, mode):
    fn = getattr(tf.math, f"unsorted_segment_{how}")
    got = run_mode(mode, lambda d, i: fn(d, i, 6), DATA, UNSORTED_IDS)
    # TF 2.21: an empty segment of unsorted_segment_max is the lowest float32 (-3.4028235e38).
    empty = 0 if how == "sum" else np.finfo(np.float32).min
    assert_close(got, reference(DATA, UNSORTED_IDS, 6, how, empty))


@pytest.mark.parametrize("mode", MODES)
def test_unsorted_ids_of_rank_two_and_int_data(mode):
    data = RNG.integers(-5, 5, (2, 3, 2)).astype(np.int32)
    ids = np.array([[1, 0, 1], [3, 1, 0]], np.int32)
    got = run_mode(mode, lambda d, i: tf.math.unsorted_segment_max(d, i, 4), data, ids)
    assert_close(got, reference(data, ids, 4, "max", np.iinfo(np.int32).min))


def test_tf_recorded_values():
    d = tf.constant([1., 2., 3., 4., 5.])
    # TF 2.21: segment_mean(d, [0,0,2,2,3]) = [1.5, 0, 3.5, 5]; segment_max = [2, 0, 4, 5].
    np.testing.assert_array_equal(tf.math.segment_mean(d, [0, 0, 2, 2, 3]).numpy(),
                                  [1.5, 0, 3.5, 5])
    np.testing.assert_array_equal(tf.math.segment_max(d, [0, 0, 2, 2, 3]).numpy(), [2, 0, 4, 5])
    # TF 2.21: unsorted_segment_sum(d, [0,-1,2,2,1], 3) = [1, 5, 7].
    np.testing.assert_array_equal(
        tf.math.unsorted_segment_sum(d, [0, -1, 2, 2, 1], 3).numpy(), [1, 5, 7])


@pytest.mark.parametrize("call, text", [
    # TF 2.21's texts for each bad input.
    (lambda: tf.math.unsorted_segment_sum([1., 2., 3.], [0, 5, 1], 3),
     "segment_ids[1] = 5 is out of range [0, 3)"),
    (lambda: tf.math.unsorted_segment_sum([1., 2., 3.], [0, 1], 3),
     "data.shape = [3] does not start with segment_ids.shape = [2]"),
    (lambda: tf.math.segment_sum([1., 2., 3.], [0, 2, 1]), "segment ids are not increasing"),
    (lambda: tf.math.segment_sum([1., 2.], [-1, 0]),
     "Segment id -1 out of range [0, 1), possibly because 'segment_ids' input is not sorted."),
])
def test_bad_ids_raise(call, text):
    with pytest.raises(InvalidArgumentError, match=re.escape(text)):
        call()


def test_sorted_under_xla_is_refused_naming_the_op():
    # TF 2.21 refuses too: "No registered 'SegmentSum' OpKernel for XLA_CPU_JIT devices".
    f = tf.function(lambda d, i: tf.math.segment_sum(d, i), jit_compile=True)
    with pytest.raises(UnimplementedError, match="segment_sum"):
        f(tf.constant(DATA), tf.constant(SORTED_IDS))


def test_num_segments_from_an_argument():
    """TF takes num_segments as a tensor: the executor reads it at run time; XLA needs it
    from shapes (a value computed from an argument's value has no compile-time constant)."""
    def seg(d, i, n):
        return tf.math.unsorted_segment_sum(d, i, n)
    d, i = tf.constant([1.0, 2.0, 3.0]), tf.constant([0, 2, 0])
    out = tf.function(seg)(d, i, tf.constant(4))
    assert out.shape == (4,) and out.numpy().tolist() == [4.0, 0.0, 2.0, 0.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="compile-time constant"):
        tf.function(seg, jit_compile=True)(d, i, tf.constant(4))
