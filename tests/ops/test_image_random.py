"""tf.image's random augmentations (frontend/ops/image_random.py): flowjit's generator draws
other numbers than TF's, so these check what TF guarantees for any draw: each result is the
deterministic op at a factor inside the requested range, stateless forms repeat for a seed
and differ across seeds, batches flip per image, and TF's argument errors."""
from __future__ import annotations

import numpy as np
import pytest

import flowjit as tf

RNG = np.random.default_rng(7)
BATCH = RNG.uniform(0, 1, (16, 3, 4, 3)).astype(np.float32)
MODES = {"eager": lambda f: f, "graph": tf.function,
         "xla": lambda f: tf.function(f, jit_compile=True)}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("flip,axis", [(tf.image.stateless_random_flip_left_right, 2),
                                       (tf.image.stateless_random_flip_up_down, 1)])
def test_stateless_flips_each_image_and_repeat_per_seed(mode, flip, axis):
    run = MODES[mode](lambda x, s: flip(x, s))
    out = run(tf.constant(BATCH), tf.constant([3, 4])).numpy()
    flipped = [np.array_equal(o, np.flip(x, axis - 1)) for o, x in zip(out, BATCH)]
    kept = [np.array_equal(o, x) for o, x in zip(out, BATCH)]
    assert all(f or k for f, k in zip(flipped, kept))
    assert any(flipped) and any(kept)       # 16 images: both outcomes occur
    again = run(tf.constant(BATCH), tf.constant([3, 4])).numpy()
    np.testing.assert_array_equal(out, again)
    other = run(tf.constant(BATCH), tf.constant([5, 1])).numpy()
    assert not np.array_equal(out, other)


def test_flip_of_one_image_is_all_or_nothing():
    image = BATCH[0]
    outs = [tf.image.random_flip_left_right(image).numpy() for _ in range(12)]
    assert all(np.array_equal(o, image) or np.array_equal(o, image[:, ::-1]) for o in outs)
    assert any(np.array_equal(o, image[:, ::-1]) for o in outs)


@pytest.mark.parametrize("mode", MODES)
def test_brightness_adds_one_delta_in_range(mode):
    run = MODES[mode](lambda x: tf.image.stateless_random_brightness(x, 0.25, [1, 2]))
    delta = run(tf.constant(BATCH)).numpy() - BATCH
    np.testing.assert_allclose(delta, np.full_like(delta, delta.flat[0]), atol=1e-6)
    assert -0.25 <= delta.flat[0] < 0.25 and delta.flat[0] != 0


def test_contrast_and_saturation_use_a_factor_in_range():
    x = tf.constant(BATCH[:2])
    out = tf.image.stateless_random_contrast(x, 0.3, 0.6, seed=[4, 4]).numpy()
    mean = BATCH[:2].mean(axis=(1, 2), keepdims=True)
    factor = ((out - mean) / (BATCH[:2] - mean)).reshape(-1)
    np.testing.assert_allclose(factor, factor[0], rtol=1e-3)
    assert 0.3 <= factor[0] < 0.6
    sat = tf.image.random_saturation(x, 1.0, 1.000001).numpy()
    np.testing.assert_allclose(sat, BATCH[:2], atol=1e-5)
    hue = tf.image.stateless_random_hue(x, 0.0, seed=[1, 1]).numpy()
    np.testing.assert_allclose(hue, BATCH[:2], atol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_crop_is_a_window_of_the_input(mode):
    value = np.arange(5 * 6 * 2, dtype=np.float32).reshape(5, 6, 2)
    run = MODES[mode](lambda x: tf.image.stateless_random_crop(x, [3, 2, 2], seed=[9, 2]))
    out = run(tf.constant(value)).numpy()
    top, left = np.argwhere(value[..., 0] == out[0, 0, 0])[0]
    np.testing.assert_array_equal(out, value[top:top + 3, left:left + 2])
    assert tf.image.random_crop(value, [5, 6, 2]).shape == (5, 6, 2)


@pytest.mark.parametrize("call,message", [
    (lambda: tf.image.random_brightness(BATCH, -0.1), "max_delta must be non-negative."),
    (lambda: tf.image.random_hue(BATCH, 0.6), "max_delta must be <= 0.5."),
    (lambda: tf.image.random_contrast(BATCH, 0.5, 0.5), "upper must be > lower."),
    (lambda: tf.image.stateless_random_saturation(BATCH, -1.0, 1.0, [1, 2]),
     "lower must be non-negative."),
    (lambda: tf.image.random_flip_up_down(BATCH[0, 0]), "must have either 3"),
])
def test_argument_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_crop_larger_than_value():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Need value.shape >= size"):
        tf.image.random_crop(BATCH[0], [4, 4, 3])
