"""`tf.image`'s greedy non-maximum suppression: repeatedly keep the best-scoring candidate
left (ties: the lower index) and drop the candidates that overlap it by more than the
threshold, at most max_output_size times. Composed from a pairwise overlap matrix and one
argmax step per kept box (max_output_size is a Python int), so the result has the data's
length: eagerly and in the graph executor, not under XLA (as TF's unpadded kernels)."""
from __future__ import annotations

from ...ir import dtypes as D
from ...ir import errors
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from . import reduce as R


def _iou(boxes):
    """TF's pairwise intersection over union of [n, 4] boxes (corners in either order); 0
    for a box without area."""
    lo_y = M.minimum(boxes[:, 0], boxes[:, 2])
    hi_y = M.maximum(boxes[:, 0], boxes[:, 2])
    lo_x = M.minimum(boxes[:, 1], boxes[:, 3])
    hi_x = M.maximum(boxes[:, 1], boxes[:, 3])
    area = (hi_y - lo_y) * (hi_x - lo_x)

    def overlap(lo, hi):
        top = M.maximum(A.expand_dims(lo, 1), A.expand_dims(lo, 0))
        bottom = M.minimum(A.expand_dims(hi, 1), A.expand_dims(hi, 0))
        return M.maximum(bottom - top, 0.0)
    inter = overlap(lo_y, hi_y) * overlap(lo_x, hi_x)
    union = A.expand_dims(area, 1) + A.expand_dims(area, 0) - inter
    has_area = M.logical_and(A.expand_dims(area > 0, 1), A.expand_dims(area > 0, 0))
    safe = M.where(has_area, union, A.ones_like(union))
    return M.where(has_area, inter / safe, A.zeros_like(inter))


def _count(value, what):
    value = value.numpy() if hasattr(value, "numpy") else value
    value = int(value)
    if value < 0:
        raise errors.InvalidArgumentError(None, "non_max_suppression",
                                          f"{what} must be non-negative")
    return value


def _greedy(overlaps, scores, max_output_size, threshold, score_threshold):
    """(kept indices int32, their scores) of the greedy suppression over `overlaps`."""
    alive = M.greater(scores, M.cast(score_threshold, scores.dtype))
    n = A.shape(scores)[0]
    index = A.range(n)
    low = A.fill(A.shape(scores), float("-inf"))
    picks, found = [], []
    for _ in range(max_output_size):
        best = M.cast(R.argmax(M.where(alive, scores, M.cast(low, scores.dtype)), 0), D.int32)
        hit = R.reduce_any(alive)
        picks.append(best)
        found.append(hit)
        beaten = M.greater(A.gather(overlaps, best), M.cast(threshold, overlaps.dtype))
        alive = M.logical_and(alive, M.logical_not(M.logical_or(beaten, M.equal(index, best))))
    if not picks:
        return A.zeros([0], D.int32), A.zeros([0], scores.dtype)
    kept = R.reduce_sum(M.cast(A.stack(found), D.int32))
    selected = A.stack(picks)[:kept]
    return selected, A.gather(scores, selected)


def _inputs(boxes, scores, max_output_size, threshold, what):
    b, s = convert_to_tensor(boxes), convert_to_tensor(scores)
    t = float(threshold.numpy() if hasattr(threshold, "numpy") else threshold)
    if not 0.0 <= t <= 1.0:
        raise errors.InvalidArgumentError(None, "non_max_suppression",
                                          f"{what} must be in [0, 1]")
    return b, s, _count(max_output_size, "max_output_size"), t


@tf_export("image.non_max_suppression")
def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5,
                        score_threshold=float("-inf"), name=None):
    """Indices (int32) of at most max_output_size boxes ([n, 4]) kept by greedy
    suppression at IoU > iou_threshold, among those scoring above score_threshold."""
    b, s, count, t = _inputs(boxes, scores, max_output_size, iou_threshold, "iou_threshold")
    return _greedy(_iou(b), s, count, t, score_threshold)[0]


@tf_export("image.non_max_suppression_with_scores")
def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0,
                                    name=None):
    """non_max_suppression's indices and the kept boxes' scores; flowjit suppresses hard
    only (soft_nms_sigma 0)."""
    if soft_nms_sigma != 0.0:
        raise NotImplementedError("non_max_suppression_with_scores: flowjit provides hard "
                                  "suppression only (soft_nms_sigma=0.0)")
    b, s, count, t = _inputs(boxes, scores, max_output_size, iou_threshold, "iou_threshold")
    return _greedy(_iou(b), s, count, t, score_threshold)


@tf_export("image.non_max_suppression_overlaps")
def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None):
    """non_max_suppression with a given [n, n] overlap matrix in place of the boxes' IoU."""
    o, s = convert_to_tensor(overlaps), convert_to_tensor(scores)
    return _greedy(o, s, _count(max_output_size, "max_output_size"), float(overlap_threshold),
                   score_threshold)[0]
