"""reduce_variance/std/euclidean_norm, tf.norm, clip_by_norm and clip_by_global_norm against
NumPy in every mode; TF 2.21's values for the edge cases and its error texts."""
from __future__ import annotations

import re

import numpy as np
import pytest

import flowjit as tf
from flowjit.errors import InvalidArgumentError
from helpers import assert_close
from xla_helpers import MODES, run_mode

RNG = np.random.default_rng(3)
X = RNG.uniform(-3, 3, (2, 3, 4))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("axis, keepdims", [(None, False), (1, True), ([0, 2], False)])
def test_variance_std_euclidean(mode, axis, keepdims):
    ax = None if axis is None else tuple(np.atleast_1d(axis))
    kw = {"axis": axis, "keepdims": keepdims}
    got = run_mode(mode, lambda x: (tf.math.reduce_variance(x, **kw),
                                    tf.math.reduce_std(x, **kw),
                                    tf.math.reduce_euclidean_norm(x, **kw)), X)
    want = (np.var(X, axis=ax, keepdims=keepdims), np.std(X, axis=ax, keepdims=keepdims),
            np.sqrt(np.sum(X * X, axis=ax, keepdims=keepdims)))
    for g, w in zip(got, want):
        assert_close(g, w)


def test_euclidean_norm_of_ints_truncates():
    # TF 2.21: reduce_euclidean_norm([3, 5]) = 5 (int32: the root of 34, truncated).
    out = tf.math.reduce_euclidean_norm(tf.constant([3, 5]))
    assert out.dtype == tf.int32 and out.numpy() == 5


def test_variance_of_ints_raises():
    with pytest.raises(TypeError, match="Input must be either real or complex. Received "
                                        "integer type int32"):
        tf.math.reduce_variance(tf.constant([1, 2]))


M = np.array([[1.0, -2.0], [3.0, 4.0]], np.float32)
# TF 2.21's tf.norm of M: (ord, axis) -> value.
TF_NORMS = [("euclidean", None, 5.477226), ("euclidean", 0, [3.1622777, 4.472136]),
            ("fro", [0, 1], 5.477226), (1, None, 10.0), (1, 0, [4.0, 6.0]), (1, [0, 1], 6.0),
            (2, None, 5.477226), (np.inf, None, 4.0), (np.inf, 0, [3.0, 4.0]),
            (np.inf, (-2, -1), 7.0), (3, None, 4.641589), (3, 0, [3.0365891, 4.1601677]),
            (2, [0, 1], 5.1166735)]


@pytest.mark.parametrize("mode", MODES)
def test_norm_matches_tf(mode):
    got = run_mode(mode, lambda m: [tf.norm(m, ord=o, axis=a) for o, a, _ in TF_NORMS], M)
    for g, (o, a, want) in zip(got, TF_NORMS):
        assert_close(g, np.asarray(want, np.float32), rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_norm_of_a_batch_of_matrices(mode):
    got = run_mode(mode, lambda x: (tf.norm(x, ord=1, axis=[1, 2], keepdims=True),
                                    tf.norm(x, ord="fro", axis=[-1, -3])), X)
    assert_close(got[0], np.linalg.norm(X, ord=1, axis=(1, 2), keepdims=True))
    assert_close(got[1], np.linalg.norm(X, ord="fro", axis=(2, 0)))


@pytest.mark.parametrize("kw, exc, text", [
    # TF 2.21's texts.
    ({"ord": "fro"}, ValueError, "'ord' must be a supported vector norm, got fro"),
    ({"ord": 0, "axis": 0}, ValueError, "'ord' must be a supported vector norm, got 0"),
    ({"ord": 3, "axis": [0, 1]}, ValueError,
     "'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, 2, inf], got 3"),
    ({"axis": [0, 1, 2]}, ValueError,
     "'axis' must be None, an integer, or a tuple of 2 unique integers, got [0, 1, 2]"),
    ({"axis": [0, 0]}, ValueError, "'axis' must be None, an integer, or a tuple of 2 unique"),
    ({"ord": 2, "axis": [0, 2]}, InvalidArgumentError,
     "transpose expects a vector of size 2. But input(1) is a vector of size 3"),
])
def test_norm_errors(kw, exc, text):
    with pytest.raises(exc, match=re.escape(text)):
        tf.norm(tf.constant(M), **kw)


def test_norm_of_ints_raises():
    with pytest.raises(InvalidArgumentError, match="norm.*int32"):
        tf.norm(tf.constant([3, 4]))


def clip_by_norm_reference(t, c, axes):
    n = np.sqrt(np.sum(t * t, axis=axes, keepdims=True))
    return t * c / np.maximum(n, c)


@pytest.mark.parametrize("mode", MODES)
def test_clip_by_norm(mode):
    x = X.astype(np.float32)
    got = run_mode(mode, lambda t: (tf.clip_by_norm(t, 2.0), tf.clip_by_norm(t, 4.0, axes=[2]),
                                    tf.clip_by_norm(t * 0.0, 1.0)), x)
    assert_close(got[0], clip_by_norm_reference(x, 2.0, None), rtol=1e-5)
    assert_close(got[1], clip_by_norm_reference(x, 4.0, (2,)), rtol=1e-5)
    np.testing.assert_array_equal(got[2], np.zeros_like(x))  # TF 2.21: no 0/0 for zeros


@pytest.mark.parametrize("mode", MODES)
def test_clip_by_global_norm(mode):
    a, b = M, np.array([1.0], np.float32)
    got = run_mode(mode, lambda x, y: tf.clip_by_global_norm([x, y], 2.0), a, b)
    # TF 2.21: global norm 5.5677643; the tensors scaled by 2 / 5.5677643.
    scale = 2.0 / 5.5677643
    assert_close(got[1], np.float32(5.5677643))
    assert_close(got[0][0], a * scale, rtol=1e-6)
    assert_close(got[0][1], b * scale, rtol=1e-6)


def test_clip_by_global_norm_keeps_none_and_poisons_non_finite():
    clipped, norm = tf.clip_by_global_norm([tf.constant([np.inf, 1.0]), None], 2.0)
    # TF 2.21: ([nan, nan], None), norm inf.
    assert clipped[1] is None and np.isinf(norm.numpy())
    assert np.isnan(clipped[0].numpy()).all()
    with pytest.raises(TypeError, match="`t_list` should be a sequence of tensors"):
        tf.clip_by_global_norm(tf.constant(M), 2.0)


def test_norm_gradient():
    x = tf.constant(M)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.norm(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), M / np.linalg.norm(M), rtol=1e-6)
