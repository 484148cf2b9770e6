"""`tf.image`'s greedy non-maximum suppression: repeatedly keep the best-scoring candidate
left (ties: the lower index) and drop the candidates that overlap it by more than the
threshold, at most max_output_size times. Composed from a pairwise overlap matrix and one
argmax step per kept box (max_output_size is a Python int), so the result has the data's
length: eagerly and in the graph executor, not under XLA (as TF's unpadded kernels).
combined_non_max_suppression keeps the picks padded to their static count and ranks them with
top_k, so it compiles under XLA too."""
from __future__ import annotations

from ...ir import dtypes as D
from ...ir import errors
from ..control.functional_ops import foldl
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from . import linalg
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


def _greedy_padded(overlaps, scores, max_output_size, threshold, score_threshold):
    """([max_output_size] int32 picks, [max_output_size] bool whether each pick was found)
    of the greedy suppression over `overlaps`: a static size, the picks left-aligned."""
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
        return A.zeros([0], D.int32), A.zeros([0], D.bool_)
    return A.stack(picks), A.stack(found)


def _greedy(overlaps, scores, max_output_size, threshold, score_threshold):
    """(kept indices int32, their scores) of the greedy suppression over `overlaps`."""
    picks, found = _greedy_padded(overlaps, scores, max_output_size, threshold,
                                  score_threshold)
    selected = picks[:R.reduce_sum(M.cast(found, D.int32))]
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


def _shape_of(x, rank, what):
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims is None or len(dims) != rank or None in dims:
        raise ValueError(f"combined_non_max_suppression: flowjit needs {what} of rank {rank} "
                         f"and known shape while tracing, got {x.shape}")
    return dims


def _best_of_batch(boxes, scores, per_class, total, threshold, score_threshold, clip):
    """One batch element: each class's greedy picks, the best `total` of them by score,
    zero-padded; their boxes, scores, classes (float) and count."""
    classes, shared = scores.shape[1], boxes.shape[1] == 1
    cand_scores, cand_boxes, cand_classes = [], [], []
    for c in range(classes):
        box, score = boxes[:, 0 if shared else c, :], scores[:, c]
        picks, found = _greedy_padded(_iou(box), score, per_class, threshold, score_threshold)
        cand_scores.append(M.where(found, A.gather(score, picks),
                                   A.fill(A.shape(found), float("-inf"))))
        cand_boxes.append(A.gather(box, picks))
        cand_classes.append(A.fill(A.shape(found), float(c)))
    all_scores = A.concat(cand_scores, 0)
    best_scores, best = linalg.top_k(all_scores, min(total, classes * per_class))
    kept = M.greater(best_scores, float("-inf"))
    zeros = A.zeros_like(best_scores)
    out_boxes = A.gather(A.concat(cand_boxes, 0), best)
    if clip:
        out_boxes = M.minimum(M.maximum(out_boxes, 0.0), 1.0)
    out = [M.where(A.expand_dims(kept, 1), out_boxes, A.zeros_like(out_boxes)),
           M.where(kept, best_scores, zeros),
           M.where(kept, A.gather(A.concat(cand_classes, 0), best), zeros)]
    short = total - min(total, classes * per_class)
    if short:
        out = [A.concat([o, A.zeros([short] + o.shape.as_list()[1:], o.dtype)], 0) for o in out]
    return out + [R.reduce_sum(M.cast(kept, D.int32))]


@tf_export("image.combined_non_max_suppression")
def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size,
                                 iou_threshold=0.5, score_threshold=float("-inf"),
                                 pad_per_class=False, clip_boxes=True, name=None):
    """Per batch element: greedy suppression within each class (boxes [batch, n, q, 4], q 1
    or one per class; scores [batch, n, classes]), then the best max_total_size selections
    over all classes by score. Returns the boxes (clipped to [0, 1] with clip_boxes), scores,
    classes (float) zero-padded to max_total_size (or, with pad_per_class, to at most
    max_output_size_per_class * classes), and the count of valid selections (int32)."""
    b, s = convert_to_tensor(boxes), convert_to_tensor(scores)
    batch, n, q, four = _shape_of(b, 4, "boxes")
    _, n_scores, classes = _shape_of(s, 3, "scores")
    if q not in (1, classes):
        raise errors.InvalidArgumentError(None, "CombinedNonMaxSuppression", "third dimension "
                                          "of boxes must be either 1 or num classes")
    if four != 4 or n != n_scores:
        raise errors.InvalidArgumentError(
            None, "CombinedNonMaxSuppression", f"boxes {b.shape.as_list()} and scores "
            f"{s.shape.as_list()} are not [batch, n, q, 4] and [batch, n, classes]")
    per_class = _count(max_output_size_per_class, "max_output_size_per_class")
    total = _count(max_total_size, "max_total_size")
    if per_class < 1:
        raise errors.InvalidArgumentError(None, "CombinedNonMaxSuppression",
                                          "max_size_per_class must be positive")
    if pad_per_class:
        total = min(total, per_class * classes)
    t = float(iou_threshold.numpy() if hasattr(iou_threshold, "numpy") else iou_threshold)
    if not 0.0 <= t <= 1.0:
        raise errors.InvalidArgumentError(None, "CombinedNonMaxSuppression",
                                          "iou_threshold must be in [0, 1]")
    rows = [_best_of_batch(b[i], s[i], per_class, total, t, score_threshold, clip_boxes)
            for i in range(batch)]
    # not differentiable (TF registers no gradient)
    return tuple(A.stop_gradient(A.stack([r[k] for r in rows])) for k in range(4))


def _padded_selection(boxes, order, iou_threshold, max_output_size):
    """One image of non_max_suppression_padded: boxes [n, 4] in score order (`order`: their
    input indices). Greedy as TF's tiled loop: a box survives unless an earlier survivor
    overlaps it by IoU >= the threshold; a survivor with no coordinate above 0 is not
    reported. The first max_output_size reported (input indices, zero-padded) and their count."""
    y0, x0, y1, x1 = (boxes[:, i] for i in range(4))
    inter = (M.maximum(M.minimum(A.expand_dims(x1, 1), x1) - M.maximum(A.expand_dims(x0, 1), x0),
                       0.0) *
             M.maximum(M.minimum(A.expand_dims(y1, 1), y1) - M.maximum(A.expand_dims(y0, 1), y0),
                       0.0))
    area = (y1 - y0) * (x1 - x0)
    iou = inter / (A.expand_dims(area, 1) + area - inter + 1e-8)
    n = boxes.shape[0]
    later = M.less(A.expand_dims(A.range(n), 1), A.range(n))
    # TF's loop lets a box suppress only where its own overlaps stay below the threshold,
    # which none does at a threshold <= 0: nothing is suppressed then
    overlapping = M.logical_and(M.greater_equal(iou, iou_threshold), later) \
        if iou_threshold > 0 else A.zeros([n, n], D.bool_)

    def step(alive, i):
        return M.logical_and(alive, M.logical_not(M.logical_and(A.gather(alive, i),
                                                                A.gather(overlapping, i))))
    alive = foldl(step, A.range(n), initializer=A.ones([n], D.bool_)) if n else \
        A.zeros([0], D.bool_)
    reported = M.logical_and(alive, R.reduce_any(M.greater(boxes, 0.0), 1))
    rank = R.cumsum(M.cast(reported, D.int32), exclusive=True)
    slot = M.logical_and(A.expand_dims(reported, 1),
                         M.equal(A.expand_dims(rank, 1), A.range(max_output_size)))
    picked = R.reduce_sum(M.cast(slot, D.int32) * A.expand_dims(order, 1), 0)
    count = M.minimum(R.reduce_sum(M.cast(reported, D.int32)), max_output_size)
    return picked, count


@tf_export("image.non_max_suppression_padded")
def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5,
                               score_threshold=float("-inf"), pad_to_max_output_size=False,
                               name=None, sorted_input=False, canonicalized_coordinates=False,
                               tile_size=512):
    """Greedy suppression over boxes [..., n, 4] by scores [..., n], as TF's padded
    algorithm: boxes scoring at most score_threshold are zeroed, corner order is taken from
    the first box, suppression at IoU >= iou_threshold. Returns the kept indices padded with
    zeros to max_output_size (with pad_to_max_output_size; required for batches, else cut to
    the count) and the count of valid ones."""
    b = M.cast(convert_to_tensor(boxes), D.float32)
    s = M.cast(convert_to_tensor(scores), D.float32)
    if not pad_to_max_output_size and b.shape.rank is not None and b.shape.rank > 2:
        raise ValueError(f"'pad_to_max_output_size' (value {pad_to_max_output_size}) must be "
                         f"True for batched input")
    dims = b.shape.as_list() if b.shape.rank is not None else None
    if dims is None or None in dims:
        raise ValueError(f"non_max_suppression_padded: flowjit needs the boxes' shape known "
                         f"while tracing, got {b.shape}")
    count = _count(max_output_size, "max_output_size")
    n, outer = dims[-2], dims[:-2]
    b, s = A.reshape(b, [-1, n, 4]), A.reshape(s, [-1, n])
    if score_threshold != float("-inf"):
        keep = M.cast(M.greater(s, score_threshold), D.float32)
        s, b = s * keep, b * A.expand_dims(keep, 2)
    if not canonicalized_coordinates and n:
        # TF orders every box's corners as the first box's are ordered
        swap_y = M.greater(b[0, 0, 0], b[0, 0, 2])
        swap_x = M.greater(b[0, 0, 1], b[0, 0, 3])
        y0, y1 = M.where(swap_y, b[..., 2], b[..., 0]), M.where(swap_y, b[..., 0], b[..., 2])
        x0, x1 = M.where(swap_x, b[..., 3], b[..., 1]), M.where(swap_x, b[..., 1], b[..., 3])
        b = A.stack([y0, x0, y1, x1], 2)
    if sorted_input:
        order = A.broadcast_to(A.range(n), A.shape(s))
    else:
        order = A.argsort(s, axis=1, direction="DESCENDING", stable=True)
        b = A.gather(b, order, axis=1, batch_dims=1)
    rows = [_padded_selection(b[i], order[i], float(iou_threshold), count)
            for i in range(b.shape[0])]
    picked = A.reshape(A.stack([r[0] for r in rows]) if rows else A.zeros([0, count], D.int32),
                       outer + [count])
    valid = A.reshape(A.stack([r[1] for r in rows]) if rows else A.zeros([0], D.int32), outer)
    if not pad_to_max_output_size:
        picked = picked[:valid]
    return picked, valid


# TF's colors for boxes when `colors` is empty: RGBA rows, used cyclically.
_DEFAULT_COLORS = [[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1],
                   [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1]]


def _edge(value, size):
    """A normalized box edge as TF's kernel rounds it: value * (size - 1) truncated."""
    return M.cast(value * float(size - 1), D.int32)


@tf_export("image.draw_bounding_boxes")
def draw_bounding_boxes(images, boxes, colors, name=None):
    """The outlines (one pixel wide) of each image's boxes [y1, x1, y2, x2] (normalized)
    drawn over the [batch, h, w, depth] images, box k in color k modulo the color count; a
    later box paints over an earlier one."""
    x = convert_to_tensor(images)
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims is None or len(dims) != 4 or None in dims[1:]:
        raise ValueError(f"draw_bounding_boxes: images must be 4-D with height, width and "
                         f"depth known while tracing, got shape {x.shape}")
    _, h, w, depth = dims
    if depth not in (1, 3, 4):
        raise errors.InvalidArgumentError(None, "draw_bounding_boxes", "Channel depth should "
                                          "be either 1 (GRY), 3 (RGB), or 4 (RGBA)")
    b = convert_to_tensor(boxes)
    nb = b.shape.as_list()[1]
    table = convert_to_tensor(colors, dtype=x.dtype)
    shape = table.shape.as_list()
    if len(shape) != 2 or None in shape:
        raise ValueError(f"draw_bounding_boxes: colors must be a [num_colors, channels] "
                         f"matrix of known shape, got {table.shape}")
    if shape[1] < depth:
        raise errors.InvalidArgumentError(None, "draw_bounding_boxes", f"colors must have "
                                          f"equal or more channels than the image provided: "
                                          f"[{shape[0]},{shape[1]}]")
    if not shape[0]:   # TF's own colors; on a gray image its boxes are white
        table = A.constant([[1.0 if depth == 1 and i == 0 else v for i, v in enumerate(c)]
                            for c in _DEFAULT_COLORS], dtype=x.dtype)
        shape = [len(_DEFAULT_COLORS), 4]
    rows = A.reshape(A.range(h), [1, h, 1])
    cols = A.reshape(A.range(w), [1, 1, w])
    canvas = x
    for k in range(nb):
        y1, x1, y2, x2 = (A.reshape(_edge(b[:, k, i], size), [-1, 1, 1])
                          for i, size in enumerate((h, w, h, w)))
        valid = M.logical_and(M.logical_and(y1 <= y2, x1 <= x2),
                              M.logical_and(M.logical_and(y1 < h, y2 >= 0),
                                            M.logical_and(x1 < w, x2 >= 0)))
        across = M.logical_and(cols >= M.maximum(x1, 0), cols <= M.minimum(x2, w - 1))
        down = M.logical_and(rows >= M.maximum(y1, 0), rows <= M.minimum(y2, h - 1))
        lines = M.logical_or(M.logical_and(M.logical_or(M.equal(rows, y1), M.equal(rows, y2)),
                                           across),
                             M.logical_and(M.logical_or(M.equal(cols, x1), M.equal(cols, x2)),
                                           down))
        mask = A.expand_dims(M.logical_and(valid, lines), -1)
        color = table[k % shape[0], :depth]
        canvas = M.where(A.broadcast_to(mask, A.shape(canvas)),
                         A.broadcast_to(color, A.shape(canvas)), canvas)
    return canvas
