"""`tf.image.generate_bounding_box_proposals` as TF's kernel computes it (TF 2.21 has a GPU
kernel only; flowjit runs it in every mode): per image, the `pre_nms_topn` best scores
(ties in position order), their anchors moved by the deltas (widths and heights scaled by
exp(d), d capped at log(1000 / 16)), clipped to the image, boxes narrower or shorter than
`min_size` times the image's scale dropped, then a greedy non-max suppression in score order
(IoU above `nms_threshold` suppresses; empty boxes suppress nothing) keeping at most
`post_nms_topn`, padded with zeros. Anchors are [height, width, 4 * anchors], as TF's kernel
and shape function read them (its docstring's [anchors, 4] is refused by its shape
function). Not differentiable, as TF's."""
from __future__ import annotations

import math

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ..control.functional_ops import foldl
from ..eager.dispatch import convert_to_tensor, op_error
from ..export import tf_export
from . import array as A
from . import math as M
from . import reduce as R
from .linalg import top_k
from .program import get_static_value

_OP = "GenerateBoundingBoxProposals"
_DELTA_CAP = float(np.float32(math.log(1000.0 / 16.0)))


def _ranked(opname, tensors_and_ranks):
    for t, rank in tensors_and_ranks:
        if t.shape.rank != rank:
            raise op_error(opname, f"Shape must be rank {rank} but is rank {t.shape.rank}")


def _decoded(anchors, deltas, info, min_size):
    """[images, n, 4] boxes (x1, y1, x2, y2) decoded and clipped, and which are big enough."""
    y1, x1, y2, x2 = (anchors[..., i] for i in range(4))
    dy, dx, dh, dw = (deltas[..., i] for i in range(4))
    dw, dh = M.minimum(dw, _DELTA_CAP), M.minimum(dh, _DELTA_CAP)

    def moved(lo, hi, shift, scale):
        size = hi - lo
        center = lo + 0.5 * size + size * shift
        half = 0.5 * (size * M.exp(scale))
        return center - half, center + half

    x1, x2 = moved(x1, x2, dx, dw)
    y1, y2 = moved(y1, y2, dy, dh)
    height, width = info[:, 0:1], info[:, 1:2]

    def clip(v, top):
        return M.maximum(M.minimum(v, top), 0.0)

    x1, x2, y1, y2 = clip(x1, width), clip(x2, width), clip(y1, height), clip(y2, height)
    big = M.greater_equal(M.minimum(x2 - x1, y2 - y1), min_size * info[:, 2:3])
    return (x1, y1, x2, y2), big


def _overlaps(box, threshold):
    """[images, n, n]: box i (earlier, better) suppresses box j: intersection over union
    above `threshold`, compared as TF's GPU kernel compares it (no division)."""
    x1, y1, x2, y2 = box
    area = (x2 - x1) * (y2 - y1)
    a = lambda v: A.expand_dims(v, 2)                                    # noqa: E731
    b = lambda v: A.expand_dims(v, 1)                                    # noqa: E731
    w = M.maximum(M.minimum(a(x2), b(x2)) - M.maximum(a(x1), b(x1)), 0.0)
    h = M.maximum(M.minimum(a(y2), b(y2)) - M.maximum(a(y1), b(y1)), 0.0)
    inter = w * h
    over = M.greater(inter, (a(area) + b(area) - inter) * threshold)
    nonempty = M.logical_and(M.not_equal(a(area), 0.0), M.not_equal(b(area), 0.0))
    return M.logical_and(over, nonempty)


def _greedy(over, candidate, limit):
    """[images, n] the boxes kept: in order, a candidate no kept box suppresses, until
    `limit` are kept."""
    n = candidate.shape[1]
    steps = A.range(n)

    def step(kept, j):
        suppressed = R.reduce_any(M.logical_and(kept, A.gather(over, j, axis=2)), axis=1)
        room = M.less(R.reduce_sum(M.cast(kept, D.int32), axis=1), limit)
        take = M.logical_and(M.logical_and(A.gather(candidate, j, axis=1), room),
                             M.logical_not(suppressed))
        return M.logical_or(kept, M.logical_and(M.equal(steps, j), A.expand_dims(take, 1)))

    return foldl(step, A.range(n), initializer=M.equal(A.zeros_like(candidate, D.int32), 1))


@tf_export("image.generate_bounding_box_proposals")
def generate_bounding_box_proposals(scores, bbox_deltas, image_info, anchors, nms_threshold=0.7,
                                    pre_nms_topn=6000, min_size=16, post_nms_topn=300,
                                    name=None):
    """(rois [images, post_nms_topn, 4] as (y1, x1, y2, x2), their scores [images,
    post_nms_topn]) from `scores` [images, height, width, anchors], `bbox_deltas` [images,
    height, width, 4 * anchors] (dy, dx, dh, dw), `image_info` [images, 5] (height, width,
    scale, ...) and `anchors` [height, width, 4 * anchors] (y1, x1, y2, x2)."""
    scores, deltas, info, anchors = (convert_to_tensor(v, dtype=D.float32) for v in
                                     (scores, bbox_deltas, image_info, anchors))
    threshold = convert_to_tensor(nms_threshold, dtype=D.float32)
    min_size = convert_to_tensor(min_size, dtype=D.float32)
    pre = get_static_value(convert_to_tensor(pre_nms_topn, dtype=D.int32))
    _ranked(_OP, [(scores, 4), (deltas, 4), (info, 2), (anchors, 3), (threshold, 0),
                  (min_size, 0)])
    if post_nms_topn <= 0:
        raise op_error(_OP, "post_nms_topn can't be 0 or less")
    known = get_static_value(threshold)
    if known is not None and not 0 <= known <= 1:
        raise op_error(_OP, f"nms_threshold should be between 0 and 1. Got {known:g}")
    if pre is None:
        raise NotImplementedError("generate_bounding_box_proposals: `pre_nms_topn` must be "
                                  "known when the op is built (it sizes the candidates)")
    if pre <= 0:
        raise op_error(_OP, "pre_nms_topn should be greater than 0")
    images, height, width, count = scores.shape.as_list()
    if None in (height, width, count):
        raise NotImplementedError("generate_bounding_box_proposals: the scores' height, "
                                  "width and anchors must be known while tracing")
    if anchors.shape[2] is not None and anchors.shape[2] != 4 * count:
        raise errors.OutOfRangeError(None, _OP, "Box dimensions need to be 4")
    boxes = height * width * count
    n = min(boxes, int(pre))
    best, at = top_k(A.reshape(scores, [-1, boxes]), n)
    moved = A.gather(A.reshape(deltas, [-1, boxes, 4]), at, batch_dims=1)
    corners = A.gather(A.reshape(anchors, [boxes, 4]), at)
    box, big = _decoded(corners, moved, info, min_size)
    kept = _greedy(_overlaps(box, threshold), big, post_nms_topn)
    # The kept boxes in score order first: a kept box's key is its position, others sort last.
    key = M.where(kept, -A.range(n), -n - A.range(n))
    width_out = min(n, post_nms_topn)
    _, order = top_k(key, width_out)
    chosen = A.gather(kept, order, batch_dims=1)
    rois = A.stack([A.gather(box[i], order, batch_dims=1) for i in (1, 0, 3, 2)], 2)
    rois = M.where(A.expand_dims(chosen, 2), rois, A.zeros_like(rois))
    probs = M.where(chosen, A.gather(best, order, batch_dims=1), A.zeros_like(chosen, D.float32))
    pad = post_nms_topn - width_out
    rois = A.stop_gradient(A.pad(rois, [[0, 0], [0, pad], [0, 0]]))
    return rois, A.stop_gradient(A.pad(probs, [[0, 0], [0, pad]]))
