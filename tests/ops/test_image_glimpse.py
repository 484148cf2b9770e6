"""tf.image.extract_glimpse's noise (frontend/ops/image_glimpse.py): flowjit's generator
draws other numbers than TF's, so these check what TF's kernel guarantees for any draw (the
zero-noise values are checked against TF in tests/oracle/cases_breadth_last.py): the part
inside the image is the image's, uniform noise lies in the image's [min, max], gaussian noise
in each channel's, and the op has no gradient."""
from __future__ import annotations

import numpy as np
import pytest

import flowjit as tf

IMAGES = np.stack([np.arange(30, dtype=np.float32).reshape(5, 6),
                   -np.arange(30, dtype=np.float32).reshape(5, 6) / 8 + 100], -1)[None]
IMAGES = np.concatenate([IMAGES, IMAGES[:, ::-1] * 2], 0)          # [2, 5, 6, 2]
OFFSETS = np.array([[-2, 3], [4, 5]], np.float32)                  # both half outside
MODES = {"eager": lambda f: f, "graph": tf.function,
         "xla": lambda f: tf.function(f, jit_compile=True)}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("noise", ["uniform", "gaussian"])
def test_noise_fills_outside_within_the_images_range(mode, noise):
    run = MODES[mode](lambda x, o: tf.image.extract_glimpse(
        x, [3, 3], o, centered=False, normalized=False, noise=noise))
    out = run(tf.constant(IMAGES), tf.constant(OFFSETS)).numpy()
    zero = tf.image.extract_glimpse(IMAGES, [3, 3], OFFSETS, centered=False,
                                    normalized=False, noise="zero").numpy()
    inside = np.zeros([2, 3, 3, 1], bool)
    inside[0, 2:, :] = True            # rows -2, -1 lie above the image, row 0 inside
    inside[1, :1, :1] = True           # row 4, column 5 is the only pixel inside
    inside = np.broadcast_to(inside, out.shape)
    np.testing.assert_array_equal(out[inside], zero[inside])
    for b in range(2):
        if noise == "uniform":
            low, high = IMAGES[b].min(), IMAGES[b].max()
        else:
            low, high = IMAGES[b].min((0, 1)), IMAGES[b].max((0, 1))
        drawn = np.where(inside[b], np.nan, out[b])
        assert np.all((drawn >= low) | np.isnan(drawn)) and np.all((drawn <= high) |
                                                                  np.isnan(drawn))
    assert len(np.unique(out[~inside])) > 10        # drawn, not a constant


def test_no_gradient():
    x = tf.constant(IMAGES)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.image.extract_glimpse(x, [2, 2], tf.zeros([2, 2]), noise="zero")
    assert tape.gradient(y, x) is None
