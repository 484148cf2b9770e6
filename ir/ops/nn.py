"""Op declarations: nn family (activations, softmax and its cross entropies, bias_add,
convolutions and pooling).

Window geometry (`window_geometry`) lives here because inference and the kernels must agree
on it exactly; the kernels import it. Convolution and pooling attributes are normalized by
the API to spatial-only tuples: `strides`/`dilations`/`ksize` hold one int per spatial dim and
`explicit_paddings` holds (before, after) pairs flattened, in spatial order.
"""
from __future__ import annotations

from .. import dtypes as D
from ..infer import (FLOATS, INDEX, NUMERIC, TT, broadcast, check_dtype, norm_axis, rank_of,
                     same_dtype, unary)
from ..registry import InferenceError, op

CONV_DTYPES = FLOATS + (D.int32,)
PADDINGS = ("SAME", "VALID", "EXPLICIT")
CONV_FORMATS = ("NHWC", "NCHW")
# Pooling takes 1, 2 or 3 spatial dims; the format string fixes the rank and channel axis.
POOL_FORMATS = ("NWC", "NCW", "NHWC", "NCHW", "NDHWC", "NCDHW")


# --- geometry -----------------------------------------------------------------------------
def _trunc_div(a: int, b: int) -> int:
    """C integer division (toward zero), which TF's output-size formula relies on."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def window_geometry(size, k, stride, dilation, padding, pads=(0, 0)):
    """(output size, pad before, pad after) of one spatial dim, as TF computes it.

    `size`/`k` may be None (unknown): the output size is then None and the pads are only
    meaningful for VALID/EXPLICIT. Raises InferenceError when the output would be negative."""
    if padding == "VALID":
        before, after = 0, 0
    elif padding == "EXPLICIT":
        before, after = pads
    else:
        before = after = None
    if size is None or k is None:
        return None, before, after
    eff = (k - 1) * dilation + 1
    if padding == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + eff - size, 0)
        return out, total // 2, total - total // 2
    out = _trunc_div(size + before + after - eff + stride, stride)
    if out < 0:
        raise InferenceError(f"Computed output size would be negative: {out} [input_size: "
                             f"{size}, effective_filter_size: {eff}, stride: {stride}]")
    return out, before, after


def spatial_axes(data_format: str, rank: int):
    """(spatial axes, channel axis) of a layout such as "NHWC" or "NCDHW" applied to the
    trailing dims of a tensor of the given rank (any leading extra dims are batch dims)."""
    n = len(data_format) - 2
    if data_format.startswith("NC"):
        return tuple(range(rank - n, rank)), rank - n - 1
    return tuple(range(rank - n - 1, rank - 1)), rank - 1


def _check_choice(value, allowed, what):
    if value not in allowed:
        raise InferenceError(f"Value for attr '{what}' of \"{value}\" is not in the list of "
                             f"allowed values: " + ", ".join(f'"{a}"' for a in allowed))


def _check_positive(values, n, what):
    if len(values) != n:
        raise InferenceError(f"{what} must have {n} entries (one per spatial dimension), "
                             f"got {list(values)}")
    if any(v <= 0 for v in values):
        raise InferenceError(f"{what} must be positive, got {list(values)}")


def _check_paddings(padding, explicit, n):
    if padding == "EXPLICIT":
        if len(explicit) != 2 * n:
            raise InferenceError(f"explicit_paddings must hold {2 * n} values (before and "
                                 f"after for each spatial dimension), got {list(explicit)}")
        if any(p < 0 for p in explicit):
            raise InferenceError(f"All elements of explicit_paddings must be nonnegative, "
                                 f"got {list(explicit)}")
    elif explicit:
        raise InferenceError(f"explicit_paddings {list(explicit)} given with padding "
                             f"'{padding}'; they are only allowed with 'EXPLICIT'")


def _pairs(explicit, n):
    return [tuple(explicit[2 * i:2 * i + 2]) for i in range(n)] if explicit else [(0, 0)] * n


def _windowed(shape, sp_axes, ksize, strides, dilations, padding, explicit):
    """Output spatial sizes of a windowed op over `shape`'s spatial axes."""
    pairs = _pairs(explicit, len(sp_axes))
    return [window_geometry(shape[ax], k, s, d, padding, p)[0]
            for ax, k, s, d, p in zip(sp_axes, ksize, strides, dilations, pairs)]


def _known(*dims):
    return all(d is not None for d in dims)


# --- activations --------------------------------------------------------------------------
for _name, _allowed in {"relu": NUMERIC, "relu6": NUMERIC, "elu": FLOATS,
                        "selu": FLOATS}.items():
    op(_name, ("features",))(lambda types, attrs, _a=_allowed: unary(types, _a))


@op("leaky_relu", ("features",), attrs=(("alpha", "float", 0.2),))
def _leaky_relu(types, attrs):
    """x if x > 0 else alpha * x."""
    return unary(types, FLOATS)


@op("gelu", ("features",), attrs=(("approximate", "bool", False),))
def _gelu(types, attrs):
    """x * Phi(x) (erf form), or its tanh approximation when `approximate`."""
    return unary(types, FLOATS)


def _softmax_like(types, attrs):
    t = types[0]
    check_dtype(t, FLOATS, "logits")
    r = rank_of(t)
    if r is not None:
        if r == 0:
            raise InferenceError("logits must have >= 1 dimension, got a scalar")
        norm_axis(attrs["axis"], r)
    return t


op("softmax", ("logits",), attrs=(("axis", "int", -1),))(_softmax_like)
op("log_softmax", ("logits",), attrs=(("axis", "int", -1),))(_softmax_like)


# --- cross entropies ----------------------------------------------------------------------
@op("sparse_softmax_cross_entropy_with_logits", ("logits", "labels"))
def _sparse_xent(types, attrs):
    """Per-example -log softmax(logits)[label]; labels index the last axis of logits."""
    logits, labels = types
    check_dtype(logits, FLOATS, "logits")
    check_dtype(labels, INDEX, "labels")
    if logits.shape is None:
        return TT(logits.dtype, labels.shape)
    if not logits.shape:
        raise InferenceError("logits cannot be a scalar")
    if logits.shape[-1] == 0:
        raise InferenceError(f"Must have at least one class, but got logits shape "
                             f"{list(logits.shape)}")
    outer = logits.shape[:-1]
    if labels.shape is not None:
        if len(labels.shape) != len(outer):
            raise InferenceError(f"rank of labels ({len(labels.shape)}) must equal rank of "
                                 f"logits minus 1 ({len(outer)})")
        if any(a is not None and b is not None and a != b for a, b in zip(labels.shape, outer)):
            raise InferenceError(f"labels shape {list(labels.shape)} must equal logits shape "
                                 f"{list(logits.shape)} without its last dimension")
        outer = tuple(a if a is not None else b for a, b in zip(outer, labels.shape))
    return TT(logits.dtype, outer)


@op("softmax_cross_entropy_with_logits", ("logits", "labels"), attrs=(("axis", "int", -1),))
def _softmax_xent(types, attrs):
    """sum(-labels * log_softmax(logits)) over `axis`; labels broadcast against logits."""
    logits, labels = types
    dt = same_dtype(types, FLOATS)
    if logits.shape is None or labels.shape is None:
        return TT(dt, None)
    if len(logits.shape) != len(labels.shape):
        raise InferenceError(f"logits and labels must have the same rank, got "
                             f"{len(logits.shape)} and {len(labels.shape)}")
    if not logits.shape:
        raise InferenceError("logits and labels must have >= 1 dimension, got scalars")
    try:
        shape = broadcast(logits.shape, labels.shape)
    except InferenceError:
        raise InferenceError(f"logits and labels must be broadcastable: logits_size="
                             f"{list(logits.shape)} labels_size={list(labels.shape)}") from None
    axis = norm_axis(attrs["axis"], len(shape))
    return TT(dt, shape[:axis] + shape[axis + 1:])


@op("l2_loss", ("t",))
def _l2_loss(types, attrs):
    """sum(t ** 2) / 2 as a scalar."""
    check_dtype(types[0], FLOATS, "t")
    return TT(types[0].dtype, ())


# --- bias_add -----------------------------------------------------------------------------
@op("bias_add", ("value", "bias"), attrs=(("data_format", "str", "NHWC"),))
def _bias_add(types, attrs):
    """value + bias along the channel axis: the last ("NHWC") or axis 1 ("NCHW"), any rank."""
    value, bias = types
    dt = same_dtype(types, NUMERIC)
    _check_choice(attrs["data_format"], CONV_FORMATS, "data_format")
    if bias.shape is not None and len(bias.shape) != 1:
        raise InferenceError(f"Biases must be 1D: {list(bias.shape)}")
    if value.shape is None:
        return TT(dt, None)
    if len(value.shape) < 2:
        raise InferenceError(f"Input tensor must be at least 2D: {list(value.shape)}")
    channel = value.shape[1 if attrs["data_format"] == "NCHW" else -1]
    if bias.shape is not None and _known(channel, bias.shape[0]) and channel != bias.shape[0]:
        raise InferenceError(f"Must provide as many biases as the channel dimension of the "
                             f"input tensor: {list(bias.shape)} vs. {list(value.shape)}")
    return TT(dt, value.shape)


# --- convolution --------------------------------------------------------------------------
CONV_ATTRS = (("strides", "ints"), ("padding", "str"), ("explicit_paddings", "ints", ()),
              ("data_format", "str", "NHWC"), ("dilations", "ints", (1, 1)))


def _conv_common(types, attrs, allowed, min_rank=4, max_rank=None):
    """Shared checks of the 2-D convolutions: dtypes, attributes, ranks. Returns the dtype,
    the input shape (None if unknown rank), its spatial axes and its channel axis."""
    x, f = types
    dt = same_dtype(types, allowed)
    _check_choice(attrs["data_format"], CONV_FORMATS, "data_format")
    _check_choice(attrs["padding"], PADDINGS, "padding")
    _check_positive(attrs["strides"], 2, "strides")
    _check_positive(attrs["dilations"], 2, "dilations")
    _check_paddings(attrs["padding"], attrs["explicit_paddings"], 2)
    if f.shape is not None:
        if len(f.shape) != 4:
            raise InferenceError(f"filter must be 4-dimensional: {list(f.shape)}")
        if any(d == 0 for d in f.shape[:3]):
            raise InferenceError(f"filter must not have zero elements in its spatial or input "
                                 f"depth dimensions: {list(f.shape)}")
    if x.shape is None:
        return dt, None, None, None
    r = len(x.shape)
    if r < min_rank or (max_rank is not None and r > max_rank):
        want = f"{min_rank}-dimensional" if max_rank == min_rank else \
            f"at least {min_rank}-dimensional"
        raise InferenceError(f"input must be {want}: {list(x.shape)}")
    sp, ch = spatial_axes(attrs["data_format"], r)
    return dt, x.shape, sp, ch


def _fshape(f):
    return f.shape if f.shape is not None else (None,) * 4


def _conv_output(shape, sp, ch, spatial, channels):
    out = list(shape)
    for ax, n in zip(sp, spatial):
        out[ax] = n
    out[ch] = channels
    return tuple(out)


@op("conv2d", ("input", "filters"), attrs=CONV_ATTRS)
def _conv2d(types, attrs):
    """2-D cross-correlation; filters are [kh, kw, in/groups, out]. Leading dims beyond the
    last three are batch dims. `in` a multiple of the filter's input depth means groups."""
    dt, shape, sp, ch = _conv_common(types, attrs, CONV_DTYPES)
    kh, kw, fin, fout = _fshape(types[1])
    if shape is None:
        return TT(dt, None)
    cin = shape[ch]
    if _known(cin, fin):
        if cin % fin or cin == 0:
            raise InferenceError(f"input depth must be evenly divisible by filter depth: "
                                 f"{cin} vs {fin}")
        if fout is not None and fout % (cin // fin):
            raise InferenceError(f"output depth {fout} must be evenly divisible by the number "
                                 f"of groups {cin // fin}")
    spatial = _windowed(shape, sp, (kh, kw), attrs["strides"], attrs["dilations"],
                        attrs["padding"], attrs["explicit_paddings"])
    return TT(dt, _conv_output(shape, sp, ch, spatial, fout))


@op("depthwise_conv2d", ("input", "filter"), attrs=CONV_ATTRS)
def _depthwise(types, attrs):
    """Each input channel c convolved with its own filters [kh, kw, c, m]; output channel
    c * multiplier + m."""
    dt, shape, sp, ch = _conv_common(types, attrs, FLOATS, 4, 4)
    kh, kw, fin, mult = _fshape(types[1])
    if shape is None:
        return TT(dt, None)
    cin = shape[ch]
    if _known(cin, fin) and cin != fin:
        raise InferenceError(f"input and filter must have the same depth: {cin} vs {fin}")
    spatial = _windowed(shape, sp, (kh, kw), attrs["strides"], attrs["dilations"],
                        attrs["padding"], attrs["explicit_paddings"])
    c = cin if cin is not None else fin
    return TT(dt, _conv_output(shape, sp, ch, spatial,
                               c * mult if _known(c, mult) else None))


@op("conv2d_transpose", ("input", "filters"),
    attrs=(("output_shape", "shape"),) + CONV_ATTRS)
def _conv2d_transpose(types, attrs):
    """The gradient of conv2d with respect to its input: maps `input` (shaped like a conv2d
    output) to `output_shape`. Filters are [kh, kw, out_channels, in_channels]."""
    dt, shape, sp, ch = _conv_common(types, attrs, CONV_DTYPES, 4, 4)
    out_shape = tuple(attrs["output_shape"])
    if len(out_shape) != 4:
        raise InferenceError(f"output_shape must have 4 entries, got {list(out_shape)}")
    if any(d is not None and d < 0 for d in out_shape):
        raise InferenceError(f"output_shape must be non-negative, got {list(out_shape)}")
    kh, kw, fout, fin = _fshape(types[1])
    osp, och = spatial_axes(attrs["data_format"], 4)
    if _known(fout, out_shape[och]) and fout != out_shape[och]:
        raise InferenceError(f"filter output depth {fout} does not match output_shape's "
                             f"channel dimension {out_shape[och]}")
    if shape is not None:
        if _known(shape[0], out_shape[0]) and shape[0] != out_shape[0]:
            raise InferenceError(f"input and output_shape must have the same batch size: "
                                 f"{shape[0]} vs {out_shape[0]}")
        if _known(shape[ch], fin) and shape[ch] != fin:
            raise InferenceError(f"filter and input must have the same depth: {fin} vs "
                                 f"{shape[ch]}")
        expect = _windowed(out_shape, osp, (kh, kw), attrs["strides"], attrs["dilations"],
                           attrs["padding"], attrs["explicit_paddings"])
        for ax, e in zip(sp, expect):
            if _known(e, shape[ax]) and e != shape[ax]:
                raise InferenceError(
                    f"input spatial size {shape[ax]} does not match the size {e} that a "
                    f"conv2d of output_shape {list(out_shape)} with these strides, "
                    f"dilations and padding would produce")
    return TT(dt, out_shape)


# --- pooling ------------------------------------------------------------------------------
POOL_ATTRS = (("ksize", "ints"), ("strides", "ints"), ("padding", "str"),
              ("explicit_paddings", "ints", ()), ("data_format", "str", "NHWC"))


def _pool(types, attrs, allowed, paddings):
    t = types[0]
    check_dtype(t, allowed)
    fmt = attrs["data_format"]
    _check_choice(fmt, POOL_FORMATS, "data_format")
    _check_choice(attrs["padding"], paddings, "padding")
    n = len(fmt) - 2
    _check_positive(attrs["ksize"], n, "ksize")
    _check_positive(attrs["strides"], n, "strides")
    _check_paddings(attrs["padding"], attrs["explicit_paddings"], n)
    for (b, a), k in zip(_pairs(attrs["explicit_paddings"], n), attrs["ksize"]):
        if b >= k or a >= k:
            raise InferenceError(f"explicit padding ({b}, {a}) needs to be smaller than the "
                                 f"window size {k}")
    if t.shape is None:
        return TT(t.dtype, None)
    if len(t.shape) != len(fmt):
        raise InferenceError(f"input must be {len(fmt)}-dimensional for data_format "
                             f"'{fmt}' ({n} spatial dimensions): {list(t.shape)}")
    sp, _ = spatial_axes(fmt, len(fmt))
    spatial = _windowed(t.shape, sp, attrs["ksize"], attrs["strides"], (1,) * n,
                        attrs["padding"], attrs["explicit_paddings"])
    out = list(t.shape)
    for ax, s in zip(sp, spatial):
        out[ax] = s
    return TT(t.dtype, tuple(out))


@op("max_pool", ("input",), attrs=POOL_ATTRS)
def _max_pool(types, attrs):
    """Max over each window (1-3 spatial dims); padding never wins and NaN is skipped."""
    return _pool(types, attrs, NUMERIC, PADDINGS)


@op("avg_pool", ("input",), attrs=POOL_ATTRS)
def _avg_pool(types, attrs):
    """Mean over each window (1-3 spatial dims), counting only elements inside the input."""
    return _pool(types, attrs, FLOATS, ("SAME", "VALID"))
