"""TF-named image ops: `tf.image.resize` (bilinear and nearest, TF 2's half-pixel centers)
and `tf.image.adjust_contrast`, as compositions of gathers and arithmetic.

A resize reads the input's height and width while tracing: the source rows and columns and
the interpolation weights of every output pixel are then computed once, in NumPy, exactly as
TF's kernels compute them (in float32), and become constants of the graph. The gradient
comes from the gathers, and XLA compiles it like any other gather.
"""
from __future__ import annotations

import operator

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ...ir.shapes import format_shape
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import math as _m

_NOT_PROVIDED = ("bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic")


@tf_export("image.ResizeMethod")
class ResizeMethod:
    """The names `resize` takes for its `method` (TF's constants, plain strings)."""
    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


def _linear_taps(in_size: int, out_size: int):
    """Per output index: the lower and upper source index and the weight of the upper one
    (TF's compute_interpolation_weights with half-pixel centers, in float32)."""
    scale = np.float32(in_size / out_size)
    src = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale - np.float32(0.5)
    floor = np.floor(src)
    lower = np.maximum(floor, 0).astype(np.int32)
    upper = np.minimum(np.ceil(src), in_size - 1).astype(np.int32)
    return lower, upper, (src - floor).astype(np.float32)


def _nearest_taps(in_size: int, out_size: int):
    """Per output index: the source index (TF's half-pixel nearest rule: floor of the scaled
    pixel center, clamped to the input)."""
    scale = np.float32(in_size / out_size)
    src = np.floor((np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale)
    return np.clip(src, 0, in_size - 1).astype(np.int32)


def _static_size(size):
    if hasattr(size, "numpy") and hasattr(size, "dtype"):
        try:
            size = size.numpy()
        except NotImplementedError:
            raise ValueError("resize: flowjit needs `size` known while tracing (a list or a "
                             "constant)") from None
    size = list(np.asarray(size).reshape(-1)) if np.ndim(size) else [size]
    if len(size) != 2:
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    return [operator.index(s.item() if hasattr(s, "item") else s) for s in size]


@tf_export("image.resize")
def resize(images, size, method="bilinear", preserve_aspect_ratio=False, antialias=False,
           name=None):
    """Resize `images` ([batch,] height, width, channels) to `size` = [height, width].
    "bilinear" returns float32; "nearest" keeps the dtype. Height and width must be known
    while tracing."""
    method = getattr(method, "value", method)
    if method in _NOT_PROVIDED:
        raise NotImplementedError(f"resize: method {method!r} is not provided by flowjit; "
                                  f"use 'bilinear' or 'nearest'")
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"Resize method is not implemented: {method}")
    if antialias and method == "bilinear":
        raise NotImplementedError("resize: antialias=True is not provided by flowjit")
    x = convert_to_tensor(images)
    if x.shape.rank not in (3, 4):
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    height, width = x.shape.as_list()[-3:-1]
    if height is None or width is None:
        raise ValueError(f"resize: flowjit needs the image height and width known while "
                         f"tracing, got shape {x.shape}")
    out_h, out_w = _static_size(size)
    if preserve_aspect_ratio:
        scale = min(out_h / height, out_w / width)
        out_h, out_w = int(round(height * scale)), int(round(width * scale))
    if out_h <= 0 or out_w <= 0:
        raise errors.InvalidArgumentError(None, "resize", f"resize: output dimensions must be "
                                                          f"positive, got [{out_h}, {out_w}]")
    from .array import gather, gather_dense_gradient
    if method == "nearest":
        rows = gather_dense_gradient(x, _nearest_taps(height, out_h), -3)
        return gather(rows, _nearest_taps(width, out_w), axis=-2)
    x = _m.cast(x, D.float32)
    # Along the width first, then the height: TF's order of the two interpolations.
    left, right, wx = _linear_taps(width, out_w)
    top, bottom, wy = _linear_taps(height, out_h)

    def lerp(a, b, w):
        return _m.add(a, _m.multiply(_m.subtract(b, a), w))

    cols = lerp(gather(x, left, axis=-2), gather(x, right, axis=-2), wx[:, None])
    return lerp(gather_dense_gradient(cols, top, -3), gather_dense_gradient(cols, bottom, -3),
                wy[:, None, None])


def _to_float(x):
    """TF's convert_image_dtype to float32: integers scale by 1 / dtype.max."""
    if x.dtype.is_floating:
        return _m.cast(x, D.float32) if x.dtype is D.float64 else x
    return _m.multiply(_m.cast(x, D.float32), np.float32(1.0 / x.dtype.max))


def _from_float(x, dt):
    """TF's convert_image_dtype back, saturating: integers scale by dtype.max + 0.5."""
    if dt.is_floating:
        return _m.cast(x, dt)
    return _m.saturate_cast(_m.multiply(x, np.float32(dt.max + 0.5)), dt)


@tf_export("image.adjust_contrast")
def adjust_contrast(images, contrast_factor):
    """(x - mean) * contrast_factor + mean, the mean taken per image and channel over height
    and width. Integer images are scaled to [0, 1] floats and back (saturating), as TF's."""
    x = convert_to_tensor(images)
    if x.shape.rank is not None and x.shape.rank < 3:
        raise errors.InvalidArgumentError(None, "adjust_contrast",
                                          f"adjust_contrast: input must be at least 3-D, got "
                                          f"shape{format_shape(x.shape.as_list())}")
    from .reduce import reduce_mean
    f = _to_float(x)
    factor = convert_to_tensor(contrast_factor, dtype=f.dtype)
    mean = reduce_mean(f, axis=[-3, -2], keepdims=True)
    return _from_float(_m.add(_m.multiply(_m.subtract(f, mean), factor), mean), x.dtype)


