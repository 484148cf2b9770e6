"""`tf.image.sample_distorted_bounding_box` and its stateless form, as TF's kernel samples a
crop: up to `max_attempts` crops of a random aspect ratio and area (rounded to whole pixels
as the kernel rounds them, with its one-pixel corrections), placed at random, the first that
covers at least `min_object_covered` of one of the boxes kept, else the whole image. The
attempts are drawn at once (four uniforms each) and the first success picked, so the op runs
in every mode; the draws are flowjit's generator's, so a seed picks other crops than TF's
(README, Differences from TF). Not differentiable, as TF's kernel."""
from __future__ import annotations

from ...ir import dtypes as D
from ..eager.dispatch import convert_to_tensor, op_error
from ..export import tf_export
from . import array as A
from . import math as M
from . import reduce as R
from .logging import Assert
from .program import get_static_value
from .random import stateless_uniform, uniform

_SIZE_TYPES = ("uint8", "int8", "int16", "int32", "int64")


def _attrs(opname, min_object_covered, aspect_ratio_range, area_range, max_attempts):
    """The kernel's checks of its attributes, with TF's defaults."""
    aspect = [0.75, 1.33] if aspect_ratio_range is None else list(aspect_ratio_range)
    area = [0.05, 1.0] if area_range is None else list(area_range)
    attempts = 100 if max_attempts is None else int(max_attempts)
    covered = get_static_value(convert_to_tensor(min_object_covered, dtype=D.float32))
    if len(aspect) != 2:
        raise op_error(opname, "Aspect ratio range field must specify 2 dimensions")
    if len(area) != 2:
        raise op_error(opname, "Area range field must specify 2 dimensions")
    shown = "[" + ", ".join(f"{v:g}" for v in area) + "]"
    if min(area) <= 0:
        raise op_error(opname, f"Area range must be non-negative: {shown}")
    if max(area) > 1:
        raise op_error(opname, f"Area range must be less then or equal to 1.0: {shown}")
    if min(aspect) <= 0:
        raise op_error(opname, "Aspect ratio range must be non-negative: [" +
                       ", ".join(f"{v:g}" for v in aspect) + "]")
    if attempts <= 0:
        raise op_error(opname, f"Max attempts must be non-negative: {attempts}")
    if covered is not None and covered < 0:
        raise op_error(opname, f"Min object covered must be non-negative: {covered:g}")
    return [float(v) for v in aspect], [float(v) for v in area], attempts


def _image_and_boxes(opname, image_size, bounding_boxes, use_image):
    size = convert_to_tensor(image_size)
    if size.dtype.name not in _SIZE_TYPES:
        raise op_error(opname, f"Value for attr 'T' of {D.runtime_name(size.dtype)} is not "
                               f"in the list of allowed values: {', '.join(_SIZE_TYPES)}",
                       dtype_error=True)
    if size.shape.rank != 1 or size.shape[0] not in (None, 3):
        raise op_error(opname, f"image_size must contain 3 elements"
                               f"[{','.join(map(str, size.shape.as_list()))}]")
    boxes = convert_to_tensor(bounding_boxes, dtype=D.float32)
    if boxes.shape.rank != 3:
        raise op_error(opname, f"input boxes must be 3-dimensional [batch, num_boxes, "
                               f"coords]: [{','.join(map(str, boxes.shape.as_list()))}]")
    boxes = A.reshape(boxes, [-1, 4])
    known = get_static_value(boxes)
    check = "All bounding box coordinates must be in [0.0, 1.0]"
    if known is None:
        Assert(R.reduce_all(M.logical_and(M.greater_equal(boxes, 0.0),
                                          M.less_equal(boxes, 1.0))), [check])
    elif ((known < 0) | (known > 1)).any():
        raise op_error(opname, f"{check}: {known[(known < 0) | (known > 1)][0]:g}")
    if boxes.shape[0] == 0:
        if not use_image:
            raise op_error(opname, "No bounding boxes provided as input. One must enable "
                                   "use_image_if_no_bounding_boxes if you wish to not provide "
                                   "any bounding boxes.")
        boxes = A.constant([[0.0, 0.0, 1.0, 1.0]])
    return size, boxes


def _crop_sizes(draw_aspect, draw_height, aspect_range, area_range, height, width):
    """[attempts] int32 crop heights and widths and whether each meets the area range, as
    the kernel's GenerateRandomCrop sizes them (float32 arithmetic, lrintf rounding)."""
    low, high = aspect_range
    aspect = draw_aspect * (high - low) + low
    pixels = M.cast(width, D.float32) * M.cast(height, D.float32)
    min_area, max_area = area_range[0] * pixels, area_range[1] * pixels
    rint = lambda v: M.cast(M.round(v), D.int32)                          # noqa: E731
    crop_h = rint(M.sqrt(min_area / aspect))
    max_h = rint(M.sqrt(max_area / aspect))
    too_wide = M.greater(rint(M.cast(max_h, D.float32) * aspect), width)
    narrowed = M.cast((M.cast(width, D.float64) + (0.5 - 1e-7)) /
                      M.cast(aspect, D.float64), D.int32)
    narrowed = narrowed - M.cast(M.greater(rint(M.cast(narrowed, D.float32) * aspect), width),
                                 D.int32)
    max_h = M.minimum(M.where(too_wide, narrowed, max_h), height)
    crop_h = M.minimum(crop_h, max_h)
    crop_h = crop_h + M.cast(draw_height * M.cast(max_h - crop_h + 1, D.float32), D.int32)
    area = lambda h: M.cast(rint(M.cast(h, D.float32) * aspect) * h, D.float32)  # noqa: E731
    crop_h = crop_h + M.cast(M.less(area(crop_h), min_area), D.int32)
    crop_h = crop_h - M.cast(M.greater(area(crop_h), max_area), D.int32)
    crop_w = rint(M.cast(crop_h, D.float32) * aspect)
    final = area(crop_h)
    fits = M.logical_and(M.logical_and(M.greater_equal(final, min_area),
                                       M.less_equal(final, max_area)),
                         M.logical_and(M.logical_and(M.less_equal(crop_w, width),
                                                     M.less_equal(crop_h, height)),
                                       M.logical_and(M.greater(crop_w, 0),
                                                     M.greater(crop_h, 0))))
    possible = area_range[0] <= area_range[1]
    return crop_h, crop_w, M.logical_and(fits, possible)


def _covers(top, left, crop_h, crop_w, boxes, height, width, min_covered):
    """[attempts] whether each crop covers at least `min_covered` of a box of at least one
    pixel (the boxes in whole pixels, truncated as the kernel truncates them)."""
    scale = A.stack([height, width, height, width])
    pixels = M.cast(boxes * M.cast(scale, D.float32), D.int32)          # [boxes, 4]
    y0, x0, y1, x1 = (A.expand_dims(pixels[:, i], 0) for i in range(4))
    top, left = A.expand_dims(top, 1), A.expand_dims(left, 1)
    bottom, right = top + A.expand_dims(crop_h, 1), left + A.expand_dims(crop_w, 1)
    inter_h = M.maximum(M.minimum(bottom, y1) - M.maximum(top, y0), 0)
    inter_w = M.maximum(M.minimum(right, x1) - M.maximum(left, x0), 0)
    box_area = M.cast((y1 - y0) * (x1 - x0), D.float32)
    covered = M.greater_equal(M.cast(inter_h * inter_w, D.float32) / box_area, min_covered)
    counted = M.logical_and(M.greater_equal(box_area, 1.0), covered)
    return M.logical_and(R.reduce_any(counted, 1),
                         M.greater_equal(M.cast(crop_h * crop_w, D.float32), 1.0))


def _sample(opname, draw, image_size, bounding_boxes, min_object_covered, aspect_ratio_range,
            area_range, max_attempts, use_image_if_no_bounding_boxes):
    aspect, area, attempts = _attrs(opname, min_object_covered, aspect_ratio_range,
                                    area_range, max_attempts)
    size, boxes = _image_and_boxes(opname, image_size, bounding_boxes,
                                   use_image_if_no_bounding_boxes)
    height, width = M.cast(size[0], D.int32), M.cast(size[1], D.int32)
    u = draw([4, attempts])
    crop_h, crop_w, fits = _crop_sizes(u[0], u[1], aspect, area, height, width)
    place = lambda v, room: M.cast(v * M.cast(M.maximum(room, 0), D.float32), D.int32)  # noqa
    top, left = place(u[2], height - crop_h), place(u[3], width - crop_w)
    covered = convert_to_tensor(min_object_covered, dtype=D.float32)
    ok = M.logical_and(fits, _covers(top, left, crop_h, crop_w, boxes, height, width,
                                     covered))
    first = A.one_hot(R.argmax(M.cast(ok, D.int32)), attempts, dtype=D.int32)
    pick = lambda v, whole: M.where(R.reduce_any(ok), R.reduce_sum(v * first), whole)  # noqa
    top, left = pick(top, 0), pick(left, 0)
    crop_h, crop_w = pick(crop_h, height), pick(crop_w, width)
    begin = A.stack([top, left, 0])
    extent = A.stack([crop_h, crop_w, -1])
    fh, fw = M.cast(height, D.float32), M.cast(width, D.float32)
    box = A.stack([M.cast(top, D.float32) / fh, M.cast(left, D.float32) / fw,
                   M.cast(top + crop_h, D.float32) / fh, M.cast(left + crop_w, D.float32) / fw])
    return (M.cast(begin, size.dtype), M.cast(extent, size.dtype),
            A.reshape(box, [1, 1, 4]))


@tf_export("image.sample_distorted_bounding_box")
def sample_distorted_bounding_box(image_size, bounding_boxes, seed=0, min_object_covered=0.1,
                                  aspect_ratio_range=None, area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """(begin, size, bboxes): a random crop of an image of `image_size` [height, width,
    channels] for tf.slice, covering enough of one of `bounding_boxes` [batch, boxes, 4]
    (normalized y_min, x_min, y_max, x_max), and the crop as one such box [1, 1, 4]."""
    def draw(shape):
        return uniform(shape, seed=seed or None)
    return _sample("SampleDistortedBoundingBoxV2", draw, image_size, bounding_boxes,
                   min_object_covered, aspect_ratio_range, area_range, max_attempts,
                   use_image_if_no_bounding_boxes)


@tf_export("image.stateless_sample_distorted_bounding_box")
def stateless_sample_distorted_bounding_box(image_size, bounding_boxes, seed,
                                            min_object_covered=0.1, aspect_ratio_range=None,
                                            area_range=None, max_attempts=None,
                                            use_image_if_no_bounding_boxes=None, name=None):
    """sample_distorted_bounding_box drawn from the [2] `seed`: the same seed gives the same
    crop."""
    def draw(shape):
        return stateless_uniform(shape, seed=seed)
    return _sample("StatelessSampleDistortedBoundingBox", draw, image_size, bounding_boxes,
                   min_object_covered, aspect_ratio_range, area_range, max_attempts,
                   use_image_if_no_bounding_boxes)
