"""tf.image's geometric and pixel-value composites (frontend/ops/image_geometry.py,
image_color.py) in every mode against NumPy, with gradients against central differences."""
from __future__ import annotations

import colorsys

import numpy as np
import pytest

import flowjit as tf
from composite_helpers import check_composite

RNG = np.random.default_rng(5)
BATCH = RNG.uniform(0, 1, (2, 3, 4, 3))
ONE = RNG.uniform(0, 1, (5, 3, 3))


@pytest.mark.parametrize("image", [BATCH, ONE], ids=["batch", "one"])
def test_geometry(image):
    h, w = image.shape[-3:-1]
    cases = [
        (tf.image.flip_left_right, image[..., ::-1, :]),
        (tf.image.flip_up_down, image[..., ::-1, :, :]),
        (tf.image.transpose, np.swapaxes(image, -3, -2)),
        (lambda t: tf.image.rot90(t), np.rot90(image, 1, axes=(-3, -2))),
        (lambda t: tf.image.rot90(t, k=2), np.rot90(image, 2, axes=(-3, -2))),
        (lambda t: tf.image.rot90(t, k=-1), np.rot90(image, 3, axes=(-3, -2))),
        (lambda t: tf.image.crop_to_bounding_box(t, 1, 2, 2, 1), image[..., 1:3, 2:3, :]),
        (lambda t: tf.image.central_crop(t, 0.5),
         image[..., int(h / 4):h - int(h / 4), int(w / 4):w - int(w / 4), :]),
    ]
    for fn, want in cases:
        check_composite(fn, [image], want, grad=(0,))
    pads = [[0, 0]] * (image.ndim - 3) + [[1, 2], [3, 0], [0, 0]]
    check_composite(lambda t: tf.image.pad_to_bounding_box(t, 1, 3, h + 3, w + 3), [image],
                    np.pad(image, pads), grad=(0,))


def test_resize_with_crop_or_pad():
    # height 3 -> 6 pads 1 above and 2 below; width 4 -> 1 crops from column 1 (TF's rule).
    want = np.pad(BATCH[:, :, 1:2, :], [[0, 0], [1, 2], [0, 0], [0, 0]])
    check_composite(lambda t: tf.image.resize_with_crop_or_pad(t, 6, 1), [BATCH], want,
                    grad=(0,))


def test_box_errors():
    with pytest.raises(ValueError, match="height must be >= target"):
        tf.image.crop_to_bounding_box(ONE, 4, 0, 2, 2)
    with pytest.raises(ValueError, match="width must be <= target - offset"):
        tf.image.pad_to_bounding_box(ONE, 0, 1, 6, 3)
    with pytest.raises(ValueError, match="three-dimensional"):
        tf.image.flip_left_right([1.0, 2.0])
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        tf.image.central_crop(ONE, 0.0)


def test_convert_image_dtype():
    u8 = np.array([[[0, 1, 127, 128, 254, 255]]], np.uint8)
    check_composite(lambda t: tf.image.convert_image_dtype(t, tf.float32), [u8],
                    (u8.astype(np.float32) * np.float32(1 / 255)))
    f = np.array([[[-0.5, 0.0, 0.001, 0.5, 0.999, 1.5]]], np.float32)
    check_composite(lambda t: tf.image.convert_image_dtype(t, tf.uint8, saturate=True), [f],
                    np.clip(f * np.float32(255.5), 0, 255).astype(np.uint8))
    check_composite(lambda t: tf.image.convert_image_dtype(t, tf.int16), [u8],
                    u8.astype(np.int16) * 128)
    i32 = np.array([[[0, 2 ** 24, 2 ** 31 - 1]]], np.int32)
    check_composite(lambda t: tf.image.convert_image_dtype(t, tf.uint8), [i32],
                    (i32 // 2 ** 23).astype(np.uint8))


def test_colour():
    gray = BATCH @ np.array([0.2989, 0.5870, 0.1140])
    # Computed in float32 whatever the input: linear, so a wide difference step is exact.
    check_composite(tf.image.rgb_to_grayscale, [BATCH], gray[..., None], grad=(0,), eps=0.25)
    yuv = BATCH @ np.array([[0.299, -0.14714119, 0.61497538],
                            [0.587, -0.28886916, -0.51496512],
                            [0.114, 0.43601035, -0.10001026]])
    check_composite(tf.image.rgb_to_yuv, [BATCH], yuv, grad=(0,))
    check_composite(lambda t: tf.image.yuv_to_rgb(tf.image.rgb_to_yuv(t)), [BATCH], BATCH,
                    grad=(0,), rtol=1e-6, atol=1e-6)
    g = BATCH[..., :1]
    check_composite(tf.image.grayscale_to_rgb, [g], np.concatenate([g, g, g], -1), grad=(0,))
    check_composite(lambda t: tf.image.adjust_brightness(t, -0.25), [BATCH], BATCH - 0.25,
                    grad=(0,))
    # float64 images compute in float32 (TF's rule); central differences are exact for a
    # square, so a wide step sees through the float32 rounding.
    check_composite(lambda t: tf.image.adjust_gamma(t, 2.0, 0.5), [BATCH], 0.5 * BATCH ** 2,
                    grad=(0,), eps=0.05)
    u8 = np.array([[[250, 3, 128]]], np.uint8)
    check_composite(lambda t: tf.image.adjust_brightness(t, 0.1), [u8],
                    np.array([[[255, 28, 153]]], np.uint8))   # TF 2.21: truncated


def test_statistics():
    x = BATCH
    axes = (-3, -2, -1)
    mean = x.mean(axes, keepdims=True)
    std = np.maximum(x.std(axes, keepdims=True), 1 / np.sqrt(36))
    # float64 images are standardized in float32 (TF's rule).
    check_composite(tf.image.per_image_standardization, [x],
                    ((x - mean) / std).astype(np.float32), grad=(0,), grad_tol=2e-3, eps=1e-2)
    flat = np.full((1, 2, 3), 2.0, np.float32)
    check_composite(tf.image.per_image_standardization, [flat], np.zeros_like(flat))
    tv = (np.abs(np.diff(x, axis=1)).sum(axis=(1, 2, 3))
          + np.abs(np.diff(x, axis=2)).sum(axis=(1, 2, 3)))
    check_composite(tf.image.total_variation, [x + np.arange(3.0) * 0.01], tv, grad=(0,))
    y = x * 0.5
    mse = ((x - y) ** 2).mean(axis=(1, 2, 3))
    # PSNR is computed in float32 whatever the images' dtype (TF's rule).
    check_composite(lambda a, b: tf.image.psnr(a, b, 1.0), [x, y],
                    (-10 * np.log10(mse)).astype(np.float32), grad=(0, 1), eps=1e-3,
                    grad_tol=1e-2)


def test_gradients_of_images():
    dy = np.pad(np.diff(BATCH, axis=1), [[0, 0], [0, 1], [0, 0], [0, 0]])
    dx = np.pad(np.diff(BATCH, axis=2), [[0, 0], [0, 0], [0, 1], [0, 0]])
    check_composite(tf.image.image_gradients, [BATCH], [dy, dx], grad=(0,))
    padded = np.pad(BATCH, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="reflect")
    ky = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]])
    want = np.zeros(BATCH.shape + (2,))
    for i in range(3):
        for j in range(3):
            window = padded[:, i:i + 3, j:j + 4, :]
            want[..., 0] += ky[i, j] * window
            want[..., 1] += ky.T[i, j] * window
    check_composite(tf.image.sobel_edges, [BATCH], want, grad=(0,))


def _colorsys(fn, x):
    flat = x.reshape(-1, 3)
    return np.array([fn(*p) for p in flat]).reshape(x.shape)


def test_hsv():
    # Distinct channels (no ties between max and min, no greys) keep the gradient smooth.
    rgb = np.array([[[0.9, 0.2, 0.4], [0.1, 0.7, 0.3], [0.2, 0.3, 0.8], [0.6, 0.5, 0.1]]])
    hsv = _colorsys(colorsys.rgb_to_hsv, rgb)
    check_composite(tf.image.rgb_to_hsv, [rgb], hsv, grad=(0,))
    check_composite(tf.image.hsv_to_rgb, [hsv], rgb, grad=(0,))
    grey = np.array([[[0.5, 0.5, 0.5], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]], np.float32)
    check_composite(tf.image.rgb_to_hsv, [grey],
                    np.array([[[0, 0, 0.5], [0, 0, 0], [0, 1, 1]]], np.float32))
    check_composite(lambda t: tf.image.adjust_saturation(t, 0.5), [rgb],
                    _colorsys(colorsys.hsv_to_rgb, hsv * [1, 0.5, 1]), grad=(0,))
    check_composite(lambda t: tf.image.adjust_hue(t, 0.3), [rgb],
                    _colorsys(colorsys.hsv_to_rgb, (hsv + [0.3, 0, 0]) % [1, 2, 2]),
                    grad=(0,))
