"""tf.image.resize (bilinear, nearest) and tf.image.adjust_contrast against TF 2.21's recorded
numbers and NumPy references, in every mode."""
from __future__ import annotations

import re

import numpy as np
import pytest

import flowjit as tf
from flowjit.errors import InvalidArgumentError
from xla_helpers import MODES, run_mode

IMG = np.arange(2 * 3 * 4 * 2, dtype=np.float32).reshape(2, 3, 4, 2)

# TF 2.21: tf.image.resize(IMG, [5, 3])[0, :, :, 0] (bilinear, half-pixel centers).
TF_BILINEAR_UP = [[0.333333, 3.0, 5.666667], [3.533333, 6.2, 8.866667],
                  [8.333333, 11.0, 13.666667], [13.133335, 15.800001, 18.46667],
                  [16.333334, 19.0, 21.666668]]
# TF 2.21: tf.image.resize(IMG, [2, 3])[0, :, :, 0].
TF_BILINEAR_DOWN = [[2.333333, 5.0, 7.666667], [14.333334, 17.0, 19.666668]]
# TF 2.21: method="nearest", [5, 3] and [2, 2].
TF_NEAREST_UP = [[0, 4, 6], [0, 4, 6], [8, 12, 14], [16, 20, 22], [16, 20, 22]]
TF_NEAREST_DOWN = [[2, 6], [18, 22]]


@pytest.mark.parametrize("mode", MODES)
def test_resize_matches_tf(mode):
    got = run_mode(mode, lambda x: (tf.image.resize(x, [5, 3]), tf.image.resize(x, [2, 3]),
                                    tf.image.resize(x, [5, 3], method="nearest"),
                                    tf.image.resize(x, [2, 2], method="nearest")), IMG)
    np.testing.assert_allclose(got[0][0, :, :, 0], TF_BILINEAR_UP, atol=1e-6)
    np.testing.assert_allclose(got[1][0, :, :, 0], TF_BILINEAR_DOWN, atol=1e-6)
    np.testing.assert_array_equal(got[2][0, :, :, 0], TF_NEAREST_UP)
    np.testing.assert_array_equal(got[3][0, :, :, 0], TF_NEAREST_DOWN)


def bilinear_reference(img, out_h, out_w):
    """Half-pixel bilinear resize of one HWC image, pixel by pixel in float64."""
    h, w = img.shape[:2]
    out = np.zeros((out_h, out_w, img.shape[2]))
    for oy in range(out_h):
        sy = min(max((oy + 0.5) * h / out_h - 0.5, 0), h - 1)
        y0, fy = int(np.floor(sy)), sy - np.floor(sy)
        y1 = min(y0 + 1, h - 1)
        for ox in range(out_w):
            sx = min(max((ox + 0.5) * w / out_w - 0.5, 0), w - 1)
            x0, fx = int(np.floor(sx)), sx - np.floor(sx)
            x1 = min(x0 + 1, w - 1)
            top = img[y0, x0] * (1 - fx) + img[y0, x1] * fx
            bottom = img[y1, x0] * (1 - fx) + img[y1, x1] * fx
            out[oy, ox] = top * (1 - fy) + bottom * fy
    return out


@pytest.mark.parametrize("mode", MODES)
def test_resize_random_images(mode):
    img = np.random.default_rng(1).uniform(0, 1, (5, 6, 3)).astype(np.float32)
    got = run_mode(mode, lambda x: tf.image.resize(x, [7, 4]), img)
    np.testing.assert_allclose(got, bilinear_reference(img, 7, 4), rtol=1e-5, atol=1e-6)


def test_resize_dtypes_and_errors():
    # TF 2.21: bilinear returns float32 (also for int and float64 images); nearest keeps it.
    assert tf.image.resize(IMG.astype(np.float64), [2, 3]).dtype == tf.float32
    assert tf.image.resize(IMG.astype(np.uint8), [2, 3], method="nearest").dtype == tf.uint8
    assert tf.image.resize(IMG, [5, 5], preserve_aspect_ratio=True).shape == (2, 4, 5, 2)
    with pytest.raises(ValueError, match="Resize method is not implemented: cubicx"):
        tf.image.resize(IMG, [2, 3], method="cubicx")
    with pytest.raises(ValueError, match="'images' must have either 3 or 4 dimensions."):
        tf.image.resize(IMG[0, 0], [2, 3])
    with pytest.raises(ValueError, match="'size' must be a 1-D Tensor of 2 elements"):
        tf.image.resize(IMG, [2, 3, 4])
    with pytest.raises(InvalidArgumentError, match="output dimensions must be positive"):
        tf.image.resize(IMG, [0, 3])


def test_resize_gradient():
    x = tf.constant(IMG)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.image.resize(x, [5, 3]))
    # TF 2.21: the gradient of the sum, image 0 channel 0.
    want = [[1.333333, 1.066667, 1.066666, 1.333333], [1.5, 1.2, 1.2, 1.5],
            [1.333333, 1.066667, 1.066666, 1.333334]]
    np.testing.assert_allclose(tape.gradient(y, x).numpy()[0, :, :, 0], want, atol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_adjust_contrast(mode):
    img = np.random.default_rng(2).uniform(0, 1, (2, 3, 4, 3)).astype(np.float32)
    got = run_mode(mode, lambda x: tf.image.adjust_contrast(x, 1.7), img)
    mean = img.mean(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(got, (img - mean) * 1.7 + mean, rtol=1e-5, atol=1e-6)


def test_adjust_contrast_integer_images_and_errors():
    small = IMG[:, :2, :2]
    # TF 2.21: float [[-5, -1], [11, 15]]; uint8 (x10) saturates: [[0, 0], [110, 150]].
    np.testing.assert_array_equal(tf.image.adjust_contrast(small, 2.0).numpy()[0, :, :, 0],
                                  [[-5, -1], [11, 15]])
    out = tf.image.adjust_contrast(small.astype(np.uint8) * 10, 2.0)
    assert out.dtype == tf.uint8
    np.testing.assert_array_equal(out.numpy()[0, :, :, 0], [[0, 0], [110, 150]])
    # TF 2.21: int32 image 0 channel 0, row 0 -> [-11, -7, -3, 1].
    out = tf.image.adjust_contrast(IMG[0].astype(np.int32), 2.0)
    np.testing.assert_array_equal(out.numpy()[0, :, 0], [-11, -7, -3, 1])
    with pytest.raises(InvalidArgumentError, match=re.escape(
            "input must be at least 3-D, got shape[4,2]")):
        tf.image.adjust_contrast(IMG[0, 0], 2.0)
