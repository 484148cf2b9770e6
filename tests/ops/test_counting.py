"""unique, unique_with_counts, bincount, searchsorted and histogram_fixed_width against NumPy
in every mode they support, with TF 2.21's values and error texts."""
from __future__ import annotations

import re

import numpy as np
import pytest

import flowjit as tf
from flowjit.errors import InvalidArgumentError, UnimplementedError
from xla_helpers import MODES, run_mode

RNG = np.random.default_rng(21)


def unique_reference(x):
    """First-appearance order, by a Python loop."""
    y, idx, count = [], [], []
    for v in x.tolist():
        if v not in y:
            y.append(v)
            count.append(0)
        idx.append(y.index(v))
        count[idx[-1]] += 1
    return np.array(y, x.dtype), np.array(idx), np.array(count)


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_unique_with_counts(mode):
    x = RNG.integers(-3, 4, 12).astype(np.int64)
    y, idx, count = run_mode(mode, lambda t: tf.unique_with_counts(t, out_idx=tf.int64), x)
    ry, ridx, rcount = unique_reference(x)
    np.testing.assert_array_equal(y, ry)
    np.testing.assert_array_equal(idx, ridx)
    np.testing.assert_array_equal(count, rcount)
    assert idx.dtype == np.int64


def test_unique_tf_values():
    # TF 2.21: unique([1,1,4,2,4,7]) = ([1,4,2,7], [0,0,1,2,1,3]); each NaN is its own value:
    # unique([1, nan, nan, 1]) = ([1, nan, nan], [0, 1, 2, 0]).
    y, idx = tf.unique([1, 1, 4, 2, 4, 7])
    assert y.numpy().tolist() == [1, 4, 2, 7] and idx.numpy().tolist() == [0, 0, 1, 2, 1, 3]
    y, idx = tf.unique([1.0, np.nan, np.nan, 1.0])
    assert y.shape == (3,) and np.isnan(y.numpy()[1:]).all()
    assert idx.numpy().tolist() == [0, 1, 2, 0]
    with pytest.raises(InvalidArgumentError, match="unique expects a 1D vector"):
        tf.unique([[1, 2]])
    with pytest.raises(UnimplementedError, match="unique"):
        tf.function(tf.unique, jit_compile=True)(tf.constant([1, 2]))


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_bincount(mode):
    x = RNG.integers(0, 6, (3, 4)).astype(np.int32)
    w = RNG.uniform(0, 1, (3, 4)).astype(np.float32)
    got = run_mode(mode, lambda a, b: (tf.math.bincount(a), tf.math.bincount(a, weights=b),
                                       tf.math.bincount(a, minlength=9),
                                       tf.math.bincount(a, maxlength=3),
                                       tf.math.bincount(a, axis=-1, binary_output=True)), x, w)
    np.testing.assert_array_equal(got[0], np.bincount(x.ravel()))
    np.testing.assert_allclose(got[1], np.bincount(x.ravel(), w.ravel()), rtol=1e-6)
    np.testing.assert_array_equal(got[2], np.bincount(x.ravel(), minlength=9))
    np.testing.assert_array_equal(got[3], np.bincount(x.ravel())[:3])
    rows = np.stack([np.bincount(r, minlength=x.max() + 1) > 0 for r in x]).astype(np.int32)
    np.testing.assert_array_equal(got[4], rows)


def test_bincount_fixed_length_under_xla():
    x = np.array([1, 2, 9, 1], np.int32)
    got = run_mode("xla", lambda a: tf.math.bincount(a, minlength=4, maxlength=4), x)
    np.testing.assert_array_equal(got, [0, 2, 1, 0])   # TF 2.21: 9 falls outside, dropped
    with pytest.raises(UnimplementedError, match="bincount"):
        run_mode("xla", tf.math.bincount, x)


def test_bincount_errors():
    # TF 2.21: "Input arr must be non-negative!".
    with pytest.raises(InvalidArgumentError, match="Input arr must be non-negative!"):
        tf.math.bincount([1, -1])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(mode, side):
    seq = np.sort(RNG.integers(0, 6, (3, 7)), axis=-1).astype(np.float32)
    vals = RNG.integers(-1, 8, (3, 5)).astype(np.float32)
    got = run_mode(mode, lambda s, v: tf.searchsorted(s, v, side=side, out_type=tf.int64),
                   seq, vals)
    want = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(seq, vals)])
    np.testing.assert_array_equal(got, want)


def test_searchsorted_errors():
    # TF 2.21's texts.
    with pytest.raises(ValueError, match=re.escape(
            "Argument `side` must be either 'right' or 'left'. Received: `side` = 'mid'.")):
        tf.searchsorted([1.0, 2.0], [1.5], side="mid")
    with pytest.raises(InvalidArgumentError, match="Leading dim_size of both tensors must "
                                                   "match"):
        tf.searchsorted(tf.zeros([2, 3]), [[2.0]])


@pytest.mark.parametrize("mode", MODES)
def test_histogram_fixed_width(mode):
    x = np.array([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0], np.float32)
    # TF 2.21: [2, 1, 1, 0, 2] (below the range counts in the first bin, above in the last).
    got = run_mode(mode, lambda v: tf.histogram_fixed_width(v, [0.0, 5.0], nbins=5), x)
    np.testing.assert_array_equal(got, [2, 1, 1, 0, 2])
    y = RNG.uniform(-1, 2, 50)
    got = run_mode(mode, lambda v: tf.histogram_fixed_width(v, [-0.5, 1.5], nbins=7,
                                                            dtype=tf.int64), y)
    want = np.histogram(np.clip(y, -0.5, 1.5), bins=7, range=(-0.5, 1.5))[0]
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.int64


@pytest.mark.parametrize("call, text", [
    # TF 2.21's texts.
    (lambda: tf.histogram_fixed_width([1.0], [3.0, 1.0], nbins=3),
     "value_range should satisfy value_range[0] < value_range[1], but got '[3, 1]'"),
    (lambda: tf.histogram_fixed_width([1.0], [0.0, 1.0], nbins=0),
     "nbins should be a positive number, but got '0'"),
    (lambda: tf.histogram_fixed_width([np.nan], [0.0, 1.0], nbins=2),
     "Histogram values must not contain NaN"),
])
def test_histogram_errors(call, text):
    with pytest.raises(InvalidArgumentError, match=re.escape(text)):
        call()
