"""tf.image.sample_distorted_bounding_box and its stateless form: flowjit's generator draws
other crops than TF's, so these check what TF's kernel guarantees for any draw (the answers
no draw changes and the errors are checked against TF in tests/oracle/cases_breadth_last.py):
the crop lies in the image, its area and aspect ratio lie in the asked ranges (to a pixel's
rounding), it covers enough of a box, `bboxes` is the crop normalized, a seed repeats it."""
from __future__ import annotations

import numpy as np
import pytest

import flowjit as tf

BOXES = np.array([[[0.1, 0.2, 0.5, 0.9], [0.6, 0.05, 0.95, 0.3]]], np.float32)
MODES = {"eager": lambda f: f, "graph": tf.function,
         "xla": lambda f: tf.function(f, jit_compile=True)}


def _covered(begin, size, height, width):
    best = 0.0
    for y0, x0, y1, x1 in (BOXES[0] * [height, width, height, width]).astype(int):
        inter = max(0, min(begin[0] + size[0], y1) - max(begin[0], y0)) * \
            max(0, min(begin[1] + size[1], x1) - max(begin[1], x0))
        best = max(best, inter / ((y1 - y0) * (x1 - x0)))
    return best


@pytest.mark.parametrize("mode", MODES)
def test_crops_meet_the_constraints(mode):
    height, width = 40, 60
    run = MODES[mode](lambda s: tf.image.stateless_sample_distorted_bounding_box(
        tf.constant([height, width, 3]), tf.constant(BOXES), s, min_object_covered=0.6,
        aspect_ratio_range=[0.5, 2.0], area_range=[0.1, 0.6], max_attempts=50))
    crops = set()
    for seed in range(12):
        begin, size, box = (t.numpy() for t in run(tf.constant([seed, 7])))
        assert begin[2] == 0 and size[2] == -1
        assert 0 <= begin[0] and begin[0] + size[0] <= height
        assert 0 <= begin[1] and begin[1] + size[1] <= width
        np.testing.assert_allclose(box[0, 0], [begin[0] / height, begin[1] / width,
                                               (begin[0] + size[0]) / height,
                                               (begin[1] + size[1]) / width], rtol=1e-6)
        if size[0] == height and size[1] == width:
            continue                      # no attempt fitted: the whole image
        area = size[0] * size[1] / (height * width)
        assert 0.1 - 0.03 <= area <= 0.6 + 0.03
        assert 0.5 - 0.1 <= size[1] / size[0] <= 2.0 + 0.1
        assert _covered(begin, size, height, width) >= 0.6
        crops.add((*begin, *size))
    assert len(crops) > 5


def test_seeds_repeat_and_the_stateful_form_varies():
    sample = tf.image.stateless_sample_distorted_bounding_box
    first = [t.numpy() for t in sample([40, 60, 3], BOXES, [3, 4])]
    for a, b in zip(first, sample([40, 60, 3], BOXES, [3, 4])):
        np.testing.assert_array_equal(a, b.numpy())
    drawn = {tuple(tf.image.sample_distorted_bounding_box([40, 60, 3], BOXES)[1].numpy())
             for _ in range(8)}
    assert len(drawn) > 1


def test_no_boxes():
    none = np.zeros([1, 0, 4], np.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="No bounding boxes provided"):
        tf.image.stateless_sample_distorted_bounding_box([40, 60, 3], none, [1, 2])
    begin, size, _ = tf.image.stateless_sample_distorted_bounding_box(
        [40, 60, 3], none, [1, 2], use_image_if_no_bounding_boxes=True, min_object_covered=0.9)
    assert size.numpy()[0] * size.numpy()[1] >= 0.9 * 40 * 60 - 60


@pytest.mark.parametrize("mode", MODES)
def test_whole_image_when_no_crop_fits(mode):
    """TF 2.21's answers where no attempt can succeed: the whole image, its size in the
    image_size's dtype (-1 for the channels wraps in uint8, as TF's cast)."""
    cases = [(tf.constant([40, 60, 3], tf.uint8), BOXES, {"min_object_covered": 1.1}, 255),
             (tf.constant([4, 6, 3], tf.int64),
              np.array([[[0.6, 0.2, 0.5, 0.9], [0.1, 0.1, 0.1, 0.1]]], np.float32), {}, -1),
             (tf.constant([40, 60, 1], tf.int16), BOXES, {"area_range": [0.5, 0.1]}, -1)]
    for size, boxes, kwargs, channels in cases:
        run = MODES[mode](lambda s, b: tf.image.stateless_sample_distorted_bounding_box(
            s, b, [1, 2], **kwargs))
        begin, extent, box = run(size, tf.constant(boxes))
        assert begin.dtype == size.dtype and extent.dtype == size.dtype
        np.testing.assert_array_equal(begin.numpy(), [0, 0, 0])
        np.testing.assert_array_equal(extent.numpy(), [*size.numpy()[:2], channels])
        np.testing.assert_array_equal(box.numpy(), [[[0, 0, 1, 1]]])
