"""tf.image.generate_bounding_box_proposals (frontend/ops/image_proposals.py). TF 2.21 has a
GPU kernel only (NotFoundError on CPU), so no TF answers are recorded: the reference here is
that kernel's steps, box by box (decode, clip, min-size filter, greedy suppression without
division, padding), checked in every mode with ties, clipped and dropped boxes, suppressions,
a pre_nms_topn below the box count and padding past the kept boxes."""
from __future__ import annotations

import math

import numpy as np
import pytest

import flowjit as tf

MODES = {"eager": lambda f: f, "graph": tf.function,
         "xla": lambda f: tf.function(f, jit_compile=True)}
F = np.float32


def _reference(scores, deltas, info, anchors, threshold, pre, min_size, post):
    images, height, width, count = scores.shape
    boxes = height * width * count
    rois = np.zeros((images, post, 4), F)
    probs = np.zeros((images, post), F)
    cap = F(math.log(1000.0 / 16.0))
    for i in range(images):
        flat = scores[i].reshape(-1)
        order = sorted(range(boxes), key=lambda k: -flat[k])[:min(pre, boxes)]  # stable
        cands = []
        for k in order:
            y1, x1, y2, x2 = anchors.reshape(-1, 4)[k]
            dy, dx, dh, dw = deltas[i].reshape(-1, 4)[k]
            dw, dh = min(dw, cap), min(dh, cap)
            w = x2 - x1
            cx = x1 + F(0.5) * w + w * dx
            pw = w * np.exp(dw)
            x1, x2 = cx - F(0.5) * pw, cx + F(0.5) * pw
            h = y2 - y1
            cy = y1 + F(0.5) * h + h * dy
            ph = h * np.exp(dh)
            y1, y2 = cy - F(0.5) * ph, cy + F(0.5) * ph
            x1, x2 = (max(min(v, info[i, 1]), F(0)) for v in (x1, x2))
            y1, y2 = (max(min(v, info[i, 0]), F(0)) for v in (y1, y2))
            if min(x2 - x1, y2 - y1) >= min_size * info[i, 2]:
                cands.append(((x1, y1, x2, y2), flat[k]))
        kept = []
        for box, score in cands:
            if len(kept) == post:
                break
            if not any(_over(a, box, threshold) for a, _ in kept):
                kept.append((box, score))
        for j, ((x1, y1, x2, y2), score) in enumerate(kept):
            rois[i, j] = y1, x1, y2, x2
            probs[i, j] = score
    return rois, probs


def _over(a, b, threshold):
    area_a = (a[2] - a[0]) * (a[3] - a[1])
    area_b = (b[2] - b[0]) * (b[3] - b[1])
    if area_a == 0 or area_b == 0:
        return False
    w = max(min(a[2], b[2]) - max(a[0], b[0]), F(0))
    h = max(min(a[3], b[3]) - max(a[1], b[1]), F(0))
    inter = w * h
    return inter > (area_a + area_b - inter) * F(threshold)


def _inputs(seed):
    rng = np.random.default_rng(seed)
    scores = rng.uniform(0, 1, (2, 3, 4, 2)).astype(F)
    scores[0, 0, 0, :] = scores[0, 1, 2, 1] = 0.5           # ties keep position order
    deltas = rng.normal(0, 0.4, (2, 3, 4, 8)).astype(F)
    deltas[1, 0, 0, 2:4] = 9.0                               # capped growth
    info = np.array([[30, 40, 1, 0, 0], [24, 20, 2, 0, 0]], F)
    anchors = np.array([[[y * 7, x * 9, y * 7 + 14, x * 9 + 12,
                          y * 7 - 2, x * 9 + 1, y * 7 + 9, x * 9 + 20] for x in range(4)]
                        for y in range(3)], F)
    return scores, deltas, info, anchors


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("threshold,pre,min_size,post", [
    (0.7, 6000, 4.0, 30), (0.1, 9, 2.0, 4), (0.0, 24, 0.0, 24), (1.0, 5, 6.0, 3)])
def test_matches_the_kernels_steps(mode, threshold, pre, min_size, post):
    scores, deltas, info, anchors = _inputs(int(threshold * 10) + pre)
    run = MODES[mode](lambda s, d, i, a: tf.image.generate_bounding_box_proposals(
        s, d, i, a, nms_threshold=threshold, pre_nms_topn=pre, min_size=min_size,
        post_nms_topn=post))
    rois, probs = run(*(tf.constant(v) for v in (scores, deltas, info, anchors)))
    want_rois, want_probs = _reference(scores, deltas, info, anchors, threshold, pre,
                                       min_size, post)
    assert rois.shape == (2, post, 4) and probs.shape == (2, post)
    np.testing.assert_allclose(rois.numpy(), want_rois, rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(probs.numpy(), want_probs)


def test_errors():
    scores, deltas, info, anchors = _inputs(0)
    propose = tf.image.generate_bounding_box_proposals
    with pytest.raises(tf.errors.InvalidArgumentError, match="post_nms_topn can't be 0"):
        propose(scores, deltas, info, anchors, post_nms_topn=0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="between 0 and 1. Got 1.5"):
        propose(scores, deltas, info, anchors, nms_threshold=1.5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="greater than 0"):
        propose(scores, deltas, info, anchors, pre_nms_topn=0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be rank 3 but is rank 2"):
        propose(scores, deltas, info, anchors.reshape(-1, 4))
