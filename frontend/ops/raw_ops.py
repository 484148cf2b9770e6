"""TF's `tf.raw_ops` that TF-backed code (Keras's preprocessing layers) calls directly:
keyword arguments only, as TF's generated wrappers take them, composed from flowjit's ops."""
from __future__ import annotations

import functools

import numpy as np

from ...ir import dtypes as D
from ...ir.errors import InvalidArgumentError
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from .counting import searchsorted


def _keywords_only(snake_name, keys):
    """TF's raw op wrappers refuse positional arguments, with this text."""
    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            if args:
                raise TypeError(f"{snake_name} only takes keyword args (possible keys: "
                                f"{keys + ['name']}). Please pass these args as kwargs "
                                f"instead.")
            return fn(**kwargs)
        return call
    return wrap


@tf_export("raw_ops.Bucketize")
@_keywords_only("bucketize", ["input", "boundaries"])
def bucketize(input, boundaries, name=None):  # noqa: A002  (TF's names)
    """The index of each element's bucket: how many of the sorted `boundaries` are <= it
    (int32; NaN after every boundary, as TF's kernel)."""
    x = convert_to_tensor(input)
    edges = np.asarray([float(b) for b in boundaries], np.float32)   # TF's attr is float
    if (edges[1:] < edges[:-1]).any():
        raise InvalidArgumentError(None, "Bucketize", "Expected sorted boundaries")
    # the kernel compares in the wider of the two types: a float64 input against the float32
    # edges widened, any other input as float32
    wide = D.float64 if x.dtype is D.float64 else D.float32
    sorted_edges = convert_to_tensor(edges.astype(wide.as_numpy_dtype))
    values = x if x.dtype is wide else M.cast(x, wide)
    flat = A.reshape(values, [-1])
    index = searchsorted(sorted_edges, flat, side="right", out_type=D.int32)
    return A.reshape(index, A.shape(x))


_FILL_MODES = ("REFLECT", "WRAP", "CONSTANT", "NEAREST")


def _trunc(v):
    """Toward zero, as the kernel's integer casts."""
    return M.where(M.less(v, 0.0), M.ceil(v), M.floor(v))


def _map_coordinate(coord, length, mode):
    """An input coordinate outside [0, length - 1] mapped back as the kernel maps it for
    `mode` (CONSTANT leaves it, so the read gives the fill value), clamped after."""
    n = M.cast(length, D.float32)
    last = M.subtract(n, 1.0)
    if mode == "CONSTANT":
        return coord
    if mode == "NEAREST":
        return M.minimum(M.maximum(coord, 0.0), last)
    single = M.less_equal(n, 1.0)
    if mode == "REFLECT":
        size2 = M.multiply(n, 2.0)
        below = M.where(M.less(coord, size2), M.add(M.multiply(size2, _trunc(
            M.divide(M.negative(coord), size2))), coord), coord)
        below = M.where(M.less(below, M.negative(n)), M.add(below, size2),
                        M.subtract(M.negative(below), 1.0))
        above = M.subtract(coord, M.multiply(size2, _trunc(M.divide(coord, size2))))
        above = M.where(M.greater_equal(above, n), M.subtract(M.subtract(size2, above), 1.0),
                        above)
    else:   # WRAP
        span = M.maximum(last, 1.0)
        below = M.add(coord, M.multiply(n, M.add(_trunc(M.divide(M.negative(coord), span)),
                                                 1.0)))
        above = M.subtract(coord, M.multiply(n, _trunc(M.divide(coord, span))))
    mapped = M.where(M.less(coord, 0.0), below, M.where(M.greater(coord, last), above, coord))
    mapped = M.where(single, A.zeros_like(coord), mapped)
    return M.minimum(M.maximum(mapped, 0.0), last)


@tf_export("raw_ops.ImageProjectiveTransformV3")
@_keywords_only("image_projective_transform_v3",
                ["images", "transforms", "output_shape", "fill_value", "interpolation",
                 "fill_mode"])
def image_projective_transform_v3(images, transforms, output_shape, fill_value,
                                  interpolation, fill_mode="CONSTANT", name=None):
    """Each output pixel (x, y) of `output_shape` reads the input at ((a0 x + a1 y + a2) / k,
    (b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1, for a row [a0 a1 a2 b0 b1 b2 c0 c1] of
    `transforms` (one, or one per image): NEAREST or BILINEAR, outside the image per
    `fill_mode` (CONSTANT reads `fill_value`, as does k = 0)."""
    # TF logs these two and returns unspecified values; refusing them is the answer here
    if interpolation not in ("NEAREST", "BILINEAR"):
        raise InvalidArgumentError(None, "ImageProjectiveTransformV3",
                                   f"Invalid interpolation {interpolation}. Supported types: "
                                   f"NEAREST, BILINEAR")
    if fill_mode not in _FILL_MODES:
        raise InvalidArgumentError(None, "ImageProjectiveTransformV3",
                                   f"Invalid mode {fill_mode}. Supported types: REFLECT, "
                                   f"WRAP, CONSTANT, NEAREST")
    x = convert_to_tensor(images)
    if x.shape.rank != 4:
        raise InvalidArgumentError(None, "ImageProjectiveTransformV3",
                                   f"Input images must have rank 4, got shape {x.shape}")
    pixels = M.cast(x, D.float32)
    rows = M.cast(convert_to_tensor(transforms), D.float32)
    size = convert_to_tensor(output_shape, dtype=D.int32)
    fill = M.cast(convert_to_tensor(fill_value), D.float32)
    shape = A.shape(x)
    height, width = shape[1], shape[2]
    out_y = A.reshape(M.cast(A.range(size[0]), D.float32), [-1, 1])   # [Ho, 1]
    out_x = A.reshape(M.cast(A.range(size[1]), D.float32), [1, -1])   # [1, Wo]
    rows = A.broadcast_to(rows, A.stack([shape[0], 8]))
    a = [A.reshape(rows[:, i], [-1, 1, 1]) for i in range(8)]       # [B, 1, 1] each
    k = M.add(M.add(M.multiply(a[6], out_x), M.multiply(a[7], out_y)), 1.0)
    safe_k = M.where(M.equal(k, 0.0), A.ones_like(k), k)
    in_x = M.divide(M.add(M.add(M.multiply(a[0], out_x), M.multiply(a[1], out_y)), a[2]), safe_k)
    in_y = M.divide(M.add(M.add(M.multiply(a[3], out_x), M.multiply(a[4], out_y)), a[5]), safe_k)
    in_x = _map_coordinate(M.add(in_x, A.zeros_like(in_y)), width, fill_mode)   # [B, Ho, Wo]
    in_y = _map_coordinate(M.add(in_y, A.zeros_like(in_x)), height, fill_mode)
    batch = A.broadcast_to(A.reshape(A.range(shape[0]), [-1, 1, 1]), A.shape(in_x))

    def read(y, x_):
        """The input at integer coordinates (floats), the fill value outside."""
        inside = M.logical_and(
            M.logical_and(M.greater_equal(y, 0.0), M.less(y, M.cast(height, D.float32))),
            M.logical_and(M.greater_equal(x_, 0.0), M.less(x_, M.cast(width, D.float32))))
        yi = M.cast(M.minimum(M.maximum(y, 0.0), M.cast(height - 1, D.float32)), D.int32)
        xi = M.cast(M.minimum(M.maximum(x_, 0.0), M.cast(width - 1, D.float32)), D.int32)
        got = A.gather_nd(pixels, A.stack([batch, yi, xi], axis=-1))  # [B, Ho, Wo, C]
        return M.where(A.expand_dims(inside, -1), got, fill)

    if interpolation == "NEAREST":   # std::round: halves away from zero
        def nearest(v):
            return M.multiply(M.sign(v), M.floor(M.add(M.abs(v), 0.5)))
        out = read(nearest(in_y), nearest(in_x))
    else:
        y0, x0 = M.floor(in_y), M.floor(in_x)
        y1, x1 = M.add(y0, 1.0), M.add(x0, 1.0)
        wx0, wx1 = A.expand_dims(M.subtract(x1, in_x), -1), A.expand_dims(M.subtract(in_x, x0), -1)
        wy0, wy1 = A.expand_dims(M.subtract(y1, in_y), -1), A.expand_dims(M.subtract(in_y, y0), -1)
        top = M.add(M.multiply(wx0, read(y0, x0)), M.multiply(wx1, read(y0, x1)))
        bottom = M.add(M.multiply(wx0, read(y1, x0)), M.multiply(wx1, read(y1, x1)))
        out = M.add(M.multiply(wy0, top), M.multiply(wy1, bottom))
    out = M.where(A.expand_dims(M.equal(k, 0.0), -1), fill, out)
    return out if x.dtype is D.float32 else M.cast(out, x.dtype)
