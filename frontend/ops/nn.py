"""TF-named API: nn family (`tf.nn.relu`, `tf.nn.conv2d`, `tf.nn.softmax`, ...).

Activations, softmax, the softmax cross entropies, bias_add, l2_loss, convolutions and
pooling are primitives. silu, sigmoid_cross_entropy_with_logits, batch_normalization,
moments, l2_normalize and dropout are compositions, as in TF; the last three use the reduce
and random APIs, imported when called.

Window arguments follow TF's rules: `strides`, `dilations` and `ksize` are an int, or a list
of 1, N (one per spatial dim) or N+2 (layout order, 1 for batch and channels) ints; they
reach the ops as one int per spatial dim. A padding list holds one [before, after] pair per
dim in layout order and becomes padding="EXPLICIT" plus the spatial pairs, flattened.
"""
from __future__ import annotations

import numbers

from ...ir import dtypes as D
from ...ir import errors
from ...ir.ops.nn import CONV_FORMATS, POOL_FORMATS, spatial_axes
from ..eager import dispatch
from ..function.context import context
from ..eager.dispatch import apply, convert_pair, convert_to_tensor
from ..export import runs, tf_export
from ..eager.tensor import Tensor
from . import math as _math
from .array import _int


def _axis(axis, opname):
    """The `axis` attribute of the softmax family: an integer, -1 by default. TF builds a
    `range` from a float axis (InvalidArgumentError eagerly, ValueError while tracing) and
    refuses a string with TypeError; never truncate or parse it."""
    if axis is None:
        return -1
    if isinstance(axis, numbers.Real) and not isinstance(axis, numbers.Integral):
        cls = ValueError if context().graph_hook is not None else errors.InvalidArgumentError
        msg = f"{opname}: axis must be an integer, got {axis!r}"
        raise cls(msg) if cls is ValueError else cls(None, opname, msg)
    return _int(axis, opname, "axis")


def _dims(t):
    """Static dims of a tensor (None entries unknown), or None for unknown rank."""
    return t.shape.dims


# --- activations --------------------------------------------------------------------------
@tf_export("nn.relu")
def relu(features, name=None):
    """max(features, 0)."""
    return apply("relu", (convert_to_tensor(features),))


@tf_export("nn.relu6")
def relu6(features, name=None):
    """min(max(features, 0), 6)."""
    return apply("relu6", (convert_to_tensor(features),))


@tf_export("nn.leaky_relu")
def leaky_relu(features, alpha=0.2, name=None):
    """features if features > 0 else alpha * features; integers are first cast to float32."""
    x = convert_to_tensor(features)
    if x.dtype.is_integer:
        x = _math.cast(x, D.float32)
    return apply("leaky_relu", (x,), {"alpha": float(alpha)})


@tf_export("nn.elu")
def elu(features, name=None):
    """features if > 0 else exp(features) - 1."""
    return apply("elu", (convert_to_tensor(features),))


@tf_export("nn.selu")
def selu(features, name=None):
    """scale * elu-like(features) with the self-normalizing constants."""
    return apply("selu", (convert_to_tensor(features),))


@tf_export("nn.gelu")
def gelu(features, approximate=False, name=None):
    """features * Phi(features); `approximate` uses the tanh formula."""
    x = convert_to_tensor(features)
    if not x.dtype.is_floating:
        raise ValueError(f"gelu: `features.dtype` must be a floating point tensor. "
                         f"Received: features.dtype={x.dtype}")
    return apply("gelu", (x,), {"approximate": bool(approximate)})


@tf_export("nn.silu")
def silu(features, beta=1.0, name=None):
    """features * sigmoid(beta * features) (a.k.a. swish)."""
    x = convert_to_tensor(features)
    if not x.dtype.is_floating:
        raise dispatch.op_error("silu", f"features must be a floating point tensor, got "
                                f"{x.dtype.name}", dtype_error=True)
    if isinstance(beta, numbers.Real) and float(beta) == 1.0:
        return _math.multiply(x, _math.sigmoid(x))
    return _math.multiply(x, _math.sigmoid(_math.multiply(beta, x)))


swish = tf_export("nn.swish")(silu)


@tf_export("math.softmax", "nn.softmax")
def softmax(logits, axis=None, name=None):
    """exp(logits) / sum(exp(logits)) along `axis` (default: the last)."""
    return apply("softmax", (convert_to_tensor(logits),), {"axis": _axis(axis, "softmax")})


@tf_export("math.log_softmax", "nn.log_softmax")
def log_softmax(logits, axis=None, name=None):
    """logits - log(sum(exp(logits))) along `axis` (default: the last)."""
    return apply("log_softmax", (convert_to_tensor(logits),),
                 {"axis": _axis(axis, "log_softmax")})


# --- losses -------------------------------------------------------------------------------
def _require_xent_args(opname, labels, logits):
    if labels is None or logits is None:
        raise ValueError(f"{opname}: Both `labels` and `logits` must be provided. "
                         f"Received: labels={labels!r} and logits={logits!r}")


@tf_export("nn.sparse_softmax_cross_entropy_with_logits")
def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """-log(softmax(logits)[labels]) per example; labels are int32/int64 class indices of
    shape logits.shape[:-1]. A label outside [0, num_classes) raises InvalidArgumentError."""
    opname = "sparse_softmax_cross_entropy_with_logits"
    _require_xent_args(opname, labels, logits)
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    ld, gd = _dims(labels), _dims(logits)
    if gd is not None and len(gd) == 0:
        raise ValueError(f"{opname}: `logits` cannot be a scalar. Received logits={logits!r}")
    if ld is not None and gd is not None:
        if len(ld) != len(gd) - 1:
            raise ValueError(f"{opname}: `labels.shape.rank` must equal `logits.shape.rank - "
                             f"1`. Received: labels.shape={tuple(ld)} of rank {len(ld)} and "
                             f"logits.shape={tuple(gd)} of rank {len(gd)}")
        if any(a is not None and b is not None and a != b for a, b in zip(ld, gd)):
            raise ValueError(f"{opname}: `labels.shape` must equal `logits.shape` except for "
                             f"the last dimension. Received: labels.shape={tuple(ld)} and "
                             f"logits.shape={tuple(gd)}")
    return apply(opname, (logits, labels))


@tf_export("nn.softmax_cross_entropy_with_logits")
def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """sum(-labels * log_softmax(logits)) along `axis`; labels are cast to the logits' type
    (as TF does) and broadcast against them."""
    opname = "softmax_cross_entropy_with_logits"
    _require_xent_args(opname, labels, logits)
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels, dtype_hint=logits.dtype)
    if labels.dtype != logits.dtype:
        labels = _math.cast(labels, logits.dtype)
    return apply(opname, (logits, labels), {"axis": _axis(axis, opname)})


@tf_export("nn.sigmoid_cross_entropy_with_logits")
def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Elementwise logistic loss in TF's overflow-free form:
    max(x, 0) - x * z + log(1 + exp(-|x|)) for logits x and labels z."""
    opname = "sigmoid_cross_entropy_with_logits"
    _require_xent_args(opname, labels, logits)
    logits, labels = convert_pair(logits, labels)
    if not logits.dtype.is_floating or labels.dtype != logits.dtype:
        raise dispatch.op_error(opname, f"logits and labels must be floating point tensors of "
                                f"the same type, got {logits.dtype.name} and "
                                f"{labels.dtype.name}", dtype_error=True)
    a, b = _dims(logits), _dims(labels)
    if a is not None and b is not None and (len(a) != len(b) or any(
            x is not None and y is not None and x != y for x, y in zip(a, b))):
        raise ValueError(f"{opname}: `logits` and `labels` must have the same shape, "
                         f"received ({tuple(a)} vs {tuple(b)}).")
    # TF's selects rather than relu and abs: their gradients at a logit of 0 are both 0,
    # where the loss's is sigmoid(0) - labels.
    from .array import zeros_like
    nonnegative = _math.greater_equal(logits, zeros_like(logits))
    relu_logits = _math.where(nonnegative, logits, zeros_like(logits))
    neg_abs_logits = _math.where(nonnegative, _math.negative(logits), logits)
    soft = _math.log1p(_math.exp(neg_abs_logits))
    return _math.add(_math.subtract(relu_logits, _math.multiply(logits, labels)), soft)


@tf_export("nn.l2_loss")
def l2_loss(t, name=None):
    """sum(t ** 2) / 2, a scalar."""
    return apply("l2_loss", (convert_to_tensor(t),))


# --- normalization ------------------------------------------------------------------------
@tf_export("nn.moments")
def moments(x, axes, shift=None, keepdims=False, name=None):
    """(mean, variance) over `axes`; float16 is computed in float32 (as TF). `shift` is
    accepted and unused, as in TF 2."""
    from . import reduce as _reduce
    x = convert_to_tensor(x)
    _check_axes("moments", x, axes)
    y = _math.cast(x, D.float32) if x.dtype == D.float16 else x
    mean = _reduce.reduce_mean(y, axes, keepdims=True)
    # No stop_gradient needed: d(variance)/d(mean) is identically zero at the mean.
    variance = _reduce.reduce_mean(_math.squared_difference(y, mean), axes,
                                   keepdims=bool(keepdims))
    if not keepdims:
        mean = _reduce.reduce_sum(mean, axes)  # drops the size-1 axes exactly (a squeeze)
    if x.dtype == D.float16:
        return _math.cast(mean, D.float16), _math.cast(variance, D.float16)
    return mean, variance


@tf_export("nn.batch_normalization")
def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) * scale / sqrt(variance + epsilon) + offset, composed as TF does."""
    x = convert_to_tensor(x)
    inv = _math.rsqrt(_math.add(variance, variance_epsilon))
    if scale is not None:
        inv = _math.multiply(inv, scale)
    shift = _math.negative(_math.multiply(mean, inv)) if offset is None else \
        _math.subtract(offset, _math.multiply(mean, inv))
    return _math.add(_math.multiply(x, _math.cast(inv, x.dtype)), _math.cast(shift, x.dtype))


@tf_export("math.l2_normalize", "nn.l2_normalize")
def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x ** 2, axis), epsilon))."""
    from . import reduce as _reduce
    if dim is not None:
        if axis is not None:
            raise ValueError("l2_normalize: cannot specify both 'axis' and 'dim'")
        axis = dim
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise TypeError(f"l2_normalize: x must be a floating point tensor (epsilon {epsilon} "
                        f"cannot be converted to {x.dtype.name})")
    _check_axes("l2_normalize", x, axis)
    square_sum = _reduce.reduce_sum(_math.square(x), axis, keepdims=True)
    return _math.multiply(x, _math.rsqrt(_math.maximum(square_sum, epsilon)))


def _check_axes(opname, x, axes):
    """Name the API in the error for an out-of-range axis (the reduction would name itself)."""
    rank = x.shape.rank
    if rank is None or axes is None or isinstance(axes, Tensor):
        return
    for a in ([axes] if _is_int(axes) else axes):
        if _is_int(a) and not -rank <= a < rank:
            raise dispatch.op_error(opname, f"Invalid reduction dimension {a} for input with "
                                    f"{rank} dimensions")


@tf_export("nn.dropout")
def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zero each element with probability `rate` and scale the rest by 1 / (1 - rate)."""
    from . import random as _random
    return _dropout("dropout", x, rate, noise_shape,
                    lambda shape, dtype: _random.uniform(shape, seed=seed, dtype=dtype))


@tf_export("nn.experimental.stateless_dropout")
def stateless_dropout(x, rate, seed, rng_alg=None, noise_shape=None, name=None):
    """dropout whose mask is a deterministic function of `seed` (stateless_uniform's)."""
    from . import random as _random
    alg = "auto_select" if rng_alg is None else rng_alg
    return _dropout("stateless_dropout", x, rate, noise_shape,
                    lambda shape, dtype: _random.stateless_uniform(shape, seed, dtype=dtype,
                                                                   alg=alg))


@tf_export("nn.experimental.general_dropout")
def general_dropout(x, rate, uniform_sampler, noise_shape=None, name=None):
    """dropout with the mask's uniform samples from `uniform_sampler(shape, dtype)`."""
    return _dropout("general_dropout", x, rate, noise_shape, uniform_sampler)


def _dropout(opname, x, rate, noise_shape, uniform):
    """TF's dropout: the kept elements scaled by 1 / (1 - rate), where `uniform` samples of
    the noise shape are >= rate; a rate of 0 returns x and draws nothing."""
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"{opname}: `x.dtype` must be a floating point tensor as `x` will be "
                         f"scaled. Received: x_dtype={x.dtype}")
    if isinstance(rate, numbers.Real):
        if not 0 <= rate < 1:
            raise ValueError(f"{opname}: `rate` must be a scalar tensor or a float in the "
                             f"range [0, 1). Received: rate={rate}")
        if rate == 0:
            return x
        kept = _math.multiply(x, 1 / (1 - float(rate)))
        rate = float(rate)
    elif isinstance(rate, Tensor) or hasattr(rate, "_as_tensor"):
        rate = convert_to_tensor(rate)
        if rate.shape.rank != 0:
            raise ValueError(f"{opname}: `rate` must be a scalar tensor, got shape "
                             f"{rate.shape}")
        if rate.dtype != x.dtype:
            raise ValueError(f"{opname}: `x.dtype` must be compatible with `rate.dtype`. "
                             f"Received: x.dtype={x.dtype} and rate.dtype={rate.dtype}")
        kept = _math.divide(x, _math.subtract(1, rate))
    else:
        raise ValueError(f"{opname}: `rate` must be a scalar or scalar tensor. "
                         f"Received: rate={rate!r}")
    keep = _math.greater_equal(uniform(_noise_shape(opname, x, noise_shape), x.dtype), rate)
    return _math.where(keep, kept, 0)


def _noise_shape(opname, x, noise_shape):
    """The random mask's shape: x's, or `noise_shape` with its None entries taken from x
    (TF's rule). Entries may be tensors (Keras passes `tf.shape(x)[i]`); a dim unknown
    while tracing is read from x at run time."""
    from . import array as _array
    dims = _dims(x)
    if noise_shape is None:
        if dims is None:
            return _array.shape(x)
        return [d if d is not None else _array.shape(x)[i] for i, d in enumerate(dims)]
    if isinstance(noise_shape, Tensor) and noise_shape._value is not None:
        noise_shape = noise_shape.numpy().tolist()
    if isinstance(noise_shape, Tensor):
        return noise_shape
    shape = [d if d is None or isinstance(d, Tensor) else int(d) for d in noise_shape]
    if dims is not None and len(dims) == len(shape):
        shape = [(d if d is not None else _array.shape(x)[i]) if s is None else s
                 for i, (s, d) in enumerate(zip(shape, dims))]
    if any(s is None for s in shape):
        raise ValueError(f"{opname}: noise_shape {noise_shape} has unknown dimensions")
    if dims is not None:
        for n, d in zip(reversed(shape), reversed(dims)):
            if isinstance(n, int) and n != 1 and d is not None and d != 1 and n != d:
                raise dispatch.op_error(opname, f"noise_shape {shape} is not broadcastable "
                                        f"to the shape of x {list(dims)}")
    return shape


# --- window arguments ---------------------------------------------------------------------
def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _window_arg(value, layout, what, opname):
    """TF's int-or-list rule for strides/dilations/ksize, as one int per spatial dim."""
    n = len(layout) - 2
    vals = [value] if _is_int(value) else value
    if isinstance(vals, Tensor):
        vals = vals.numpy().tolist()
    if not isinstance(vals, (list, tuple)):
        raise TypeError(f"{opname}: Expected int or list of ints for argument '{what}', "
                        f"not {value!r}.")
    for v in vals:
        if not _is_int(v):
            raise TypeError(f"{opname}: Expected int for argument '{what}' not {v!r}.")
    vals = [int(v) for v in vals]
    if len(vals) == 1:
        return tuple(vals) * n
    if len(vals) == n:
        return tuple(vals)
    if len(vals) == n + 2:
        sp, ch = spatial_axes(layout, n + 2)
        if vals[0] != 1 or vals[ch] != 1:
            raise errors.UnimplementedError(
                None, None, f"{opname}: Current implementation does not yet support {what} in "
                f"the batch and depth dimensions. Received: {what}={vals}")
        return tuple(vals[a] for a in sp)
    sizes = ", ".join(str(s) for s in sorted({1, n, n + 2}))
    raise ValueError(f"{opname}: {what} should be of length {sizes}. Received: {what}={vals} "
                     f"of length {len(vals)}")


def _padding_arg(padding, layout, opname, explicit_ok=True):
    """(padding string, flattened spatial explicit pads)."""
    if isinstance(padding, str):
        if padding == "EXPLICIT":
            raise ValueError(f"{opname}: 'EXPLICIT' is not a valid value for `padding`. To use "
                             f"explicit padding, `padding` must be a list.")
        return padding, ()  # the op's inference rejects unknown strings, as TF's op does
    if not explicit_ok or not isinstance(padding, (list, tuple)):
        raise TypeError(f"{opname}: Expected string for argument 'padding' not {padding!r}.")
    if len(padding) != len(layout):
        raise ValueError(f"{opname}: When padding is a list, it must be of size {len(layout)}. "
                         f"Received: padding={padding} of size {len(padding)}")
    pairs = []
    for i, p in enumerate(padding):
        if not isinstance(p, (list, tuple)) or len(p) != 2 or not all(_is_int(v) for v in p):
            raise ValueError(f"{opname}: When `padding` is a list, each element of `padding` "
                             f"must be a list/tuple of two ints. Received: padding={padding} "
                             f"with element at index {i} = {p!r}")
        pairs.append((int(p[0]), int(p[1])))
    sp, ch = spatial_axes(layout, len(layout))
    if pairs[0] != (0, 0) or pairs[ch] != (0, 0):
        raise dispatch.op_error(opname, f"Nonzero explicit padding in the batch or depth "
                                f"dimensions is not supported. Received: padding={padding}")
    return "EXPLICIT", tuple(v for a in sp for v in pairs[a])


def _conv_attrs(opname, strides, padding, data_format, dilations):
    fmt = "NHWC" if data_format is None else data_format
    layout = fmt if fmt in CONV_FORMATS else "NHWC"  # a bad format is the op's error to raise
    pad, explicit = _padding_arg(padding, layout, opname)
    return {"strides": _window_arg(strides, layout, "strides", opname), "padding": pad,
            "explicit_paddings": explicit, "data_format": fmt,
            "dilations": _window_arg(1 if dilations is None else dilations, layout,
                                     "dilations", opname)}


# --- bias, convolution --------------------------------------------------------------------
@tf_export("nn.bias_add")
def bias_add(value, bias, data_format=None, name=None):
    """value + bias, bias 1-D along the channel axis: last for None or `N...C`, axis 1 for
    `NC...`."""
    if data_format is None:
        fmt = "NHWC"
    elif isinstance(data_format, str) and data_format.startswith("NC"):
        fmt = "NCHW"
    elif isinstance(data_format, str) and data_format.startswith("N") and \
            data_format.endswith("C"):
        fmt = "NHWC"
    else:
        raise ValueError(f"bias_add: `data_format` must be of the form `N...C` or `NC...`. "
                         f"Received: data_format={data_format}")
    value, bias = convert_pair(value, bias)
    return apply("bias_add", (value, bias), {"data_format": fmt})


@tf_export("nn.conv2d")
def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None,  # noqa: A002
           name=None):
    """2-D cross-correlation of `input` [batch..., H, W, C] (or [batch..., C, H, W] for
    "NCHW") with `filters` [kh, kw, C / groups, out_channels]."""
    x, f = convert_pair(input, filters)
    return apply("conv2d", (x, f), _conv_attrs("conv2d", strides, padding, data_format,
                                               dilations))


@tf_export("nn.depthwise_conv2d")
def depthwise_conv2d(input, filter, strides, padding, data_format=None,  # noqa: A002
                     dilations=None, name=None):
    """Each input channel convolved with its own `channel_multiplier` filters
    ([kh, kw, C, multiplier]); output channel c * multiplier + m."""
    opname = "depthwise_conv2d"
    x, f = convert_pair(input, filter)
    attrs = _conv_attrs(opname, strides, padding, data_format, dilations)
    if max(attrs["dilations"]) > 1 and max(attrs["strides"]) > 1:
        raise ValueError(f"{opname}: strides must be 1 when the dilation rate is greater than "
                         f"1. Received: strides={strides} and dilations={dilations}")
    return apply(opname, (x, f), attrs)


@tf_export("nn.conv2d_transpose")
def conv2d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NHWC", dilations=None, name=None):
    """The transpose (input gradient) of conv2d: `filters` are [kh, kw, out_channels,
    in_channels] and the result has the static `output_shape`."""
    opname = "conv2d_transpose"
    x, f = convert_pair(input, filters)
    attrs = _conv_attrs(opname, strides, padding, data_format, dilations)
    shape = output_shape.numpy().tolist() if isinstance(output_shape, Tensor) else output_shape
    if not isinstance(shape, (list, tuple)) or not all(_is_int(d) for d in shape):
        raise TypeError(f"{opname}: output_shape must be a static list of ints, got "
                        f"{output_shape!r}")
    shape = [int(d) for d in shape]
    if len(shape) == 2:  # spatial sizes only: batch and channels follow input and filters
        xd, fd = _dims(x), _dims(f)
        sp, ch = spatial_axes(attrs["data_format"] if attrs["data_format"] in CONV_FORMATS
                              else "NHWC", 4)
        full = [xd[0] if xd else None, 0, 0, 0]
        full[ch] = fd[2] if fd else None
        for a, s in zip(sp, shape):
            full[a] = s
        shape = full
    elif len(shape) != 4:
        raise dispatch.op_error(opname, f"output_shape must contain 4 values or 2 values, but "
                                f"got {len(shape)}: {shape}")
    attrs = {"output_shape": tuple(shape), **attrs}
    return apply(opname, (x, f), attrs)


# --- pooling ------------------------------------------------------------------------------
_DEFAULT_POOL_FORMAT = {1: "NWC", 2: "NHWC", 3: "NDHWC"}


def _pool(opname, api, input, ksize, strides, padding, data_format, n):  # noqa: A002
    x = convert_to_tensor(input)
    if n is None:  # max_pool / avg_pool: the rank decides
        dims = _dims(x)
        if data_format is not None:
            n = len(data_format) - 2
        elif dims is None or not 3 <= len(dims) <= 5:
            raise ValueError(f"{api}: `input` must have a static rank of 3, 4 or 5 (or pass "
                             f"data_format). Received: input.shape={x.shape}")
        else:
            n = len(dims) - 2
    fmt = _DEFAULT_POOL_FORMAT.get(n, "NHWC") if data_format is None else data_format
    layout = fmt if fmt in POOL_FORMATS else _DEFAULT_POOL_FORMAT.get(n, "NHWC")
    pad, explicit = _padding_arg(padding, layout, api, explicit_ok=opname == "max_pool")
    return apply(opname, (x,), {"ksize": _window_arg(ksize, layout, "ksize", api),
                                "strides": _window_arg(strides, layout, "strides", api),
                                "padding": pad, "explicit_paddings": explicit,
                                "data_format": fmt})


@tf_export("nn.max_pool")
def max_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """Max pooling over 1, 2 or 3 spatial dims (from the input's rank)."""
    return _pool("max_pool", "max_pool", input, ksize, strides, padding, data_format, None)


@tf_export("nn.max_pool1d")
def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    return _pool("max_pool", "max_pool1d", input, ksize, strides, padding, data_format, 1)


@tf_export("nn.max_pool2d")
@runs("max_pool")
def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Max over each window; padding never wins and NaN is skipped (TF's CPU behavior)."""
    return _pool("max_pool", "max_pool2d", input, ksize, strides, padding, data_format, 2)


@tf_export("nn.max_pool3d")
def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    return _pool("max_pool", "max_pool3d", input, ksize, strides, padding, data_format, 3)


@tf_export("nn.avg_pool")
def avg_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """Average pooling over 1, 2 or 3 spatial dims (from the input's rank)."""
    return _pool("avg_pool", "avg_pool", input, ksize, strides, padding, data_format, None)


@tf_export("nn.avg_pool1d")
def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    return _pool("avg_pool", "avg_pool1d", input, ksize, strides, padding, data_format, 1)


@tf_export("nn.avg_pool2d")
@runs("avg_pool")
def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Mean over each window; with SAME padding only elements inside the input count."""
    return _pool("avg_pool", "avg_pool2d", input, ksize, strides, padding, data_format, 2)


@tf_export("nn.avg_pool3d")
def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    return _pool("avg_pool", "avg_pool3d", input, ksize, strides, padding, data_format, 3)


# --- embedding_lookup: a gather, over concatenated shards ----------------------------------
def _div_layout(sizes) -> bool:
    """Whether shard sizes are TF's "div" partition of their total: the first shards one row
    longer than the rest. Only then is the lookup a gather from the concatenation."""
    total, n = sum(sizes), len(sizes)
    return list(sizes) == [total // n + (i < total % n) for i in range(n)]


@tf_export("nn.embedding_lookup")
def embedding_lookup(params, ids, max_norm=None, name=None):
    """Rows of `params` (one tensor, or a list of shards split TF's "div" way) at `ids`;
    with `max_norm`, each looked-up embedding is clipped to that L2 norm."""
    from .array import concat, gather
    from .math import clip_by_norm
    shards = [convert_to_tensor(p) for p in params] if isinstance(params, (list, tuple)) \
        else [convert_to_tensor(params)]
    if not shards:
        raise ValueError("embedding_lookup: need at least one param tensor")
    if len(shards) > 1:
        sizes = [p.shape.as_list()[0] if p.shape.rank else None for p in shards]
        if None in sizes or not _div_layout(sizes):
            raise ValueError(f"embedding_lookup: shards of {sizes} rows are not a 'div' "
                             f"partition of their total; flowjit needs static shard sizes in "
                             f"TF's div layout")
    table = shards[0] if len(shards) == 1 else concat(shards, axis=0)
    ids = convert_to_tensor(ids)
    out = gather(table, ids)
    if max_norm is None:
        return out
    if out.shape.rank is None or ids.shape.rank is None:
        raise ValueError("embedding_lookup: max_norm needs ids and params of known rank")
    return clip_by_norm(out, max_norm, axes=list(range(ids.shape.rank, out.shape.rank)))
