"""`tf.image`'s geometric ops, composed from reverse, transpose, slices and pads as TF composes
them: flips, rotations by quarter turns, transposes, crops and pads. Images are [h, w, c] or
batches [n, h, w, c]; the crop and pad boxes are Python ints (or constant tensors), checked
against the static height and width as TF checks them."""
from __future__ import annotations

from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
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
