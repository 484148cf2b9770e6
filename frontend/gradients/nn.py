"""Gradients of the nn family.

Activations follow TF at their kinks: relu'(0) = 0, relu6' is 1 only strictly inside (0, 6),
leaky_relu'(0) = alpha, elu'(0) = 1, selu'(0) = scale.

softmax_cross_entropy_with_logits gets its exact gradient, softmax * sum(labels) - labels,
which is TF's softmax - labels whenever the labels sum to 1 (TF's formula assumes they do).

Convolutions: the input gradient is a stride-1 conv2d of the zero-dilated, padded gradient
with the flipped filter, grouped like the forward conv (a depthwise filter [kh, kw, C, M] is
the grouped conv2d filter [kh, kw, 1, C*M]). conv2d_transpose would do for ungrouped convs,
but its static `output_shape` cannot carry an unknown batch dim into XLA. The filter gradient is one contraction per filter tap
of a strided window of the padded input with the gradient. Pooling gradients put each
output's gradient back through each window position (max_pool: onto the first maximum of the
window in row-major order, as TF; avg_pool: evenly over the elements inside the input).
These need static spatial sizes; batch (and other) dims may be unknown.
"""
from __future__ import annotations

import itertools
import math as _pymath

import numpy as np

from ...ir.ops.nn import window_geometry
from ..eager.dispatch import apply
from ..ops import array as A
from ..ops import linalg as L
from ..ops import math as M
from ..ops import nn as N
from ..ops import reduce as R
from ._util import (attr, const, crop, dims, gradient, need_rank, place,
                    positions, rank, reshape_like, unbroadcast, unsupported)

mul, add, sub = M.multiply, M.add, M.subtract

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_SQRT_HALF = 0.7071067811865476
_INV_SQRT_2PI = 1.0 / _pymath.sqrt(2.0 * _pymath.pi)
_GELU_C = 0.7978845608028654  # sqrt(2 / pi)
_GELU_A = 0.044715


def _zeros(t):
    return A.zeros_like(t)


def _zero(t):
    """A 0-d zero of `t`'s dtype, for `where`'s else-branch: `select` broadcasts it, where
    zeros_like would first write a whole array of zeros (a pass over memory per relu)."""
    return const(0, t.dtype)


# --- activations --------------------------------------------------------------------------
@gradient("relu")
def _relu_grad(op, g):
    x = op.inputs[0]
    return [M.where(M.greater(x, 0.0), g, _zero(g))]


@gradient("relu6")
def _relu6_grad(op, g):
    x = op.inputs[0]
    inside = M.logical_and(M.greater(x, 0.0), M.less(x, 6.0))
    return [M.where(inside, g, _zero(g))]


@gradient("leaky_relu")
def _leaky_relu_grad(op, g):
    x = op.inputs[0]
    return [M.where(M.greater(x, 0.0), g, mul(g, float(attr(op, "alpha"))))]


@gradient("elu")
def _elu_grad(op, g):
    y = op.outputs[0]
    # For x < 0, d/dx (e^x - 1) = e^x = y + 1.
    return [M.where(M.less(y, 0.0), mul(g, add(y, 1.0)), g)]


@gradient("selu")
def _selu_grad(op, g):
    y = op.outputs[0]
    neg_branch = mul(g, add(y, _SELU_SCALE * _SELU_ALPHA))
    return [M.where(M.less(y, 0.0), neg_branch, mul(g, _SELU_SCALE))]


@gradient("gelu")
def _gelu_grad(op, g):
    x = op.inputs[0]
    if attr(op, "approximate"):
        # y = x/2 (1 + tanh(u)), u = c (x + a x^3)
        x2 = M.square(x)
        t = M.tanh(mul(mul(x, add(mul(x2, _GELU_A), 1.0)), _GELU_C))
        du = mul(add(mul(x2, 3.0 * _GELU_A), 1.0), _GELU_C)
        d = add(mul(add(t, 1.0), 0.5), mul(mul(mul(x, 0.5), sub(1.0, M.square(t))), du))
    else:
        # y = x Phi(x): Phi(x) + x phi(x)
        cdf = mul(add(M.erf(mul(x, _SQRT_HALF)), 1.0), 0.5)
        pdf = mul(M.exp(mul(M.square(x), -0.5)), _INV_SQRT_2PI)
        d = add(cdf, mul(x, pdf))
    return [mul(g, d)]


@gradient("softmax")
def _softmax_grad(op, g):
    y = op.outputs[0]
    axis = attr(op, "axis")
    return [mul(sub(g, R.reduce_sum(mul(g, y), axis, keepdims=True)), y)]


@gradient("log_softmax")
def _log_softmax_grad(op, g):
    y = op.outputs[0]
    axis = attr(op, "axis")
    return [sub(g, mul(M.exp(y), R.reduce_sum(g, axis, keepdims=True)))]


# --- losses -------------------------------------------------------------------------------
@gradient("sparse_softmax_cross_entropy_with_logits")
def _sparse_xent_grad(op, g):
    logits, labels = op.inputs
    need_rank(logits, "sparse_softmax_cross_entropy_with_logits")
    hot = M.cast(M.equal(A.expand_dims(labels, -1), positions(logits, -1, labels.dtype)),
                 logits.dtype)
    return [mul(A.expand_dims(g, -1), sub(N.softmax(logits), hot)), None]


@gradient("softmax_cross_entropy_with_logits")
def _xent_grad(op, g):
    logits, labels = op.inputs
    r = need_rank(logits, "softmax_cross_entropy_with_logits")
    axis = attr(op, "axis") % r
    z = logits
    if dims(logits) != dims(labels):
        # The kernel normalizes the broadcast logits; so must the gradient.
        z = add(logits, _zeros(labels))
    ge = A.expand_dims(g, axis)
    sm = N.softmax(z, axis)
    total = R.reduce_sum(labels, axis, keepdims=True)
    g_logits = mul(ge, sub(mul(sm, total), labels))
    g_labels = mul(ge, M.negative(N.log_softmax(z, axis)))
    return [unbroadcast(g_logits, logits), unbroadcast(g_labels, labels)]


@gradient("l2_loss")
def _l2_loss_grad(op, g):
    return [mul(op.inputs[0], g)]


@gradient("bias_add")
def _bias_add_grad(op, g):
    value, bias = op.inputs
    r = need_rank(value, "bias_add")
    channel = 1 if attr(op, "data_format") == "NCHW" else r - 1
    axes = tuple(a for a in range(r) if a != channel)
    return [g, R.reduce_sum(g, axes) if axes else g]


# --- convolution --------------------------------------------------------------------------
def _conv_attrs(op):
    return {k: attr(op, k) for k in ("strides", "padding", "explicit_paddings", "data_format",
                                     "dilations")}


def _geometry(opname, sizes, ksize, strides, dilations, padding, explicit):
    """Output sizes and (before, after) pads per spatial dim; the sizes must be static."""
    if None in sizes or None in ksize:
        raise unsupported(opname, f"needs static spatial sizes, got {list(sizes)}")
    n = len(sizes)
    pairs = [tuple(explicit[2 * i:2 * i + 2]) for i in range(n)] if explicit else [(0, 0)] * n
    res = [window_geometry(s, k, st, d, padding, p)
           for s, k, st, d, p in zip(sizes, ksize, strides, dilations, pairs)]
    return [r[0] for r in res], [(r[1], r[2]) for r in res]


def _to_nhwc(t, fmt, opname):
    """A conv operand as [batch, H, W, C]: extra leading batch dims merged, NCHW transposed."""
    r = need_rank(t, opname)
    if r > 4:
        tail = dims(t)[-3:]
        if None in tail:
            raise unsupported(opname, f"a rank-{r} operand needs static trailing dims")
        t = A.reshape(t, [-1] + tail)
    if fmt == "NCHW":
        t = A.transpose(t, [0, 2, 3, 1])
    return t


def _from_nhwc(t4, like, fmt, opname):
    if fmt == "NCHW":
        t4 = A.transpose(t4, [0, 3, 1, 2])
    if rank(like) > 4:
        t4 = reshape_like(t4, like, opname)
    return t4


def _static(t, opname, what):
    d = dims(t)
    if d is None or None in d:
        raise unsupported(opname, f"needs the static shape of the {what}, got {t.shape}")
    return d


def _window(xp, offsets, strides, outs):
    """The strided view of a channels-last tensor `xp` that window tap `offsets` reads for
    every output position (batch and channel dims whole)."""
    r = len(offsets) + 2
    begin = [0] + list(offsets) + [0]
    end = [0] + [o + (n - 1) * s + 1 for o, n, s in zip(offsets, outs, strides)] + [0]
    edges = 1 | 1 << (r - 1)
    return A.strided_slice(xp, begin, end, [1] + list(strides) + [1], begin_mask=edges,
                           end_mask=edges)


def _conv_input_grad(opname, g4, w, x4, attrs, groups):
    """d conv2d(x, w) / d x as an NHWC tensor of x4's shape."""
    _, h, wd, _ = dims(x4)
    kh, kw, fin, cout = _static(w, opname, "filter")
    strides, dilations = attrs["strides"], attrs["dilations"]
    outs, pads = _geometry(opname, (h, wd), (kh, kw), strides, dilations, attrs["padding"],
                           attrs["explicit_paddings"])
    if 0 in outs:
        return A.zeros_like(x4)
    # Output o of the correlation reads padded input o*s + t*d through tap t; so input i
    # receives g[o] w[t] where i + before = o*s + t*d: spread g over the stride grid, pad
    # the full (k-1)*d halo minus the forward pad, and correlate with the flipped filter.
    gz = g4
    rows = [[0, 0]]
    crops = [(0, 0)]
    for ax, size, k, s, d, o, (before, _) in zip((1, 2), (h, wd), (kh, kw), strides, dilations,
                                                 outs, pads):
        length = (o - 1) * s + 1
        gz = place(gz, ax, 0, s, length)
        lo = (k - 1) * d - before
        hi = size + before - length
        rows.append([max(lo, 0), max(hi, 0)])
        crops.append((max(-lo, 0), max(-hi, 0)))
    rows.append([0, 0])
    crops.append((0, 0))
    gz = crop(gz, crops)
    if any(b or a for b, a in rows):
        gz = A.pad(gz, rows)
    # Flipped taps, in/out channels exchanged within each group: [kh, kw, og, groups*fin].
    wf = A.reverse(w, [0, 1])
    if groups == 1:
        wf = A.transpose(wf, [0, 1, 3, 2])
    else:
        wf = A.reshape(wf, [kh, kw, fin, groups, cout // groups])
        wf = A.reshape(A.transpose(wf, [0, 1, 4, 3, 2]), [kh, kw, cout // groups, groups * fin])
    return apply("conv2d", (gz, wf), {"strides": (1, 1), "padding": "VALID",
                                      "explicit_paddings": (), "data_format": "NHWC",
                                      "dilations": tuple(dilations)})


def _conv_filter_grad(opname, x4, g4, wshape, attrs, groups):
    """d conv2d(x, w) / d w: per tap, the strided window of the padded input contracted with
    the gradient over batch and space."""
    kh, kw, fin, cout = wshape
    _, h, wd, _ = dims(x4)
    strides, dilations = attrs["strides"], attrs["dilations"]
    outs, pads = _geometry(opname, (h, wd), (kh, kw), strides, dilations, attrs["padding"],
                           attrs["explicit_paddings"])
    if 0 in outs:
        return A.zeros(wshape, dtype=x4.dtype)
    xp = A.pad(x4, [[0, 0], list(pads[0]), list(pads[1]), [0, 0]])
    og = cout // groups
    if groups > 1:
        g5 = A.reshape(g4, [-1] + outs + [groups, og])
    taps = []
    for i in range(kh):
        row = []
        for j in range(kw):
            patch = _window(xp, (i * dilations[0], j * dilations[1]), strides, outs)
            if groups == 1:
                tap = L.tensordot(patch, g4, [[0, 1, 2], [0, 1, 2]])
            else:
                p5 = A.reshape(patch, [-1] + outs + [groups, fin])
                tap = A.reshape(L.einsum("nhwgc,nhwgo->cgo", p5, g5), [fin, cout])
            row.append(tap)
        taps.append(A.stack(row))
    return A.stack(taps)


def _groups(opname, x4, w):
    cin = dims(x4)[3]
    fin = dims(w)[2]
    if cin is None or fin is None:
        raise unsupported(opname, "needs static channel counts")
    return cin // fin


@gradient("conv2d")
def _conv2d_grad(op, g):
    x, w = op.inputs
    a = _conv_attrs(op)
    fmt = a["data_format"]
    x4, g4 = _to_nhwc(x, fmt, "conv2d"), _to_nhwc(g, fmt, "conv2d")
    wshape = _static(w, "conv2d", "filter")
    groups = _groups("conv2d", x4, w)
    dx = _from_nhwc(_conv_input_grad("conv2d", g4, w, x4, a, groups), x, fmt, "conv2d")
    dw = _conv_filter_grad("conv2d", x4, g4, wshape, a, groups)
    return [dx, dw]


@gradient("depthwise_conv2d")
def _depthwise_grad(op, g):
    x, f = op.inputs
    a = _conv_attrs(op)
    fmt = a["data_format"]
    kh, kw, c, m = _static(f, "depthwise_conv2d", "filter")
    x4, g4 = _to_nhwc(x, fmt, "depthwise_conv2d"), _to_nhwc(g, fmt, "depthwise_conv2d")
    w = A.reshape(f, [kh, kw, 1, c * m])
    dx = _from_nhwc(_conv_input_grad("depthwise_conv2d", g4, w, x4, a, c), x, fmt,
                    "depthwise_conv2d")
    dw = _conv_filter_grad("depthwise_conv2d", x4, g4, [kh, kw, 1, c * m], a, c)
    return [dx, A.reshape(dw, [kh, kw, c, m])]


@gradient("conv2d_transpose")
def _conv2d_transpose_grad(op, g):
    x, f = op.inputs
    a = _conv_attrs(op)
    fmt = a["data_format"]
    # conv2d_transpose(x, f) is the input gradient of conv2d(., f) at upstream x: its own
    # input gradient is that conv2d, its filter gradient conv2d's filter gradient with the
    # roles of input and upstream exchanged.
    dx = apply("conv2d", (g, f), {"strides": tuple(a["strides"]), "padding": a["padding"],
                                  "explicit_paddings": tuple(a["explicit_paddings"]),
                                  "data_format": fmt, "dilations": tuple(a["dilations"])})
    g4 = _to_nhwc(g, fmt, "conv2d_transpose")
    x4 = _to_nhwc(x, fmt, "conv2d_transpose")
    df = _conv_filter_grad("conv2d_transpose", g4, x4, _static(f, "conv2d_transpose", "filter"),
                           a, 1)
    return [dx, df]


# --- pooling ------------------------------------------------------------------------------
def _channels_last(fmt):
    """(perm to channels-last, perm back) for a pooling layout, or (None, None)."""
    r = len(fmt)
    if not fmt.startswith("NC"):
        return None, None
    return [0] + list(range(2, r)) + [1], [0, r - 1] + list(range(1, r - 1))


def _pool_setup(op, g):
    x = op.inputs[0]
    fmt = attr(op, "data_format")
    to_last, back = _channels_last(fmt)
    ts = [x, op.outputs[0], g]
    if to_last is not None:
        ts = [A.transpose(t, to_last) for t in ts]
    xl, yl, gl = ts
    ksize, strides = attr(op, "ksize"), attr(op, "strides")
    n = len(ksize)
    sizes = dims(xl)[1:-1]
    outs, pads = _geometry(op.opdef.name, sizes, ksize, strides, (1,) * n, attr(op, "padding"),
                           attr(op, "explicit_paddings"))
    padded = [s + b + a for s, (b, a) in zip(sizes, pads)]
    return xl, yl, gl, ksize, strides, outs, pads, padded, back


def _scatter_taps(contributions, strides, padded, pads, back):
    """Sum each window tap's contribution placed at its input positions, then drop the pad."""
    total = None
    for offsets, c in contributions:
        for ax, (o, s, p) in enumerate(zip(offsets, strides, padded), 1):
            c = place(c, ax, o, s, p)
        total = c if total is None else add(total, c)
    total = crop(total, [(0, 0)] + list(pads) + [(0, 0)])
    return total if back is None else A.transpose(total, back)


@gradient("max_pool")
def _max_pool_grad(op, g):
    xl, yl, gl, ksize, strides, outs, pads, padded, back = _pool_setup(op, g)
    if 0 in outs:
        return [A.zeros_like(op.inputs[0])]
    lowest = float("-inf")
    xp = A.pad(xl, [[0, 0]] + [list(p) for p in pads] + [[0, 0]], constant_values=lowest)
    zeros = _zeros(gl)
    found = None
    contributions = []
    for offsets in itertools.product(*(range(k) for k in ksize)):
        hit = M.equal(_window(xp, offsets, strides, outs), yl)
        if found is None:
            found = hit
        else:
            hit = M.logical_and(hit, M.logical_not(found))
            found = M.logical_or(found, hit)
        contributions.append((offsets, M.where(hit, gl, zeros)))
    return [_scatter_taps(contributions, strides, padded, pads, back)]


@gradient("avg_pool")
def _avg_pool_grad(op, g):
    xl, yl, gl, ksize, strides, outs, pads, padded, back = _pool_setup(op, g)
    if 0 in outs:
        return [A.zeros_like(op.inputs[0])]
    sizes = dims(xl)[1:-1]
    # How many window elements fall inside the input, per output position.
    count = np.ones([1] * (len(outs) + 2))
    for i, (size, n, (before, _), k, s) in enumerate(zip(sizes, outs, pads, ksize, strides)):
        start = np.arange(n) * s - before
        c = np.clip(start + k, 0, size) - np.clip(start, 0, size)
        shape = [1] * (len(outs) + 2)
        shape[i + 1] = n
        count = count * c.reshape(shape)
    share = M.divide(gl, const(count, gl.dtype))
    contributions = [(offsets, share)
                     for offsets in itertools.product(*(range(k) for k in ksize))]
    return [_scatter_taps(contributions, strides, padded, pads, back)]

