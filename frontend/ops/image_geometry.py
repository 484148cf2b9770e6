"""`tf.image`'s geometric ops, composed from reverse, transpose, slices and pads as TF composes
them: flips, rotations by quarter turns, transposes, crops and pads. Images are [h, w, c] or
batches [n, h, w, c]; the crop and pad boxes are Python ints (or constant tensors), checked
against the static height and width as TF checks them."""
from __future__ import annotations

import numpy as np

from ...ir import errors
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from .image import resize
from .linalg import _index


def _image(image, opname, ranks=(3, 4)):
    x = convert_to_tensor(image)
    rank = x.shape.rank
    if rank is None:
        raise ValueError(f"{opname}: flowjit needs the image's rank known while tracing")
    if rank not in ranks:
        if rank < 3:
            raise ValueError(f"'image' (shape {x.shape}) must be at least three-dimensional.")
        raise ValueError(f"'image' (shape {x.shape}) must have either 3 or 4 dimensions.")
    return x


def _height_width(x, opname):
    h, w = x.shape.as_list()[-3:-1]
    if h is None or w is None:
        raise ValueError(f"{opname}: flowjit needs the image's height and width known while "
                         f"tracing, got shape {x.shape}")
    return h, w


def _int(v, what):
    if hasattr(v, "numpy"):
        v = v.numpy()
    return _index(v.item() if hasattr(v, "item") else v, what)


def _spatial_perm(rank):
    """The permutation of a rank-3/4 image that swaps height and width."""
    return [1, 0, 2] if rank == 3 else [0, 2, 1, 3]


@tf_export("image.flip_left_right")
def flip_left_right(image):
    """Mirror each image along its width."""
    return A.reverse(_image(image, "flip_left_right"), [-2])


@tf_export("image.flip_up_down")
def flip_up_down(image):
    """Mirror each image along its height."""
    return A.reverse(_image(image, "flip_up_down"), [-3])


@tf_export("image.transpose")
def transpose(image, name=None):
    """Swap height and width."""
    x = _image(image, "transpose")
    return A.transpose(x, _spatial_perm(x.shape.rank))


@tf_export("image.rot90")
def rot90(image, k=1, name=None):
    """Rotate each image by k quarter turns counter-clockwise."""
    x = _image(image, "rot90")
    turns = _int(k, "k") % 4
    perm = _spatial_perm(x.shape.rank)
    if turns == 1:
        return A.transpose(A.reverse(x, [-2]), perm)
    if turns == 2:
        return A.reverse(x, [-3, -2])
    if turns == 3:
        return A.reverse(A.transpose(x, perm), [-2])
    return x


def _check_box(h, w, offset_height, offset_width, target_height, target_width, cropping):
    checks = ((offset_width >= 0, "offset_width must be >= 0."),
              (offset_height >= 0, "offset_height must be >= 0."))
    if cropping:
        checks += ((target_width > 0, "target_width must be > 0."),
                   (target_height > 0, "target_height must be > 0."),
                   (w >= target_width + offset_width, "width must be >= target + offset."),
                   (h >= target_height + offset_height, "height must be >= target + offset."))
    else:
        checks += ((target_width - offset_width - w >= 0, "width must be <= target - offset"),
                   (target_height - offset_height - h >= 0,
                    "height must be <= target - offset"))
    for ok, message in checks:
        if not ok:
            raise ValueError(message)


@tf_export("image.crop_to_bounding_box")
def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The [target_height, target_width] window whose top-left corner is at the offsets."""
    x = _image(image, "crop_to_bounding_box")
    h, w = _height_width(x, "crop_to_bounding_box")
    box = [_int(v, n) for v, n in ((offset_height, "offset_height"),
                                   (offset_width, "offset_width"),
                                   (target_height, "target_height"),
                                   (target_width, "target_width"))]
    _check_box(h, w, *box, cropping=True)
    top, left, height, width = box
    return x[..., top:top + height, left:left + width, :]


@tf_export("image.pad_to_bounding_box")
def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The image placed at the offsets in a [target_height, target_width] canvas of zeros."""
    x = _image(image, "pad_to_bounding_box")
    h, w = _height_width(x, "pad_to_bounding_box")
    box = [_int(v, n) for v, n in ((offset_height, "offset_height"),
                                   (offset_width, "offset_width"),
                                   (target_height, "target_height"),
                                   (target_width, "target_width"))]
    _check_box(h, w, *box, cropping=False)
    top, left, height, width = box
    pads = [[top, height - top - h], [left, width - left - w], [0, 0]]
    return A.pad(x, ([[0, 0]] if x.shape.rank == 4 else []) + pads)


@tf_export("image.resize_with_crop_or_pad")
def resize_with_crop_or_pad(image, target_height, target_width):
    """Center-crop the dims that are too large and zero-pad (centered) those too small."""
    x = _image(image, "resize_with_crop_or_pad")
    h, w = _height_width(x, "resize_with_crop_or_pad")
    th, tw = _int(target_height, "target_height"), _int(target_width, "target_width")
    if tw <= 0:
        raise ValueError("target_width must be > 0.")
    if th <= 0:
        raise ValueError("target_height must be > 0.")
    dh, dw = th - h, tw - w
    cropped = crop_to_bounding_box(x, max(-dh // 2, 0), max(-dw // 2, 0), min(th, h),
                                   min(tw, w))
    return pad_to_bounding_box(cropped, max(dh // 2, 0), max(dw // 2, 0), th, tw)


@tf_export("image.central_crop")
def central_crop(image, central_fraction):
    """The central `central_fraction` of each image's height and width."""
    x = _image(image, "central_crop")
    fraction = float(central_fraction)
    if fraction <= 0.0 or fraction > 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    if fraction == 1.0:
        return x
    h, w = _height_width(x, "central_crop")
    top = int((h - h * fraction) / 2)
    left = int((w - w * fraction) / 2)
    return x[..., top:h - top, left:w - left, :]


@tf_export("image.resize_with_pad")
def resize_with_pad(image, target_height, target_width, method="bilinear", antialias=False):
    """Resize keeping the aspect ratio so the image fits the target, then zero-pad it
    (centered) to the target size. The sizes follow TF's float32 arithmetic."""
    x = _image(image, "resize_with_pad")
    h, w = _height_width(x, "resize_with_pad")
    th, tw = _int(target_height, "target_height"), _int(target_width, "target_width")
    if tw <= 0:
        raise ValueError("target_width must be > 0.")
    if th <= 0:
        raise ValueError("target_height must be > 0.")
    f32 = np.float32
    ratio = max(f32(w) / f32(tw), f32(h) / f32(th))
    rh, rw = f32(h) / ratio, f32(w) / ratio
    top = max(0, int(np.floor((f32(th) - rh) / f32(2))))
    left = max(0, int(np.floor((f32(tw) - rw) / f32(2))))
    resized = resize(x, [int(np.floor(rh)), int(np.floor(rw))], method=method,
                     antialias=antialias)
    return pad_to_bounding_box(resized, top, left, th, tw)


def _window_list(value, what):
    values = [_int(v, what) for v in value]
    if len(values) != 4 or values[0] != 1 or values[3] != 1:
        raise errors.InvalidArgumentError(
            None, "extract_patches", f"{what} must be a list of 4 ints [1, row, col, 1], got "
                                     f"{values}")
    if min(values) < 1:
        raise errors.InvalidArgumentError(None, "extract_patches",
                                          f"{what} must be positive, got {values}")
    return values[1:3]


def _patch_geometry(size, k, stride, rate, padding):
    """(output count, padding before, padding after) along one axis of extract_patches."""
    span = (k - 1) * rate + 1
    if padding == "VALID":
        return max((size - span) // stride + 1, 0), 0, 0
    out = -(-size // stride)
    total = max((out - 1) * stride + span - size, 0)
    return out, total // 2, total - total // 2


@tf_export("image.extract_patches")
def extract_patches(images, sizes, strides, rates, padding, name=None):
    """Every [rows, cols] patch of the [batch, h, w, depth] images (taps `rates` apart,
    patches `strides` apart) flattened in row, column, depth order into the last dim."""
    x = convert_to_tensor(images)
    if x.shape.rank != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.shape.rank}")
    h, w = _height_width(x, "extract_patches")
    (kr, kc), (sr, sc), (rr, rc) = (_window_list(v, n) for v, n in (
        (sizes, "ksizes"), (strides, "strides"), (rates, "rates")))
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding!r}")
    rows, top, bottom = _patch_geometry(h, kr, sr, rr, padding)
    cols, left, right = _patch_geometry(w, kc, sc, rc, padding)
    xp = A.pad(x, [[0, 0], [top, bottom], [left, right], [0, 0]])
    taps = [xp[:, i * rr:i * rr + (rows - 1) * sr + 1:sr, j * rc:j * rc + (cols - 1) * sc + 1:sc]
            for i in range(kr) for j in range(kc)]
    return A.concat(taps, -1)


def _check_box_indices(index, batch):
    """TF's OutOfRangeError for an eager box index outside the batch (traced, the gather
    raises its InvalidArgumentError when it runs)."""
    if not hasattr(index, "numpy"):   # symbolic: no value while tracing
        return
    values = index.numpy()
    if batch is not None and values.size and (values.min() < 0 or values.max() >= batch):
        raise errors.OutOfRangeError(None, "crop_and_resize",
                                     "box_index has values outside [0, batch_size)")


def _sample_coords(lo, hi, size, crop):
    """TF's CropAndResize sampling positions in float32 for `crop` samples between the
    normalized box edges lo and hi ([boxes]): [boxes, crop], and which fall inside the
    image."""
    from . import math as M
    scale = M.cast(size - 1, lo.dtype)
    if crop > 1:
        step = (hi - lo) * scale / M.cast(crop - 1, lo.dtype)
        pos = A.expand_dims(lo * scale, 1) + A.expand_dims(step, 1) * M.cast(A.range(crop),
                                                                            lo.dtype)
    else:
        pos = A.expand_dims(0.5 * (lo + hi) * scale, 1)
    inside = M.logical_and(M.greater_equal(pos, 0.0), M.less_equal(pos, scale))
    return pos, inside


@tf_export("image.crop_and_resize")
def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear",
                    extrapolation_value=0.0, name=None):
    """For each box [y1, x1, y2, x2] (normalized; flipped boxes flip the crop) of image
    box_indices[i], a crop_size sample of it by bilinear or nearest interpolation, float32;
    samples outside the image are extrapolation_value."""
    from . import math as M
    x = convert_to_tensor(image)
    if x.shape.rank != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.shape.rank}")
    h, w = _height_width(x, "crop_and_resize")
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"method must be 'bilinear' or 'nearest', got {method!r}")
    ch, cw = [_int(v, "crop_size") for v in (crop_size.numpy() if hasattr(crop_size, "numpy")
                                            else crop_size)]
    if ch <= 0 or cw <= 0:
        raise errors.InvalidArgumentError(None, "crop_and_resize",
                                          "crop dimensions must be positive")
    b = M.cast(convert_to_tensor(boxes), np.float32)
    index = convert_to_tensor(box_indices)
    _check_box_indices(index, x.shape.as_list()[0])
    crops = M.cast(A.gather(x, index), np.float32)
    ys, y_in = _sample_coords(b[:, 0], b[:, 2], h, ch)
    xs, x_in = _sample_coords(b[:, 1], b[:, 3], w, cw)

    def taps(pos, limit, rounding):
        return M.cast(M.minimum(M.maximum(rounding(pos), 0.0), float(limit - 1)), np.int32)

    def pick(rows, cols):
        picked = A.gather(crops, rows, axis=1, batch_dims=1)
        return A.gather(picked, cols, axis=2, batch_dims=1)

    if method == "nearest":
        out = pick(taps(ys, h, lambda p: M.floor(p + 0.5)), taps(xs, w, lambda p: M.floor(p + 0.5)))
    else:
        top, bottom = taps(ys, h, M.floor), taps(ys, h, M.ceil)
        left, right = taps(xs, w, M.floor), taps(xs, w, M.ceil)
        y_lerp = A.reshape(ys - M.floor(ys), [-1, ch, 1, 1])
        x_lerp = A.reshape(xs - M.floor(xs), [-1, 1, cw, 1])
        upper = pick(top, left) + (pick(top, right) - pick(top, left)) * x_lerp
        lower = pick(bottom, left) + (pick(bottom, right) - pick(bottom, left)) * x_lerp
        out = upper + (lower - upper) * y_lerp
    inside = M.logical_and(A.reshape(y_in, [-1, ch, 1, 1]), A.reshape(x_in, [-1, 1, cw, 1]))
    fill = M.cast(extrapolation_value, np.float32)
    return M.where(A.broadcast_to(inside, A.shape(out)), out, fill * A.ones_like(out))
