"""`tf.nn` functions that TF composes from other ops: crelu, Poisson and weighted
cross-entropy losses, the moments family (sufficient statistics, normalize_moments,
weighted_moments), the distribution-aware loss scaling, space/depth rearrangements, conv1d and
zero_fraction."""
from __future__ import annotations

import math

from ...ir import dtypes as D
from ...ir.errors import InvalidArgumentError
from ..eager.dispatch import convert_pair, convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from . import reduce as R
from .linalg import _index
from .nn import batch_normalization, conv2d, relu


def _axes(axes):
    return [axes] if isinstance(axes, int) else list(axes)


def _divide_no_nan(x, y):
    """x / y, 0 where y is 0 (the safe denominator keeps the unused branch's gradient
    finite)."""
    zero = M.equal(y, A.zeros_like(y))
    return M.where(zero, A.zeros_like(x * y), x / M.where(zero, A.ones_like(y), y))


@tf_export("nn.crelu")
def crelu(features, axis=-1, name=None):
    """concat([relu(x), relu(-x)], axis): the positive and negative parts side by side."""
    x = convert_to_tensor(features)
    return A.concat([relu(x), relu(M.negative(x))], axis)


@tf_export("nn.log_poisson_loss")
def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """exp(log_input) - log_input * targets, plus Stirling's approximation of log(targets!)
    for targets > 1 with `compute_full_loss`."""
    log_input, targets = convert_pair(log_input, targets)
    if targets.shape.rank is not None and log_input.shape.rank is not None \
            and targets.shape.as_list() != log_input.shape.as_list():
        raise ValueError(f"`log_input` and `targets` must have the same shape, received "
                         f"({log_input.shape} vs {targets.shape}).")
    result = M.exp(log_input) - log_input * targets
    if compute_full_loss:
        stirling = (targets * M.log(targets) - targets
                    + 0.5 * M.log(M.cast(2 * math.pi, targets.dtype) * targets))
        small = M.logical_and(M.greater_equal(targets, A.zeros_like(targets)),
                              M.less_equal(targets, A.ones_like(targets)))
        result = result + M.where(small, A.zeros_like(targets), stirling)
    return result


@tf_export("nn.weighted_cross_entropy_with_logits")
def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """Sigmoid cross-entropy with the positive term weighted by `pos_weight`, in TF's stable
    form (1 - z) x + (1 + (q - 1) z) (log1p(exp(-|x|)) + max(-x, 0))."""
    logits, labels = convert_pair(logits, labels)
    if labels.shape.rank is not None and logits.shape.rank is not None \
            and labels.shape.as_list() != logits.shape.as_list():
        raise ValueError(f"logits and labels must have the same shape, received "
                         f"({logits.shape} vs {labels.shape}).")
    log_weight = 1 + (M.cast(pos_weight, logits.dtype) - 1) * labels
    return ((1 - labels) * logits
            + log_weight * (M.log1p(M.exp(M.negative(M.abs(logits))))
                            + relu(M.negative(logits))))


@tf_export("nn.sufficient_statistics")
def sufficient_statistics(x, axes, shift=None, keepdims=None, name=None, keep_dims=None):
    """(count, sum of x - shift, sum of (x - shift)^2, shift) over `axes`; the count is a
    tensor of x's dtype."""
    x = convert_to_tensor(x)
    keep = bool(keepdims if keepdims is not None else keep_dims)
    axes = _axes(axes)
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims is not None and all(dims[a] is not None for a in axes):
        count = A.constant(math.prod(dims[a] for a in axes), dtype=x.dtype)
    else:
        count = M.cast(R.reduce_prod(A.gather(A.shape(x), axes)), x.dtype)
    if shift is not None:
        shift = convert_to_tensor(shift, dtype=x.dtype)
        centred = x - shift
    else:
        centred = x
    return (count, R.reduce_sum(centred, axes, keepdims=keep),
            R.reduce_sum(M.square(centred), axes, keepdims=keep), shift)


@tf_export("nn.normalize_moments")
def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """(mean, variance) from sufficient statistics."""
    counts, mean_ss = convert_pair(counts, mean_ss)
    divisor = M.reciprocal(counts)
    shifted_mean = mean_ss * divisor
    mean = shifted_mean if shift is None else shifted_mean + shift
    variance = convert_to_tensor(variance_ss, dtype=counts.dtype) * divisor \
        - M.square(shifted_mean)
    return mean, variance


@tf_export("nn.weighted_moments")
def weighted_moments(x, axes, frequency_weights, keepdims=None, name=None, keep_dims=None):
    """The frequency-weighted mean and variance over `axes` (0 where the weights sum to 0);
    float16 computes in float32."""
    x = convert_to_tensor(x)
    keep = bool(keepdims if keepdims is not None else keep_dims)
    axes = _axes(axes)
    wide = D.float32 if x.dtype is D.float16 else x.dtype
    xw = M.cast(x, wide)
    weights = M.cast(convert_to_tensor(frequency_weights, dtype=x.dtype), wide)
    weighted_sum = R.reduce_sum(weights * xw, axes, keepdims=True)
    weight_sum = R.reduce_sum(weights + A.zeros_like(xw), axes, keepdims=True)
    mean = _divide_no_nan(weighted_sum, weight_sum)
    variance = _divide_no_nan(
        R.reduce_sum(weights * M.squared_difference(xw, mean), axes, keepdims=True),
        weight_sum)
    if not keep:
        mean, variance = A.squeeze(mean, axes), A.squeeze(variance, axes)
    return M.cast(mean, x.dtype), M.cast(variance, x.dtype)


def _replicas(opname):
    from ..distribute.distribute import get_replica_context
    ctx = get_replica_context()
    if ctx is None:
        raise RuntimeError(f"You are calling `{opname}` in cross replica context, while it "
                           f"was expected to be called in replica context.")
    return ctx.num_replicas_in_sync


@tf_export("nn.compute_average_loss")
def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """sum(per_example_loss * sample_weight) / global batch size (the local batch times the
    replicas in sync unless given; 0 for an empty batch)."""
    loss = convert_to_tensor(per_example_loss)
    if not loss.dtype.is_floating:
        raise TypeError(f"Invalid value passed for `per_example_loss`. Expected a tensor "
                        f"with a floating point dtype. Received: dtype={loss.dtype.name}")
    replicas = _replicas("compute_average_loss")
    if sample_weight is not None:
        loss = loss * convert_to_tensor(sample_weight, dtype=loss.dtype)
    if global_batch_size is None:
        rows = loss.shape.as_list()[0] if loss.shape.rank else None
        batch = A.shape(loss)[0] if rows is None else rows
        global_batch_size = M.cast(batch, loss.dtype) * replicas if loss.shape.rank else \
            M.cast(replicas, loss.dtype)
    else:
        size = _index(global_batch_size.numpy() if hasattr(global_batch_size, "numpy")
                      else global_batch_size, "global_batch_size")
        if size <= 0:
            raise ValueError(f"global_batch_size must be positive. Got {size}.")
        global_batch_size = M.cast(size, loss.dtype)
    return _divide_no_nan(R.reduce_sum(loss), M.cast(global_batch_size, loss.dtype))


@tf_export("nn.scale_regularization_loss")
def scale_regularization_loss(regularization_loss):
    """The (summed) regularization loss divided by the replicas in sync."""
    if isinstance(regularization_loss, (list, tuple)):
        regularization_loss = M.add_n(list(regularization_loss))
    loss = convert_to_tensor(regularization_loss)
    return loss / M.cast(_replicas("scale_regularization_loss"), loss.dtype)


def _nhwc(x, opname, data_format):
    if data_format != "NHWC":
        raise NotImplementedError(f"{opname}: flowjit supports data_format='NHWC', got "
                                  f"{data_format!r}")
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims is None or len(dims) != 4:
        raise InvalidArgumentError(None, opname, f"input rank should be: 4 instead of: "
                                                 f"{len(dims) if dims else 'unknown'}")
    if any(d is None for d in dims[1:]):
        raise ValueError(f"{opname}: flowjit needs height, width and depth known while "
                         f"tracing, got shape {x.shape}")
    return dims


@tf_export("nn.space_to_depth")
def space_to_depth(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """Blocks of block_size x block_size pixels moved into the depth: [n, h/b, w/b, b*b*c]."""
    x = convert_to_tensor(input)
    n, h, w, c = _nhwc(x, "space_to_depth", data_format)
    b = _index(block_size, "block_size")
    if b < 2:
        raise ValueError(f"Value for attr 'block_size' of {b} must be at least minimum 2")
    if h % b or w % b:
        raise InvalidArgumentError(None, "space_to_depth", f"Image width {w} and height {h} "
                                                           f"should be divisible by "
                                                           f"block_size: {b}")
    blocks = A.reshape(x, [-1, h // b, b, w // b, b, c])
    return A.reshape(A.transpose(blocks, [0, 1, 3, 2, 4, 5]), [-1, h // b, w // b, b * b * c])


@tf_export("nn.depth_to_space")
def depth_to_space(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """The inverse of space_to_depth: [n, h*b, w*b, c/(b*b)]."""
    x = convert_to_tensor(input)
    n, h, w, c = _nhwc(x, "depth_to_space", data_format)
    b = _index(block_size, "block_size")
    if b < 2:
        raise ValueError(f"Value for attr 'block_size' of {b} must be at least minimum 2")
    if c % (b * b):
        raise InvalidArgumentError(None, "depth_to_space", f"Input depth dimension {c} "
                                                           f"should be divisible by: {b * b}")
    blocks = A.reshape(x, [-1, h, w, b, b, c // (b * b)])
    return A.reshape(A.transpose(blocks, [0, 1, 3, 2, 4, 5]), [-1, h * b, w * b, c // (b * b)])


@tf_export("nn.conv1d")
def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None,  # noqa: A002
           name=None):
    """1-D cross-correlation of [batch, width, in] with [k, in, out] filters: conv2d over a
    unit height, as TF."""
    if data_format not in ("NWC", "NCW"):
        raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: "
                         f"data_format={data_format}")
    x, f = convert_pair(input, filters)
    spatial = -2 if data_format == "NWC" else -1
    stride = stride if isinstance(stride, int) else list(stride)[spatial]
    dilation = 1 if dilations is None else (
        dilations if isinstance(dilations, int) else list(dilations)[spatial])
    if data_format == "NWC":
        out = conv2d(A.expand_dims(x, -3), A.expand_dims(f, 0), [1, 1, stride, 1], padding,
                     data_format="NHWC", dilations=[1, 1, dilation, 1])
        return A.squeeze(out, -3)
    out = conv2d(A.expand_dims(x, -2), A.expand_dims(f, 0), [1, 1, 1, stride], padding,
                 data_format="NCHW", dilations=[1, 1, 1, dilation])
    return A.squeeze(out, -2)


@tf_export("nn.in_top_k", "math.in_top_k")
def in_top_k(targets, predictions, k, name=None):
    """Per row: whether fewer than k predictions exceed the target class's (ties count in
    its favour); False where the target is out of range or any prediction of the row is not
    finite (TF's kernel cannot say then)."""
    p = convert_to_tensor(predictions)
    t = convert_to_tensor(targets)
    if p.shape.rank is not None and p.shape.rank != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {p.shape.rank}")
    if t.shape.rank is not None and t.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {t.shape.rank}")
    classes = A.shape(p, out_type=t.dtype)[1]
    in_range = M.logical_and(M.greater_equal(t, A.zeros_like(t)), M.less(t, classes))
    # The target's prediction, picked by a select (never a product, so NaN stays local).
    picked = M.equal(A.expand_dims(t, 1), A.range(classes, dtype=t.dtype))
    target = R.reduce_sum(M.where(picked, p, A.zeros_like(p)), 1)
    above = R.reduce_sum(M.cast(M.greater(p, A.expand_dims(target, 1)), D.int32), 1)
    count = M.cast(k, D.int32)
    finite = R.reduce_all(M.is_finite(p), 1)
    return M.logical_and(M.logical_and(in_range, finite), M.less(above, count))


@tf_export("nn.batch_norm_with_global_normalization")
def batch_norm_with_global_normalization(input, mean, variance, beta, gamma,  # noqa: A002
                                         variance_epsilon, scale_after_normalization,
                                         name=None):
    """batch_normalization with `gamma` applied only when scale_after_normalization."""
    return batch_normalization(input, mean, variance, beta,
                               gamma if scale_after_normalization else None, variance_epsilon)


@tf_export("nn.local_response_normalization", "nn.lrn")
def local_response_normalization(input, depth_radius=5, bias=1, alpha=1, beta=0.5,  # noqa: A002
                                 name=None):
    """input / (bias + alpha * sqr_sum) ** beta, sqr_sum the sum of squares over the
    2 * depth_radius + 1 channels centered on each one (4-D input, channels last)."""
    x = convert_to_tensor(input)
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims is None or len(dims) != 4:
        raise InvalidArgumentError(None, "local_response_normalization",
                                   f"in must be 4-dimensional, got shape {x.shape}")
    channels, r = dims[3], int(depth_radius)
    if channels is None:
        raise ValueError(f"local_response_normalization: flowjit needs the channels known "
                         f"while tracing, got shape {x.shape}")
    squares = A.pad(M.square(x), [[0, 0], [0, 0], [0, 0], [r, r]])
    window = M.add_n([squares[..., i:i + channels] for i in range(2 * r + 1)])
    return x * M.pow(M.cast(bias, x.dtype) + M.cast(alpha, x.dtype) * window,
                     M.cast(-beta, x.dtype))


@tf_export("nn.zero_fraction")
def zero_fraction(value, name=None):
    """The fraction of `value`'s elements equal to zero, as a float32 scalar (NaN when empty)."""
    x = convert_to_tensor(value)
    zero = A.zeros([], x.dtype)
    total = A.size(x, out_type=D.int64)
    nonzero = R.reduce_sum(M.cast(M.not_equal(x, zero), D.int64))
    return M.truediv(M.cast(total - nonzero, D.float32), M.cast(total, D.float32))
