"""boolean_mask and nn.embedding_lookup against NumPy indexing in every mode they support
(boolean_mask has a data-dependent size: XLA refuses it), with TF 2.21's errors."""
from __future__ import annotations

import re

import numpy as np
import pytest

import flowjit as tf
from flowjit.errors import InvalidArgumentError, UnimplementedError
from xla_helpers import MODES, run_mode

RNG = np.random.default_rng(5)
X = RNG.uniform(-3, 3, (2, 4, 3)).astype(np.float32)


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_boolean_mask(mode):
    m1, m2 = np.array([True, False, True, True]), RNG.random((2, 4)) < 0.5
    got = run_mode(mode, lambda x, a, b: (tf.boolean_mask(x, a, axis=1), tf.boolean_mask(x, b),
                                          tf.boolean_mask(x, a, axis=-2)), X, m1, m2)
    np.testing.assert_array_equal(got[0], X[:, m1])
    np.testing.assert_array_equal(got[1], X[m2])
    np.testing.assert_array_equal(got[2], X[:, m1])


def test_boolean_mask_errors_and_xla():
    # TF 2.21: "Shapes (2,) and (3,) are incompatible"; "mask cannot be scalar."
    with pytest.raises(ValueError, match=re.escape("Shapes (2,) and (3,) are incompatible")):
        tf.boolean_mask(tf.zeros([2, 2]), [True, False, True])
    with pytest.raises(ValueError, match="mask cannot be scalar"):
        tf.boolean_mask(tf.zeros([2]), True)
    f = tf.function(lambda x, m: tf.boolean_mask(x, m), jit_compile=True)
    with pytest.raises(UnimplementedError, match="where_indices"):
        f(tf.constant(X), tf.constant(np.array([True, False])))


def test_boolean_mask_gradient():
    x, m = tf.constant(X), np.array([True, False, True, False])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.boolean_mask(x, m, axis=1) * 3.0)
    want = np.zeros_like(X)
    want[:, m] = 3.0
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), want)


P = np.arange(12.0).reshape(4, 3)


@pytest.mark.parametrize("mode", MODES)
def test_embedding_lookup(mode):
    ids = np.array([[0, 3], [1, 1]], np.int32)
    got = run_mode(mode, lambda p, i: (tf.nn.embedding_lookup(p, i),
                                       tf.nn.embedding_lookup(p, i, max_norm=2.0),
                                       tf.nn.embedding_lookup([p, p + 100.0], [0, 3, 5])),
                   P, ids)
    np.testing.assert_array_equal(got[0], P[ids])
    rows = P[ids]
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    np.testing.assert_allclose(got[1], rows * 2.0 / np.maximum(norms, 2.0), rtol=1e-12)
    # TF 2.21: shards [p, p + 100] split "div" style: ids 0..3 in the first, 4..7 the second.
    np.testing.assert_array_equal(got[2], [P[0], P[3], P[1] + 100])


def test_embedding_lookup_errors():
    # TF 2.21: "indices[0] = 5 is not in [0, 4)".
    with pytest.raises(InvalidArgumentError, match=re.escape("indices[0] = 5 is not in [0, 4)")):
        tf.nn.embedding_lookup(tf.constant(P), [5])
    with pytest.raises(ValueError, match="div"):
        tf.nn.embedding_lookup([tf.constant(P), tf.constant(P[:1])], [0])


def test_floor_is_top_level_and_ceil_is_not():
    # TF 2.21 exports tf.floor but not tf.ceil (only tf.math.ceil).
    np.testing.assert_array_equal(tf.floor(tf.constant([1.5, -1.5])).numpy(), [1.0, -2.0])
    assert not hasattr(tf, "ceil") and tf.math.ceil is not None


def test_eager_ops_after_the_tensor_went_through_xla():
    # Passing a tensor to a jit_compile=True function leaves a device copy as its value;
    # eager gathers on it must still work (they crashed inside jax's `take` before).
    p = tf.constant(P)
    tf.function(lambda t: t * 2.0, jit_compile=True)(p)
    np.testing.assert_array_equal(tf.nn.embedding_lookup(p, [3, 0]).numpy(), P[[3, 0]])
