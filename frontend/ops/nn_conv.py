"""`tf.nn`'s convolutions of any rank and their transposes, composed from the 2-D ops:
convolution/conv_transpose dispatch on the rank, conv1d_transpose is conv2d_transpose over a
unit height, atrous convolutions are dilated ones, separable_conv2d is a depthwise then a 1x1
conv2d (as TF composes it), pool picks max_pool/avg_pool.

conv3d is the sum over the filter's depth taps of conv2d over the matching depth slices (the
batch and output depth folded into one batch); conv3d_transpose is its linear transpose: each
tap's conv2d_transpose spread back over the depth by the stride. Both differentiate through
the 2-D ops' gradients."""
from __future__ import annotations

from ...ir import errors
from ..eager import dispatch
from ..eager.dispatch import convert_pair, convert_to_tensor
from ..export import tf_export
from ..gradients.tape import GradientTape
from . import array as A
from . import math as M
from .nn import _dims, _is_int, _padding_arg, _window_arg, avg_pool, conv2d, \
    conv2d_transpose, depthwise_conv2d, max_pool

_CHANNELS_LAST = {1: "NWC", 2: "NHWC", 3: "NDHWC"}
_CHANNELS_FIRST = {1: "NCW", 2: "NCHW", 3: "NCDHW"}


def _layout(data_format, n, opname):
    """(channels-last layout of rank n, whether the caller's data is channels-first)."""
    if data_format is None or data_format == _CHANNELS_LAST[n]:
        return _CHANNELS_LAST[n], False
    if data_format == _CHANNELS_FIRST[n]:
        return _CHANNELS_LAST[n], True
    raise ValueError(f"{opname}: data_format must be {_CHANNELS_LAST[n]!r} or "
                     f"{_CHANNELS_FIRST[n]!r} for {n} spatial dimensions. Received: "
                     f"data_format={data_format}")


def _to_last(x, first):
    if not first:
        return x
    r = len(_dims(x))
    return A.transpose(x, [0] + list(range(2, r)) + [1])


def _to_first(x, first):
    if not first:
        return x
    r = len(_dims(x))
    return A.transpose(x, [0, r - 1] + list(range(1, r - 1)))


def _static_dims(t, rank, what, opname):
    dims = _dims(t)
    if dims is None or len(dims) != rank:
        raise ValueError(f"{opname}: {what} must be {rank}-dimensional, got shape {t.shape}")
    return dims


def _depth_geometry(size, k, stride, dilation, padding):
    """(output size, padding before, padding after) of one window dimension, as TF's
    GetWindowedOutputSize (a VALID window larger than the input leaves an empty output)."""
    span = (k - 1) * dilation + 1
    if padding == "VALID":
        return max((size - span) // stride + 1, 0), 0, 0
    out = -(-size // stride)
    total = max((out - 1) * stride + span - size, 0)
    return out, total // 2, total - total // 2


def _conv3d_parts(opname, x, f, strides, padding, dilations):
    """The static geometry conv3d and its transpose share."""
    n, d, h, w, c = x
    kd, kh, kw, fin, fout = f
    if None in (d, h, w, c, kd):
        raise ValueError(f"{opname}: flowjit needs the depth, height, width and channels known "
                         f"while tracing, got input {list(x)} and filters {list(f)}")
    if fin is not None and c % fin:
        raise errors.InvalidArgumentError(
            None, opname, f"Input depth must be evenly divisible by filter depth: {c} vs {fin}")
    do, before, after = _depth_geometry(d, kd, strides[0], dilations[0], padding)
    return (d, h, w, c, kd), (do, before, after)


def _conv3d_attrs(opname, strides, padding, data_format, dilations):
    layout, first = _layout(data_format, 3, opname)
    given = _CHANNELS_FIRST[3] if first else layout   # how the caller's lists are ordered
    pad, _ = _padding_arg(padding, given, opname, explicit_ok=False)
    return (layout, first, _window_arg(strides, given, "strides", opname), pad,
            _window_arg(1 if dilations is None else dilations, given, "dilations", opname))


@tf_export("nn.conv3d")
def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None,  # noqa: A002
           name=None):
    """3-D cross-correlation of [batch, D, H, W, in] with [kd, kh, kw, in, out] filters."""
    opname = "conv3d"
    x, f = convert_pair(input, filters)
    layout, first, st, pad, dil = _conv3d_attrs(opname, strides, padding, data_format,
                                                 dilations)
    x = _to_last(x, first)
    (d, h, w, c, kd), (do, before, after) = _conv3d_parts(
        opname, _static_dims(x, 5, "input", opname), _static_dims(f, 5, "filters", opname),
        st, pad, dil)
    xp = A.pad(x, [[0, 0], [before, after], [0, 0], [0, 0], [0, 0]])
    taps = []
    for i in range(kd):
        start = i * dil[0]
        rows = xp[:, start:start + (do - 1) * st[0] + 1:st[0]]
        y = conv2d(A.reshape(rows, [-1, h, w, c]), f[i], [1, st[1], st[2], 1], pad,
                   dilations=[1, dil[1], dil[2], 1])
        taps.append(y)
    ho, wo, co = _dims(taps[0])[1:]
    return _to_first(A.reshape(M.add_n(taps), [-1, do, ho, wo, co]), first)


def _spread(z, stride, start, total):
    """z [n, k, ...] placed at depths start, start + stride, ... of a zero tensor of depth
    `total` (the transpose of a strided depth slice)."""
    dims = _dims(z)
    k, rest = dims[1], dims[2:]
    if stride > 1:
        gaps = A.zeros_like(A.tile(z[:, :, None], [1, 1, stride - 1] + [1] * len(rest)))
        z = A.reshape(A.concat([z[:, :, None], gaps], 2), [-1, k * stride] + rest)
        z = z[:, :(k - 1) * stride + 1]
    end = total - start - ((k - 1) * stride + 1)
    return A.pad(z, [[0, 0], [start, end]] + [[0, 0]] * len(rest))


def _output_shape_arg(output_shape, rank, opname):
    shape = output_shape.numpy().tolist() if hasattr(output_shape, "numpy") else output_shape
    if not isinstance(shape, (list, tuple)) or not all(_is_int(v) for v in shape):
        raise TypeError(f"{opname}: output_shape must be a static list of ints, got "
                        f"{output_shape!r}")
    if len(shape) != rank:
        raise ValueError(f"{opname}: output_shape must have {rank} entries, got {list(shape)}")
    return [int(v) for v in shape]


@tf_export("nn.conv3d_transpose")
def conv3d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NDHWC", dilations=None, name=None):
    """The transpose (input gradient) of conv3d: filters [kd, kh, kw, out, in], result of the
    static `output_shape`."""
    opname = "conv3d_transpose"
    y, f = convert_pair(input, filters)
    layout, first, st, pad, dil = _conv3d_attrs(opname, strides, padding, data_format,
                                                 dilations)
    shape = _output_shape_arg(output_shape, 5, opname)
    if first:
        shape = [shape[0]] + shape[2:] + [shape[1]]
    y = _to_last(y, first)
    ydims = _static_dims(y, 5, "input", opname)
    fdims = _static_dims(f, 5, "filters", opname)
    (d, h, w, c, kd), (do, before, after) = _conv3d_parts(
        opname, shape, fdims, st, pad, dil)
    if ydims[1] != do or (fdims[4] is not None and ydims[4] != fdims[4]):
        raise errors.InvalidArgumentError(
            None, opname, f"input {ydims} does not match the conv3d output of output_shape "
                          f"{shape} and filters {fdims}")
    flat = A.reshape(y, [-1] + ydims[2:])
    total = d + before + after
    taps = []
    for i in range(kd):
        z = conv2d_transpose(flat, f[i], [shape[0] * do, h, w, c], [1, st[1], st[2], 1],
                             pad, dilations=[1, dil[1], dil[2], 1])
        taps.append(_spread(A.reshape(z, [-1, do, h, w, c]), st[0], i * dil[0], total))
    return _to_first(M.add_n(taps)[:, before:before + d], first)


@tf_export("nn.conv1d_transpose")
def conv1d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NWC", dilations=None, name=None):
    """The transpose of conv1d: conv2d_transpose over a unit height; filters [k, out, in]."""
    opname = "conv1d_transpose"
    layout, first = _layout(data_format, 1, opname)
    x, f = convert_pair(input, filters)
    given = _CHANNELS_FIRST[1] if first else layout
    st = _window_arg(strides, given, "strides", opname)[0]
    dil = _window_arg(1 if dilations is None else dilations, given, "dilations", opname)[0]
    shape = _output_shape_arg(output_shape, 3, opname)
    if first:
        shape = [shape[0], shape[2], shape[1]]
    out = conv2d_transpose(A.expand_dims(_to_last(x, first), 1), A.expand_dims(f, 0),
                           [shape[0], 1] + shape[1:], [1, 1, st, 1], padding,
                           dilations=[1, 1, dil, 1])
    return _to_first(A.squeeze(out, 1), first)


def _spatial_rank(t, drop, opname, what):
    dims = _dims(t)
    if dims is None:
        raise ValueError(f"{opname}: {what} must have a known rank")
    n = len(dims) - drop
    if n not in _CHANNELS_LAST:
        raise ValueError(f"{opname}: `input` and `filter` must have the same number of "
                         f"spatial dimensions (1, 2 or 3). Received: {what} of rank "
                         f"{len(dims)}")
    return n


def _per_dim(value, n, first, what, opname):
    """strides/dilations of a rank-agnostic call as the n spatial values."""
    layout = _CHANNELS_FIRST[n] if first else _CHANNELS_LAST[n]
    return list(_window_arg(1 if value is None else value, layout, what, opname))


@tf_export("nn.convolution")
def convolution(input, filters, strides=None, padding="VALID", data_format=None,  # noqa: A002
                dilations=None, name=None):
    """An N-D convolution (N = 1, 2, 3 from the filters' rank), channels last unless
    data_format starts with "NC"."""
    opname = "convolution"
    x, f = convert_pair(input, filters)
    n = _spatial_rank(f, 2, opname, "filters")
    first = data_format is not None and data_format.startswith("NC")
    st = _per_dim(strides, n, first, "strides", opname)
    dil = _per_dim(dilations, n, first, "dilations", opname)
    fmt = _CHANNELS_FIRST[n] if first else _CHANNELS_LAST[n]
    if n == 1:
        y = conv2d(A.expand_dims(_to_last(x, first), 1), A.expand_dims(f, 0),
                   [1, 1, st[0], 1], padding, dilations=[1, 1, dil[0], 1])
        return _to_first(A.squeeze(y, 1), first)
    if n == 2:
        return conv2d(x, f, st, padding, data_format=fmt, dilations=dil)
    return conv3d(x, f, [1] + st + [1], padding, data_format=fmt,
                  dilations=[1] + dil + [1])


@tf_export("nn.conv_transpose")
def conv_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                   data_format=None, dilations=None, name=None):
    """The transpose of `convolution`, of rank len(output_shape) - 2."""
    opname = "conv_transpose"
    shape = _output_shape_arg(output_shape, len(output_shape) if isinstance(
        output_shape, (list, tuple)) else _dims(convert_to_tensor(output_shape))[0], opname)
    n = len(shape) - 2
    if n not in _CHANNELS_LAST:
        raise ValueError(f"{opname}: output_shape must have 3, 4 or 5 entries, got {shape}")
    first = data_format is not None and data_format.startswith("NC")
    fmt = _CHANNELS_FIRST[n] if first else _CHANNELS_LAST[n]
    api = {1: conv1d_transpose, 2: conv2d_transpose, 3: conv3d_transpose}[n]
    st = _per_dim(strides, n, first, "strides", opname)
    dil = _per_dim(dilations, n, first, "dilations", opname)
    return api(input, filters, shape, st, padding, data_format=fmt, dilations=dil)


def _rate(rate, opname):
    if not _is_int(rate) or rate < 1:
        raise ValueError(f"all values of `dilation_rate` must be positive. Received: "
                         f"dilation_rate=[{rate} {rate}]")
    return int(rate)


@tf_export("nn.atrous_conv2d")
def atrous_conv2d(value, filters, rate, padding, name=None):
    """conv2d with the filter taps `rate` pixels apart (dilation), NHWC, stride 1."""
    return conv2d(value, filters, 1, padding, dilations=_rate(rate, "atrous_conv2d"))


@tf_export("nn.atrous_conv2d_transpose")
def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose of atrous_conv2d: conv2d_transpose with dilation `rate`, stride 1."""
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be either \"SAME\" or \"VALID\", got {padding!r}")
    return conv2d_transpose(value, filters, output_shape, 1, padding,
                            dilations=_rate(rate, "atrous_conv2d_transpose"))


@tf_export("nn.separable_conv2d")
def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding,  # noqa: A002
                     data_format=None, dilations=None, name=None):
    """A depthwise conv2d (filters [kh, kw, in, multiplier]) followed by a 1x1 conv2d
    (pointwise filters [1, 1, in * multiplier, out])."""
    pw = convert_to_tensor(pointwise_filter)
    dims = _dims(pw)
    if dims is None or len(dims) != 4:
        raise ValueError(f"Shape must be rank 4 but is rank "
                         f"{'unknown' if dims is None else len(dims)}")
    for d in dims[:2]:
        if d is not None and d != 1:
            raise ValueError(f"Dimensions {d} and 1 are not compatible")
    fmt = "NHWC" if data_format is None else data_format
    y = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format=fmt,
                         dilations=dilations)
    return conv2d(y, pw, 1, "VALID", data_format=fmt)


_POOLS = {"MAX": max_pool, "AVG": avg_pool}


@tf_export("nn.pool")
def pool(input, window_shape, pooling_type, strides=None, padding="VALID",  # noqa: A002
         data_format=None, dilations=None, name=None):
    """max_pool or avg_pool over len(window_shape) spatial dims; flowjit pools undilated
    windows only (README, Differences from TF)."""
    opname = "pool"
    window = list(window_shape)
    n = len(window)
    if pooling_type not in _POOLS:
        raise ValueError(f"{n}-D {pooling_type} pooling is not supported.")
    if n not in _CHANNELS_LAST:
        raise ValueError(f"{opname}: window_shape must have 1, 2 or 3 entries, got {window}")
    st = [1] * n if strides is None else list(strides)
    dil = [1] * n if dilations is None else list(dilations)
    if len(st) != n or len(dil) != n:
        raise ValueError(f"{opname}: strides and dilations must have {n} entries, got "
                         f"strides={st} and dilations={dil}")
    if any(d != 1 for d in dil):
        if any(s != 1 for s in st):
            raise ValueError("strides > 1 not supported in conjunction with dilation_rate > 1")
        raise dispatch.op_error(opname, f"flowjit pools undilated windows only, got "
                                        f"dilations={dil}")
    first = data_format is not None and data_format.startswith("NC")
    fmt = _CHANNELS_FIRST[n] if first else _CHANNELS_LAST[n]
    if first and n == 1:
        raise ValueError(f"{opname}: data_format {data_format!r} is not supported for 1-D "
                         f"pooling")
    return _POOLS[pooling_type](input, window, st, padding, data_format=fmt)


def linear_backprop(conv, x, f, out_backprop, wrt_input, **conv_args):
    """A gradient of `conv(x, f, **conv_args)`, which is linear in each operand: the tape's
    gradient at `out_backprop` (recorded by any outer tape, so it differentiates again)."""
    g = convert_to_tensor(out_backprop)
    with GradientTape() as tape:
        tape.watch(x if wrt_input else f)
        y = conv(x, f, **conv_args)
    return tape.gradient(y, x if wrt_input else f, output_gradients=g)


def _depthwise_backprop(x, f, out_backprop, strides, padding, data_format, dilations,
                        wrt_input):
    return linear_backprop(depthwise_conv2d, x, f, out_backprop, wrt_input, strides=strides,
                           padding=padding, data_format=data_format, dilations=dilations)


def _sizes(sizes, opname):
    values = sizes.numpy().tolist() if hasattr(sizes, "numpy") else list(sizes)
    if len(values) != 4 or not all(_is_int(v) for v in values):
        raise ValueError(f"{opname}: sizes must be 4 static ints, got {values}")
    return [int(v) for v in values]


@tf_export("nn.depthwise_conv2d_backprop_input")
def depthwise_conv2d_backprop_input(input_sizes, filter, out_backprop, strides,  # noqa: A002
                                    padding, data_format="NHWC", dilations=(1, 1, 1, 1),
                                    name=None):
    """The gradient of depthwise_conv2d with respect to an input of `input_sizes`."""
    opname = "depthwise_conv2d_backprop_input"
    f, g = convert_pair(filter, out_backprop)
    x = A.zeros(_sizes(input_sizes, opname), dtype=f.dtype)
    return _depthwise_backprop(x, f, g, strides, padding, data_format, dilations, True)


@tf_export("nn.depthwise_conv2d_backprop_filter")
def depthwise_conv2d_backprop_filter(input, filter_sizes, out_backprop, strides,  # noqa: A002
                                     padding, data_format="NHWC", dilations=(1, 1, 1, 1),
                                     name=None):
    """The gradient of depthwise_conv2d with respect to a filter of `filter_sizes`."""
    opname = "depthwise_conv2d_backprop_filter"
    x, g = convert_pair(input, out_backprop)
    f = A.zeros(_sizes(filter_sizes, opname), dtype=x.dtype)
    return _depthwise_backprop(x, f, g, strides, padding, data_format, dilations, False)
