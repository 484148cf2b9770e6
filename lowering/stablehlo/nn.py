"""StableHLO lowering rules: nn family (activations, softmax and cross entropies, bias_add,
convolutions, pooling).

Semantics follow runtime/kernels/nn.py:

* float16/bfloat16 compute in float32 and round once at the end, as the kernels do (relu,
  relu6, bias_add and max_pool are exact in the input type and stay in it).
* gelu: the kernel computes in float64; here float64 inputs compute in float64 and the other
  float types in float32 (a few float32 ulps from the kernel). The erf form uses
  erfc(-x/sqrt2), like the kernel, so negative inputs lose nothing to cancellation; the tanh
  form uses 0.5 * (1 + tanh(z)) = 1 / (1 + exp(-2z)) for the same reason.
* Convolutions run with HIGHEST operand precision so GPUs do not drop float32 to TF32
  (the kernels are exact float32 GEMMs).
* max_pool skips NaN as the kernel's np.fmax fold does: the input is padded with -inf (the
  integer minimum) and the window reducer is fmax with NaN as its identity, so a window is
  NaN only when all of its elements (padding included) are NaN. This matches the kernel
  exactly, including windows of padding plus NaNs (-inf).
* XLA flushes subnormal float inputs and results to zero (CPU and GPU); the kernels keep them.
* sparse_softmax_cross_entropy_with_logits: XLA cannot raise on label values. A label outside
  [0, num_classes) gives NaN for that row (what TF's XLA kernel does); eager raises
  InvalidArgumentError.
"""
from __future__ import annotations

import math

import numpy as np

from ...ir.ops.nn import spatial_axes, window_geometry
from ...runtime.jax_internals import chlo, hlo, ir
from .core import register_lowering

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


# --- helpers ------------------------------------------------------------------------------
def _keep(ctx, reduced, full_shape, axis):
    """Broadcast a value reduced over `axis` back to `full_shape`."""
    return ctx.spread(reduced, full_shape, [i for i in range(len(full_shape)) if i != axis])


def _shifted(ctx, x, axis):
    """x minus its max along `axis` (exp never overflows) and log(sum(exp)) of that, the
    latter broadcast back to x's shape."""
    shape = ctx.shape(x)
    m = ctx.reduce(x, [axis], "max", init=-np.inf)
    s = hlo.subtract(x, _keep(ctx, m, shape, axis))
    total = ctx.reduce(hlo.exponential(s), [axis], "add")
    return s, _keep(ctx, hlo.log(total), shape, axis)


def _precision():
    p = hlo.PrecisionAttr.get("HIGHEST")
    return ir.ArrayAttr.get([p, p])


def _geometry(sizes, ksize, strides, dilations, padding, explicit):
    """(before, after) pads per spatial dim, as the ir helper and the kernels compute them."""
    n = len(sizes)
    pairs = [tuple(explicit[2 * i:2 * i + 2]) for i in range(n)] if explicit else [(0, 0)] * n
    res = [window_geometry(size, k, s, d, padding, p)
           for size, k, s, d, p in zip(sizes, ksize, strides, dilations, pairs)]
    return [(r[1], r[2]) for r in res]


# --- activations --------------------------------------------------------------------------
def _relu_of(ctx, x):
    """max(x, 0) keeping -0.0 and NaN, as TF's kernels and its XLA give (XLA's maximum
    returns +0.0 for -0.0)."""
    zero = ctx.zeros(x.type)
    return hlo.select(ctx.compare(x, zero, "LT"), zero, x)


@register_lowering("relu")
def _relu(ctx, op, x):
    return _relu_of(ctx, x)


@register_lowering("relu6")
def _relu6(ctx, op, x):
    return hlo.minimum(_relu_of(ctx, x), ctx.splat(6, x.type))


def _positive(ctx, x):
    return ctx.compare(x, ctx.zeros(x.type), "GT")


@register_lowering("leaky_relu")
def _leaky_relu(ctx, op, features, *, alpha):
    x, back = ctx.widen(features)
    return back(hlo.select(_positive(ctx, x), x, hlo.multiply(x, ctx.splat(alpha, x.type))))


@register_lowering("elu")
def _elu(ctx, op, features):
    x, back = ctx.widen(features)
    return back(hlo.select(_positive(ctx, x), x, hlo.exponential_minus_one(x)))


@register_lowering("selu")
def _selu(ctx, op, features):
    x, back = ctx.widen(features)
    neg = hlo.multiply(ctx.splat(_SELU_ALPHA, x.type), hlo.exponential_minus_one(x))
    y = hlo.select(_positive(ctx, x), x, neg)
    return back(hlo.multiply(ctx.splat(_SELU_SCALE, x.type), y))


@register_lowering("gelu")
def _gelu(ctx, op, features, *, approximate):
    x, back = ctx.widen(features)
    if approximate:
        cube = hlo.multiply(hlo.multiply(x, x), x)
        z = hlo.multiply(ctx.splat(0.7978845608028654, x.type),
                         hlo.add(x, hlo.multiply(ctx.splat(0.044715, x.type), cube)))
        # 1 + tanh(z) = 2 / (1 + exp(-2z)): no cancellation where tanh(z) is near -1
        denom = hlo.add(ctx.splat(1, x.type), hlo.exponential(hlo.multiply(ctx.splat(-2, x.type), z)))
        return back(hlo.divide(x, denom))
    half_x = hlo.multiply(ctx.splat(0.5, x.type), x)
    return back(hlo.multiply(half_x, chlo.erfc(hlo.multiply(
        x, ctx.splat(-0.7071067811865476, x.type)))))


@register_lowering("softmax")
def _softmax(ctx, op, logits, *, axis):
    if ctx.is_empty(logits):
        return logits
    x, back = ctx.widen(logits)
    s, lse = _shifted(ctx, x, axis)
    return back(hlo.exponential(hlo.subtract(s, lse)))


@register_lowering("log_softmax")
def _log_softmax(ctx, op, logits, *, axis):
    if ctx.is_empty(logits):
        return logits
    x, back = ctx.widen(logits)
    s, lse = _shifted(ctx, x, axis)
    return back(hlo.subtract(s, lse))


# --- losses -------------------------------------------------------------------------------
@register_lowering("sparse_softmax_cross_entropy_with_logits")
def _sparse_xent(ctx, op, logits, labels):
    if ctx.is_empty(logits):
        return ctx.zeros(ctx.result_type(op))
    shape = ctx.shape(logits)
    last = len(shape) - 1
    x, back = ctx.widen(logits)
    s, lse = _shifted(ctx, x, last)
    # the label's logit via a one-hot mask: no gather, and out-of-range labels pick nothing
    classes = ctx.iota(ctx.like(labels, shape), last)
    lab = ctx.spread(labels, shape, range(last))
    hit = ctx.compare(classes, lab, "EQ")
    picked = ctx.reduce(hlo.select(hit, s, ctx.zeros(s.type)), [last], "add")
    lse1 = ctx.slice(lse, [0] * len(shape), shape[:-1] + [1])
    loss = hlo.subtract(ctx.reshape(lse1, shape[:-1]), picked)
    # XLA cannot raise on values: rows with a label outside [0, n) become NaN, as in TF's XLA
    in_range = hlo.and_(ctx.compare(labels, ctx.splat(0, labels.type), "GE"),
                        ctx.compare(labels, ctx.splat(shape[-1], labels.type), "LT"))
    loss = hlo.select(in_range, loss, ctx.splat(np.nan, loss.type))
    return back(loss)


@register_lowering("softmax_cross_entropy_with_logits")
def _softmax_xent(ctx, op, logits, labels, *, axis):
    z, back = ctx.widen(logits)
    p, _ = ctx.widen(labels)
    shape = list(np.broadcast_shapes(tuple(ctx.shape(z)), tuple(ctx.shape(p))))
    if 0 in shape:
        return ctx.zeros(ctx.result_type(op))
    z = ctx.broadcast(z, ctx.like(z, shape))
    p = ctx.broadcast(p, ctx.like(p, shape))
    s, lse = _shifted(ctx, z, axis)
    return back(ctx.reduce(hlo.multiply(p, hlo.subtract(lse, s)), [axis], "add"))


@register_lowering("l2_loss")
def _l2_loss(ctx, op, t):
    x, back = ctx.widen(t)
    total = ctx.reduce(hlo.multiply(x, x), range(ctx.rank(x)), "add")
    return back(hlo.divide(total, ctx.scalar(2, x)))


@register_lowering("bias_add")
def _bias_add(ctx, op, value, bias, *, data_format):
    axis = 1 if data_format == "NCHW" else ctx.rank(value) - 1
    return hlo.add(value, ctx.spread(bias, ctx.shape(value), [axis]))


# --- convolution --------------------------------------------------------------------------
def _conv_dims(data_format, kernel_in=2, kernel_out=3):
    """Dimension numbers of a 4-D conv in `data_format` with an HWIO-like kernel."""
    if data_format == "NCHW":
        b, f, sp = 0, 1, [2, 3]
    else:
        b, f, sp = 0, 3, [1, 2]
    return hlo.ConvDimensionNumbers.get(
        input_batch_dimension=b, input_feature_dimension=f, input_spatial_dimensions=sp,
        kernel_input_feature_dimension=kernel_in, kernel_output_feature_dimension=kernel_out,
        kernel_spatial_dimensions=[0, 1], output_batch_dimension=b,
        output_feature_dimension=f, output_spatial_dimensions=sp)


def _as_4d(ctx, x):
    """Leading batch dims folded into one (conv2d accepts rank >= 4)."""
    shape = ctx.shape(x)
    if len(shape) == 4:
        return x
    return ctx.reshape(x, [math.prod(shape[:-3])] + shape[-3:])


def _transpose(ctx, x, perm):
    return hlo.transpose(x, ctx.i64s(perm)) if list(perm) != sorted(perm) else x


def _conv(ctx, x, f, *, groups, fmt, out_shape, pads, strides, dilations, lhs_dilation=(1, 1),
          kernel_io=(2, 3)):
    """A 2-D convolution of a 4-D input in `fmt`, filters [kh, kw, ...] with input/output
    features at `kernel_io`; floats compute in their compute type and round back once."""
    if ctx.dtype(x).is_integer:
        return _int_conv(ctx, x, f, groups, fmt, out_shape, pads, strides, dilations,
                         lhs_dilation, kernel_io)
    xw, back = ctx.widen(x)
    fw, _ = ctx.widen(f)
    y = hlo.convolution(
        ctx.like(xw, out_shape), xw, fw, _conv_dims(fmt, *kernel_io), groups, 1,
        window_strides=list(strides), padding=ctx.pads(pads), lhs_dilation=list(lhs_dilation),
        rhs_dilation=list(dilations), precision_config=_precision())
    return back(y)


def _int_conv(ctx, x, f, groups, fmt, out_shape, pads, strides, dilations, lhs_dilation,
              kernel_io):
    """Integer convolution as a sum over filter taps of strided slices contracted with one
    tap each (integer dot_general): XLA:GPU has no integer convolution, and this keeps the
    int32 wrap-around the kernel has on every backend."""
    to_nhwc, from_nhwc = ((0, 2, 3, 1), (0, 3, 1, 2)) if fmt == "NCHW" else ((0, 1, 2, 3),) * 2
    x = _transpose(ctx, x, to_nhwc)
    n, ho, wo, cout = [out_shape[i] for i in to_nhwc]
    f = _transpose(ctx, f, (0, 1) + tuple(kernel_io))     # -> [kh, kw, in/groups, out]
    kh, kw, fin, _ = ctx.shape(f)
    x = hlo.pad(x, ctx.scalar(0, x), [0, pads[0][0], pads[1][0], 0],
                [0, pads[0][1], pads[1][1], 0], [0, lhs_dilation[0] - 1, lhs_dilation[1] - 1, 0])
    cin = ctx.shape(x)[3]
    per = cout // groups
    total = None
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dilations[0], j * dilations[1]
            patch = ctx.slice(x, [0, r0, c0, 0],
                              [n, r0 + (ho - 1) * strides[0] + 1, c0 + (wo - 1) * strides[1] + 1,
                               cin], [1, strides[0], strides[1], 1])
            tap = ctx.slice(f, [i, j, 0, 0], [i + 1, j + 1, fin, cout])
            # group g's input channels g*fin.. feed its output channels g*per..
            patch = ctx.reshape(patch, [n, ho, wo, groups, fin])
            tap = ctx.reshape(tap, [fin, groups, per])
            y = hlo.dot_general(
                ctx.like(x, [groups, n, ho, wo, per]), patch, tap,
                hlo.DotDimensionNumbers.get(lhs_batching_dimensions=[3],
                                            rhs_batching_dimensions=[1],
                                            lhs_contracting_dimensions=[4],
                                            rhs_contracting_dimensions=[0]))
            total = y if total is None else hlo.add(total, y)
    y = ctx.reshape(_transpose(ctx, total, (1, 2, 3, 0, 4)), [n, ho, wo, cout])
    return _transpose(ctx, y, from_nhwc)


def _spatial_sizes(shape, data_format):
    sp, _ = spatial_axes(data_format, len(shape))
    return [shape[a] for a in sp]


@register_lowering("conv2d")
def _conv2d(ctx, op, x, f, **a):
    out_t = ctx.result_type(op)
    if ctx.is_empty(out_t):
        return ctx.zeros(ctx.result_type(op))
    fmt = a["data_format"]
    kh, kw, fin, _ = ctx.shape(f)
    x4 = _as_4d(ctx, x)
    shape4 = ctx.shape(x4)
    _, ch = spatial_axes(fmt, 4)
    pads = _geometry(_spatial_sizes(shape4, fmt), (kh, kw), a["strides"], a["dilations"],
                     a["padding"], a["explicit_paddings"])
    out = [shape4[0]] + list(ir.RankedTensorType(out_t).shape)[-3:]
    y = _conv(ctx, x4, f, groups=shape4[ch] // fin, fmt=fmt, out_shape=out, pads=pads,
              strides=a["strides"], dilations=a["dilations"])
    return hlo.reshape(out_t, y)


@register_lowering("depthwise_conv2d")
def _depthwise_conv2d(ctx, op, x, f, **a):
    out_t = ctx.result_type(op)
    if ctx.is_empty(out_t):
        return ctx.zeros(ctx.result_type(op))
    fmt = a["data_format"]
    kh, kw, c, mult = ctx.shape(f)
    # one group per input channel: filters [kh, kw, 1, c * mult], output channel c*mult + m
    f1 = ctx.reshape(f, [kh, kw, 1, c * mult])
    pads = _geometry(_spatial_sizes(ctx.shape(x), fmt), (kh, kw), a["strides"],
                     a["dilations"], a["padding"], a["explicit_paddings"])
    return _conv(ctx, x, f1, groups=c, fmt=fmt, out_shape=ir.RankedTensorType(out_t).shape,
                 pads=pads, strides=a["strides"], dilations=a["dilations"])


@register_lowering("conv2d_transpose")
def _conv2d_transpose(ctx, op, x, f, **a):
    out_t = ctx.result_type(op)
    if ctx.is_empty(out_t) or ctx.is_empty(x):
        return ctx.zeros(ctx.result_type(op))
    fmt = a["data_format"]
    kh, kw, _, _ = ctx.shape(f)
    out_shape = list(ir.RankedTensorType(out_t).shape)
    big = _spatial_sizes(out_shape, fmt)
    small = _spatial_sizes(ctx.shape(x), fmt)
    fwd = _geometry(big, (kh, kw), a["strides"], a["dilations"], a["padding"],
                    a["explicit_paddings"])
    # The input gradient of the forward conv: dilate the input by the strides, pad so that
    # output position o sees input i through tap t exactly when o + pad_before = i*s + t*d,
    # and correlate with the spatially flipped filter (in/out features swapped). Dilation and
    # padding are one stablehlo.pad (interior = stride - 1; negative edges crop), so the
    # convolution itself is a plain stride-1 one: XLA's simplifier rejected some lhs-dilated
    # transposed convolutions with a CHECK failure that killed the process.
    sp, _ = spatial_axes(fmt, 4)
    low, high, interior = [0] * 4, [0] * 4, [0] * 4
    for ax, n, big_n, k, s, d, (before, _) in zip(sp, small, big, (kh, kw), a["strides"],
                                                  a["dilations"], fwd):
        eff = (k - 1) * d + 1
        low[ax] = eff - 1 - before
        high[ax] = big_n + eff - 1 - ((n - 1) * s + 1) - low[ax]
        interior[ax] = s - 1
    xp = hlo.pad(x, ctx.scalar(0, x), ctx.i64s(low), ctx.i64s(high), ctx.i64s(interior))
    flipped = hlo.reverse(f, ctx.i64s([0, 1]))
    return _conv(ctx, xp, flipped, groups=1, fmt=fmt, out_shape=out_shape,
                 pads=[(0, 0), (0, 0)], strides=(1, 1), dilations=a["dilations"],
                 kernel_io=(3, 2))


# --- pooling ------------------------------------------------------------------------------
def _pool_windows(ctx, x, a):
    """Spatial axes, window dims, strides and per-axis (before, after) pads of a pooling op
    with attributes `a` (batch and channel axes get a window of 1)."""
    shape = ctx.shape(x)
    sp, _ = spatial_axes(a["data_format"], len(shape))
    n = len(sp)
    pads = _geometry([shape[ax] for ax in sp], a["ksize"], a["strides"], (1,) * n,
                     a["padding"], a["explicit_paddings"])
    dims, strides, full_pads = [1] * len(shape), [1] * len(shape), [(0, 0)] * len(shape)
    for ax, k, s, p in zip(sp, a["ksize"], a["strides"], pads):
        dims[ax], strides[ax], full_pads[ax] = k, s, p
    return sp, dims, strides, full_pads


def _fmax(ctx):
    """max that skips NaN (np.fmax): NaN only when both are NaN."""
    def combine(a, b):
        return hlo.select(ctx.compare(a, a, "NE"), b,
                          hlo.select(ctx.compare(b, b, "NE"), a, hlo.maximum(a, b)))
    return combine


@register_lowering("max_pool")
def _max_pool(ctx, op, x, **a):
    out_t = ctx.result_type(op)
    if ctx.is_empty(out_t):
        return ctx.zeros(ctx.result_type(op))
    _, dims, strides, pads = _pool_windows(ctx, x, a)
    out_shape = ir.RankedTensorType(out_t).shape
    if ctx.dtype(x).is_integer:
        return ctx.reduce_window(x, out_shape, "max", dims, strides, pads)
    # Pad with -inf explicitly and reduce with NaN as the identity of fmax, so the result is
    # exactly the kernel's fmax fold over the -inf-padded window.
    if any(p != (0, 0) for p in pads):
        x = hlo.pad(x, ctx.scalar(-np.inf, x), [p[0] for p in pads], [p[1] for p in pads],
                    [0] * len(pads))
    return ctx.reduce_window(x, out_shape, "max", dims, strides, init=np.nan,
                             combine=_fmax(ctx))


@register_lowering("avg_pool")
def _avg_pool(ctx, op, x, **a):
    out_t = ctx.result_type(op)
    if ctx.is_empty(out_t):
        return ctx.zeros(ctx.result_type(op))
    sp, dims, strides, pads = _pool_windows(ctx, x, a)
    shape = ctx.shape(x)
    out_shape = list(ir.RankedTensorType(out_t).shape)
    xw, back = ctx.widen(x)
    total = ctx.reduce_window(xw, out_shape, "add", dims, strides, pads)
    # Elements inside the input per window: separable, one 1-D count per spatial dim.
    counts = np.ones([out_shape[ax] for ax in sp], dtype=ctx.dtype(xw).np)
    for i, (ax, k, s) in enumerate(zip(sp, a["ksize"], a["strides"])):
        start = np.arange(out_shape[ax]) * s - pads[ax][0]
        c = np.clip(start + k, 0, shape[ax]) - np.clip(start, 0, shape[ax])
        view = [1] * len(sp)
        view[i] = out_shape[ax]
        counts = counts * c.reshape(view)
    divisor = ctx.spread(ctx.constant(counts.astype(ctx.dtype(xw).np)), out_shape, sp)
    return back(hlo.divide(total, divisor))
