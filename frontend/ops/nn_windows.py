"""`tf.nn`'s window maxima that report or weigh their taps: max_pool_with_argmax, dilation2d
(grayscale morphological dilation: the max over the window of input + filter) and erosion2d
(its dual), composed from strided slices of the padded input.

Each window's taps are stacked on a new last axis; the winner is the first maximal tap (TF's
scan order) and is picked by a select, so the gradient flows to that one input element as
TF's backprop kernels route it, ties included. Padding is -inf: it never wins."""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ..eager.dispatch import convert_pair, convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from . import reduce as R
from .nn import _padding_arg, _window_arg
from .nn_conv import _depth_geometry as _geometry


def _nhwc(x, opname, data_format):
    if data_format not in (None, "NHWC"):
        raise ValueError(f"`data_format` values other  than 'NHWC' are not supported. "
                         f"Received: data_format={data_format}")
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims is None or len(dims) != 4:
        raise ValueError(f"{opname}: input must be 4-dimensional, got shape {x.shape}")
    if None in dims[1:]:
        raise ValueError(f"{opname}: flowjit needs height, width and channels known while "
                         f"tracing, got shape {x.shape}")
    return dims


def _taps(x, dims, ksize, strides, rates, padding):
    """The window taps of x [n, h, w, c] stacked on a new last axis, with the output size and
    each tap's (row, column) offset from its window's padded corner."""
    _, h, w, _ = dims
    (ho, top, bottom), (wo, left, right) = (
        _geometry(size, k, s, r, padding)
        for size, k, s, r in zip((h, w), ksize, strides, rates))
    xp = A.pad(x, [[0, 0], [top, bottom], [left, right], [0, 0]],
               constant_values=float("-inf")) if top + bottom + left + right else x
    offsets = [(i * rates[0], j * rates[1]) for i in range(ksize[0]) for j in range(ksize[1])]
    taps = [xp[:, r:r + (ho - 1) * strides[0] + 1:strides[0],
               c:c + (wo - 1) * strides[1] + 1:strides[1]] for r, c in offsets]
    return A.stack(taps, -1), (ho, wo), (top, left), offsets


def _first_max(stack):
    """(the max over the last axis, a mask of the first tap that reaches it)."""
    best = R.argmax(stack, -1)
    chosen = M.equal(A.expand_dims(best, -1),
                     A.range(stack.shape.as_list()[-1], dtype=best.dtype))
    return R.reduce_sum(M.where(chosen, stack, A.zeros_like(stack)), -1), chosen


@tf_export("nn.max_pool_with_argmax")
def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC",  # noqa: A002
                         output_dtype=D.int64, include_batch_in_index=False, name=None):
    """Max pooling ([n, h, w, c]) and, per output, the flattened index of the input element
    that won: (y * w + x) * c + channel, plus n * h * w * c with include_batch_in_index."""
    opname = "max_pool_with_argmax"
    x = convert_to_tensor(input)
    dims = _nhwc(x, opname, data_format)
    _, h, w, c = dims
    ksize = _window_arg(ksize, "NHWC", "ksize", opname)
    strides = _window_arg(strides, "NHWC", "strides", opname)
    pad, _ = _padding_arg(padding, "NHWC", opname, explicit_ok=False)
    stack, (ho, wo), (top, left), offsets = _taps(x, dims, ksize, strides, (1, 1), pad)
    value, chosen = _first_max(stack)
    rows = np.arange(ho)[:, None, None] * strides[0] - top
    cols = np.arange(wo)[None, :, None] * strides[1] - left
    taps = np.array(offsets)
    flat = ((rows + taps[:, 0]) * w + cols + taps[:, 1]) * c                # [ho, wo, taps]
    table = A.constant(flat[:, :, None, :].astype(np.int64))
    index = R.reduce_sum(M.where(chosen, A.broadcast_to(table, A.shape(stack)),
                                 A.zeros_like(stack, dtype=D.int64)), -1)
    index = index + A.range(c, dtype=D.int64)
    if include_batch_in_index:
        index = index + A.reshape(A.range(A.shape(x, out_type=D.int64)[0]) * (h * w * c),
                                  [-1, 1, 1, 1])
    return value, M.cast(index, output_dtype)


def _morphology_args(opname, x, filters, strides, padding, data_format, dilations):
    dims = _nhwc(x, opname, data_format)
    fdims = filters.shape.as_list() if filters.shape.rank is not None else None
    if fdims is None or len(fdims) != 3 or None in fdims:
        raise ValueError(f"{opname}: filters must be 3-dimensional and known while tracing, "
                         f"got shape {filters.shape}")
    pad, _ = _padding_arg(padding, "NHWC", opname, explicit_ok=False)
    return (dims, fdims[:2], _window_arg(strides, "NHWC", "strides", opname), pad,
            _window_arg(dilations, "NHWC", "dilations", opname))


@tf_export("nn.dilation2d")
def dilation2d(input, filters, strides, padding, data_format, dilations, name=None):  # noqa: A002
    """max over each window of input + filters ([kh, kw, c]), taps `dilations` apart."""
    x, f = convert_pair(input, filters)
    dims, ksize, st, pad, rates = _morphology_args("dilation2d", x, f, strides, padding,
                                                   data_format, dilations)
    stack, _, _, _ = _taps(x, dims, ksize, st, rates, pad)
    weights = A.transpose(A.reshape(f, [ksize[0] * ksize[1], dims[3]]), [1, 0])
    value, _ = _first_max(stack + weights)
    return value


@tf_export("nn.erosion2d")
def erosion2d(value, filters, strides, padding, data_format, dilations, name=None):
    """min over each window of value - filters (the filter mirrored): -dilation2d(-value,
    reversed filters)."""
    x, f = convert_pair(value, filters)
    return -dilation2d(-x, A.reverse(f, [0, 1]), strides, padding, data_format, dilations)
