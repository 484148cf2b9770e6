"""tf.raw_ops that TF-backed libraries call (Keras's Discretization: Bucketize), against
TF 2.21's values, in every mode."""
import json
import os
import re
import sys

import numpy as np
import pytest

import flowjit as tf

X = np.array([[-1.0, 0.0, 0.5], [1.0, 2.0, np.nan]], np.float32)


def _bucketize(mode, x, boundaries):
    fn = lambda v: tf.raw_ops.Bucketize(input=v, boundaries=boundaries)  # noqa: E731
    if mode != "eager":
        fn = tf.function(fn, jit_compile=mode == "xla")
    return fn(tf.constant(x))


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
def test_bucketize_counts_the_boundaries_at_or_below(mode):
    # TF 2.21: a value equal to a boundary goes above it; NaN after every boundary eagerly,
    # before all of them under XLA (TF's XLA alike)
    got = _bucketize(mode, X, [0.0, 1.0])
    assert got.dtype == tf.int32
    nan_bucket = 0 if mode == "xla" else 2
    assert got.numpy().tolist() == [[0, 1, 1], [2, 2, nan_bucket]]
    ints = _bucketize(mode, np.array([3, -2, 5], np.int32), [0.0, 3.0])
    assert ints.numpy().tolist() == [2, 0, 2]
    assert _bucketize(mode, np.array([1.0, np.inf, -np.inf], np.float32), []).numpy().tolist() \
        == [0, 0, 0]
    # boundaries are float32 (TF's attr): a float64 0.1 lies below float32(0.1)
    assert _bucketize(mode, np.array([0.1]), [0.1]).numpy().tolist() == [0]
    assert _bucketize(mode, np.array([0.1], np.float32), [0.1]).numpy().tolist() == [1]


def test_bucketize_errors_are_tfs():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected sorted boundaries"):
        tf.raw_ops.Bucketize(input=tf.constant(X), boundaries=[1.0, 0.0])
    with pytest.raises(TypeError, match=re.escape(
            "bucketize only takes keyword args (possible keys: ['input', 'boundaries', "
            "'name']). Please pass these args as kwargs instead.")):
        tf.raw_ops.Bucketize(tf.constant(X), [1.0])


# --- ImageProjectiveTransformV3 (Keras's RandomRotation, RandomZoom, RandomTranslation) -------
sys.path.insert(0, os.path.dirname(__file__))
import raw_ops_cases as cases  # noqa: E402

RECORDED = json.load(open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "data",
                                       "tf_raw_ops.json")))["cases"]


@pytest.mark.parametrize("case", cases.CASES, ids="/".join)
def test_projective_transform_matches_tf_eagerly(case):
    got = cases.transform(tf, *case)
    assert got.shape == (2, 4, 7, 2) and got.dtype == tf.float32
    np.testing.assert_allclose(got.numpy(), RECORDED["/".join(case)], rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("mode", ["graph", "xla"])
def test_projective_transform_matches_tf_in_a_function(mode):
    """Every transform, both interpolations, REFLECT and CONSTANT, with the image size read
    from a run-time shape as Keras passes it."""
    picked = [c for c in cases.CASES if c[2] in ("REFLECT", "CONSTANT")]

    @tf.function(jit_compile=mode == "xla")
    def run(images):
        return [cases.transform(tf, *c, images=images) for c in picked]
    for case, got in zip(picked, run(tf.constant(cases.IMAGES))):
        np.testing.assert_allclose(got.numpy(), RECORDED["/".join(case)], rtol=1e-5,
                                   atol=1e-4, err_msg="/".join(case))


def test_projective_transform_keeps_integer_images_integer():
    images = tf.constant(cases.IMAGES.astype(np.uint8))
    got = cases.transform(tf, "half", "BILINEAR", "NEAREST", images=images)
    want = np.asarray(RECORDED["half/BILINEAR/NEAREST"])
    assert got.dtype == tf.uint8
    np.testing.assert_array_equal(got.numpy(), np.trunc(want).astype(np.uint8))


def test_projective_transform_refuses_unknown_modes():
    """TF 2.21 logs "Invalid mode MIRROR. Supported types: ..." and returns unspecified
    values; flowjit raises with that text (README: Differences from TF)."""
    with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(
            "Invalid mode MIRROR. Supported types: REFLECT, WRAP, CONSTANT, NEAREST")):
        cases.transform(tf, "rot", "NEAREST", "MIRROR")
