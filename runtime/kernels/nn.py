"""NumPy kernels: nn family.

float16 and bfloat16 are computed in float32 and rounded once at the end (as TF's CPU kernels
accumulate); the erf-based GELU is computed in float64. Convolutions loop over kernel window
positions only: each position is one strided view of the padded input contracted with one
filter tap (a GEMM for plain convolutions), so the work per Python iteration is a whole image.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ...ir.dtypes import is_half_np
from ...ir.errors import InvalidArgumentError
from ...ir.ops.nn import spatial_axes, window_geometry
from . import kernel

_ERRSTATE = dict(divide="ignore", invalid="ignore", over="ignore", under="ignore")


def _acc_dtype(dt: np.dtype) -> np.dtype:
    """The type to compute in: float32 for half types, int64 for integer sums."""
    if is_half_np(dt):
        return np.dtype(np.float32)
    if dt.kind in "iu":
        return np.dtype(np.int64)
    return dt


def _wide(x):
    return x.astype(_acc_dtype(x.dtype), copy=False) if is_half_np(x.dtype) else x


# --- activations --------------------------------------------------------------------------
@kernel("relu")
def relu(features):
    return np.maximum(features, features.dtype.type(0))


@kernel("relu6")
def relu6(features):
    t = features.dtype.type
    return np.minimum(np.maximum(features, t(0)), t(6))


@kernel("leaky_relu")
def leaky_relu(features, alpha=0.2):
    x = _wide(features)
    return np.where(x > 0, x, x * x.dtype.type(alpha)).astype(features.dtype)


@kernel("elu")
def elu(features):
    x = _wide(features)
    with np.errstate(**_ERRSTATE):
        return np.where(x > 0, x, np.expm1(x)).astype(features.dtype)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@kernel("selu")
def selu(features):
    x = _wide(features)
    with np.errstate(**_ERRSTATE):
        y = np.where(x > 0, x, x.dtype.type(_SELU_ALPHA) * np.expm1(x))
    return (x.dtype.type(_SELU_SCALE) * y).astype(features.dtype)


_erfc64 = np.frompyfunc(math.erfc, 1, 1)


@kernel("gelu")
def gelu(features, approximate=False):
    x = np.asarray(features, dtype=np.float64)
    with np.errstate(**_ERRSTATE):
        if approximate:
            y = 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))
        else:
            # erfc(-x/sqrt2) instead of 1 + erf(x/sqrt2): no cancellation for negative x.
            y = 0.5 * x * np.asarray(_erfc64(-x * 0.7071067811865476), dtype=np.float64)
    return y.astype(features.dtype)


def _shifted(x, axis):
    """x minus its max along `axis` (so exp never overflows) and log(sum(exp)) of that."""
    m = np.max(x, axis=axis, keepdims=True)
    with np.errstate(**_ERRSTATE):
        s = x - m
        return s, np.log(np.sum(np.exp(s), axis=axis, keepdims=True))


@kernel("softmax")
def softmax(logits, axis=-1):
    if logits.size == 0:
        return logits.copy()
    s, lse = _shifted(_wide(logits), axis)
    with np.errstate(**_ERRSTATE):
        return np.exp(s - lse).astype(logits.dtype)


@kernel("log_softmax")
def log_softmax(logits, axis=-1):
    if logits.size == 0:
        return logits.copy()
    s, lse = _shifted(_wide(logits), axis)
    with np.errstate(**_ERRSTATE):
        return (s - lse).astype(logits.dtype)


# --- losses -------------------------------------------------------------------------------
@kernel("sparse_softmax_cross_entropy_with_logits")
def sparse_softmax_xent(logits, labels):
    n = logits.shape[-1]
    bad = (labels < 0) | (labels >= n)
    if np.any(bad):
        shown = " ".join(str(v) for v in labels.ravel()[:32])
        raise InvalidArgumentError(
            None, None, f"Received a label value of {labels[bad].ravel()[0]} which is outside "
            f"the valid range of [0, {n}).  Label values: {shown}")
    out_shape = logits.shape[:-1]
    if logits.size == 0:
        return np.zeros(out_shape, logits.dtype)
    s, lse = _shifted(_wide(logits), -1)
    picked = np.take_along_axis(s, labels[..., None].astype(np.intp), axis=-1)
    with np.errstate(**_ERRSTATE):
        return (lse - picked).reshape(out_shape).astype(logits.dtype)


@kernel("softmax_cross_entropy_with_logits")
def softmax_xent(logits, labels, axis=-1):
    z, p = np.broadcast_arrays(_wide(logits), _wide(labels))
    axis %= z.ndim
    if z.shape[axis] == 0 or z.size == 0:
        return np.zeros(z.shape[:axis] + z.shape[axis + 1:], logits.dtype)
    s, lse = _shifted(z, axis)
    with np.errstate(**_ERRSTATE):
        return np.sum(p * (lse - s), axis=axis).astype(logits.dtype)


@kernel("l2_loss")
def l2_loss(t):
    x = _wide(t)
    with np.errstate(**_ERRSTATE):
        return np.asarray(np.sum(x * x) / 2).astype(t.dtype)


@kernel("bias_add")
def bias_add(value, bias, data_format="NHWC"):
    if data_format == "NCHW":
        bias = bias.reshape(bias.shape + (1,) * (value.ndim - 2))
    return (value + bias).astype(value.dtype, copy=False)


# --- windows ------------------------------------------------------------------------------
def _window(x, axes, offsets, strides, outs):
    """The strided view of `x` that window position `offsets` sees for every output element."""
    idx = [slice(None)] * x.ndim
    for ax, o, s, n in zip(axes, offsets, strides, outs):
        idx[ax] = slice(o, o + (n - 1) * s + 1, s)
    return x[tuple(idx)]


def _geometry(sizes, ksize, strides, dilations, padding, explicit):
    """Output sizes and (before, after) pads per spatial dim."""
    n = len(sizes)
    pairs = [tuple(explicit[2 * i:2 * i + 2]) for i in range(n)] if explicit else [(0, 0)] * n
    res = [window_geometry(size, k, s, d, padding, p)
           for size, k, s, d, p in zip(sizes, ksize, strides, dilations, pairs)]
    return [r[0] for r in res], [(r[1], r[2]) for r in res]


def _pad(x, axes, pads, value=0):
    if not any(b or a for b, a in pads):
        return x
    width = [(0, 0)] * x.ndim
    for ax, p in zip(axes, pads):
        width[ax] = p
    return np.pad(x, width, constant_values=value)


def _to_nhwc(x, data_format):
    """`x` as [batch, H, W, C] (leading batch dims flattened) and the inverse mapping."""
    lead = x.shape[:-3]
    x4 = x.reshape((math.prod(lead),) + x.shape[-3:])
    if data_format == "NCHW":
        x4 = x4.transpose(0, 2, 3, 1)

    def back(y):
        if data_format == "NCHW":
            y = y.transpose(0, 3, 1, 2)
        return np.ascontiguousarray(y).reshape(lead + y.shape[1:])
    return x4, back


# --- convolution --------------------------------------------------------------------------
def _conv_taps(x, filters, strides, padding, explicit_paddings, data_format, dilations):
    """What conv2d and depthwise_conv2d share: the NHWC input's shape, the output's spatial
    size, the accumulation dtype, `back` (restores the caller's layout) and `taps()`, which
    yields per filter tap the input window it multiplies and the filter's weights there."""
    x4, back = _to_nhwc(x, data_format)
    kh, kw = filters.shape[:2]
    (ho, wo), pads = _geometry(x4.shape[1:3], (kh, kw), strides, dilations, padding,
                               explicit_paddings)
    acc = _acc_dtype(x.dtype)

    def taps():
        xp = _pad(x4.astype(acc, copy=False), (1, 2), pads)
        w = filters.astype(acc, copy=False)
        for i, j in itertools.product(range(kh), range(kw)):
            yield (_window(xp, (1, 2), (i * dilations[0], j * dilations[1]), strides, (ho, wo)),
                   w[i, j])
    return x4.shape, (ho, wo), acc, back, taps


@kernel("conv2d")
def conv2d(x, filters, strides, padding, explicit_paddings=(), data_format="NHWC",
           dilations=(1, 1)):
    (n, _, _, cin), (ho, wo), acc, back, taps = _conv_taps(
        x, filters, strides, padding, explicit_paddings, data_format, dilations)
    fin, cout = filters.shape[2:]
    groups = cin // fin
    out = np.zeros((n, ho, wo, cout), acc)
    if out.size:
        for patch, w in taps():
            if groups == 1:
                out += np.tensordot(patch, w, axes=([3], [0]))
            else:
                # Group g of the input channels feeds output channels g*cout/groups...
                out += np.einsum("nhwgc,cgo->nhwgo",
                                 patch.reshape(n, ho, wo, groups, fin),
                                 w.reshape(fin, groups, cout // groups)
                                 ).reshape(n, ho, wo, cout)
    return back(out.astype(x.dtype))


@kernel("depthwise_conv2d")
def depthwise_conv2d(x, filters, strides, padding, explicit_paddings=(), data_format="NHWC",
                     dilations=(1, 1)):
    (n, _, _, _), (ho, wo), acc, back, taps = _conv_taps(
        x, filters, strides, padding, explicit_paddings, data_format, dilations)
    c, mult = filters.shape[2:]
    out = np.zeros((n, ho, wo, c, mult), acc)
    if out.size:
        for patch, w in taps():
            out += patch[..., None] * w
    return back(out.reshape(n, ho, wo, c * mult).astype(x.dtype))


@kernel("conv2d_transpose")
def conv2d_transpose(x, filters, output_shape, strides, padding, explicit_paddings=(),
                     data_format="NHWC", dilations=(1, 1)):
    x4, _ = _to_nhwc(x, data_format)
    out_shape = tuple(output_shape)
    if data_format == "NCHW":
        out_shape = (out_shape[0], out_shape[2], out_shape[3], out_shape[1])
    kh, kw, cout, _ = filters.shape
    n, h, w, _ = x4.shape
    big_h, big_w = out_shape[1:3]
    _, ((pt, pb), (pl, pr)) = _geometry((big_h, big_w), (kh, kw), strides, dilations, padding,
                                        explicit_paddings)
    acc = _acc_dtype(x.dtype)
    # Scatter every input pixel's contribution into the padded output, then crop the pads;
    # the buffer also covers taps that the forward conv's floor division never reached.
    size_h = max(big_h + pt + pb, (h - 1) * strides[0] + (kh - 1) * dilations[0] + 1)
    size_w = max(big_w + pl + pr, (w - 1) * strides[1] + (kw - 1) * dilations[1] + 1)
    buf = np.zeros((n, size_h, size_w, cout), acc)
    if x4.size and cout:
        xa = x4.astype(acc, copy=False)
        f = filters.astype(acc, copy=False)
        for i, j in itertools.product(range(kh), range(kw)):
            view = _window(buf, (1, 2), (i * dilations[0], j * dilations[1]), strides, (h, w))
            view += np.tensordot(xa, f[i, j], axes=([3], [1]))
    out = buf[:, pt:pt + big_h, pl:pl + big_w, :].astype(x.dtype)
    if data_format == "NCHW":
        out = out.transpose(0, 3, 1, 2)
    return np.ascontiguousarray(out)


# --- pooling ------------------------------------------------------------------------------
def _pool_layout(x, data_format):
    """`x` with channels last, its spatial axes, and the inverse move."""
    sp, ch = spatial_axes(data_format, x.ndim)
    if ch == x.ndim - 1:
        return x, sp, lambda y: y
    moved = np.moveaxis(x, ch, -1)
    return moved, tuple(range(1, x.ndim - 1)), lambda y: np.ascontiguousarray(
        np.moveaxis(y, -1, ch))


@kernel("max_pool")
def max_pool(x, ksize, strides, padding, explicit_paddings=(), data_format="NHWC"):
    xl, sp, back = _pool_layout(x, data_format)
    outs, pads = _geometry([xl.shape[a] for a in sp], ksize, strides, (1,) * len(sp),
                           padding, explicit_paddings)
    out_shape = (xl.shape[0], *outs, xl.shape[-1])
    if 0 in out_shape:
        return back(np.zeros(out_shape, x.dtype))
    lowest = np.iinfo(x.dtype).min if x.dtype.kind in "iu" else -np.inf
    xp = _pad(xl, sp, pads, lowest)
    out = None
    for offs in itertools.product(*(range(k) for k in ksize)):
        patch = _window(xp, sp, offs, strides, outs)
        # fmax skips NaN, as TF's CPU max pooling does.
        out = patch.copy() if out is None else np.fmax(out, patch)
    return back(out.astype(x.dtype, copy=False))


def _valid_counts(sizes, outs, pads, ksize, strides, nd):
    """How many window elements fall inside the input, per output position; separable, so
    built from one 1-D count per spatial dim broadcast together."""
    total = 1
    for i, (size, n, (before, _), k, s) in enumerate(zip(sizes, outs, pads, ksize, strides)):
        start = np.arange(n) * s - before
        count = np.clip(start + k, 0, size) - np.clip(start, 0, size)
        shape = [1] * nd
        shape[i + 1] = n
        total = total * count.reshape(shape)
    return total


@kernel("avg_pool")
def avg_pool(x, ksize, strides, padding, explicit_paddings=(), data_format="NHWC"):
    xl, sp, back = _pool_layout(x, data_format)
    sizes = [xl.shape[a] for a in sp]
    outs, pads = _geometry(sizes, ksize, strides, (1,) * len(sp), padding, explicit_paddings)
    out_shape = (xl.shape[0], *outs, xl.shape[-1])
    if 0 in out_shape:
        return back(np.zeros(out_shape, x.dtype))
    acc = _acc_dtype(x.dtype)
    xp = _pad(xl.astype(acc, copy=False), sp, pads)
    total = np.zeros(out_shape, acc)
    for offs in itertools.product(*(range(k) for k in ksize)):
        total += _window(xp, sp, offs, strides, outs)
    counts = _valid_counts(sizes, outs, pads, ksize, strides, xl.ndim)
    return back((total / counts).astype(x.dtype))
