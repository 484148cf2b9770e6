"""TF's space-to-batch rearrangements, composed as TF's XLA kernels are (pad, reshape,
transpose, slice), so every mode and the gradient come from those ops: `space_to_batch_nd`
(also `space_to_batch`, `nn.space_to_batch`), `batch_to_space`,
`required_space_to_batch_paddings` and `nn.with_space_to_batch` (a window op made
atrous). Block shapes, paddings and crops must be known when the op is built (Python
values, constants or eager tensors), as XLA requires."""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from .program import get_static_value


def _known(value, opname, what):
    known = get_static_value(convert_to_tensor(value))
    if known is None:
        raise NotImplementedError(f"{opname}: `{what}` must be known when the op is built "
                                  f"(a Python value, a constant or an eager tensor)")
    return np.asarray(known, np.int64)


def _invalid(opname, message):
    return errors.InvalidArgumentError(None, opname, message)


def _checked_blocks(x, block_shape, pairs, opname, what):
    """(block sizes, [M, 2] pairs) after TF's checks against the rank of `x`."""
    blocks = _known(block_shape, opname, "block_shape").reshape(-1)
    pairs = _known(pairs, opname, what)
    m = len(blocks)
    if pairs.shape != (m, 2):
        raise _invalid(opname, f"{what} should have shape [{m}, 2] instead of "
                               f"[{','.join(map(str, pairs.shape))}]")
    if x.shape.rank < m + 1:
        raise _invalid(opname, f"input rank should be >= {m + 1} instead of {x.shape.rank}")
    for i, b in enumerate(blocks):
        if b < 1:
            raise _invalid(opname, f"All values in block_shape must be positive, got value, "
                                   f"{b} at index {i}.")
    if (pairs < 0).any():
        raise _invalid(opname, f"{what.capitalize()} must be non-negative")
    return [int(b) for b in blocks], pairs.tolist()


@tf_export("space_to_batch_nd", "space_to_batch", "nn.space_to_batch")
def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002 (TF's name)
    """Zero-pads the M spatial dims after the batch dim, then moves each block_shape tile of
    them into the batch dim: [B, p1, ..., pM, ...] -> [B * prod(b), p1 / b1, ..., ...]."""
    x = convert_to_tensor(input)
    opname = "SpaceToBatchND"
    blocks, pads = _checked_blocks(x, block_shape, paddings, opname, "paddings")
    m, shape = len(blocks), x.shape.as_list()
    padded = [shape[1 + i] + lo + hi for i, (lo, hi) in enumerate(pads)]
    for i, (p, b) in enumerate(zip(padded, blocks)):
        if p % b:
            raise _invalid(opname, f"padded_shape[{i}]={p} is not divisible by "
                                   f"block_shape[{i}]={b}")
    rest = shape[1 + m:]
    x = A.pad(x, [[0, 0]] + pads + [[0, 0]] * len(rest))
    split = [shape[0]]
    for p, b in zip(padded, blocks):
        split += [p // b, b]
    x = A.reshape(x, split + rest)
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + \
        list(range(1 + 2 * m, 1 + 2 * m + len(rest)))
    return A.reshape(A.transpose(x, perm),
                     [shape[0] * int(np.prod(blocks))] + [p // b for p, b in
                                                          zip(padded, blocks)] + rest)


@tf_export("batch_to_space")
def batch_to_space(input, block_shape, crops, name=None):  # noqa: A002 (TF's name)
    """The inverse of space_to_batch_nd: batch tiles back into the M spatial dims, then
    `crops` cut from their starts and ends."""
    x = convert_to_tensor(input)
    opname = "BatchToSpaceND"
    blocks, crops = _checked_blocks(x, block_shape, crops, opname, "crops")
    m, shape = len(blocks), x.shape.as_list()
    count = int(np.prod(blocks))
    if shape[0] % count:
        raise _invalid(opname, f"Input batch dimension ({shape[0]}) is not divisible by "
                               f"product of block sizes ({count})")
    batch, spatial, rest = shape[0] // count, shape[1:1 + m], shape[1 + m:]
    x = A.reshape(x, blocks + [batch] + spatial + rest)
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(1 + 2 * m, 1 + 2 * m + len(rest)))
    full = [s * b for s, b in zip(spatial, blocks)]
    for i, ((lo, hi), f) in enumerate(zip(crops, full)):
        if f - lo - hi < 0:
            raise _invalid(opname, f"cropped_shape[{i}]={f - lo - hi} must be "
                                   f"non-negative")
    x = A.reshape(A.transpose(x, perm), [batch] + full + rest)
    begin = [0] + [lo for lo, _ in crops] + [0] * len(rest)
    size = [batch] + [f - lo - hi for (lo, hi), f in zip(crops, full)] + rest
    return A.slice(x, begin, size)


@tf_export("required_space_to_batch_paddings")
def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None,
                                     name=None):
    """(paddings, crops) that make `input_shape` plus `base_paddings` divisible by
    `block_shape`: the extra padding goes at the end, and crops undo only that extra."""
    shape = _known(input_shape, "required_space_to_batch_paddings", "input_shape")
    blocks = _known(block_shape, "required_space_to_batch_paddings", "block_shape")
    if shape.shape != blocks.shape:
        raise ValueError(f"Shapes {tuple(shape.shape)} and {list(blocks.shape)} are "
                         f"incompatible")
    base = np.zeros([len(blocks), 2], np.int64) if base_paddings is None else \
        _known(base_paddings, "required_space_to_batch_paddings", "base_paddings")
    extra = (-(shape + base[:, 0] + base[:, 1])) % blocks
    paddings = np.stack([base[:, 0], base[:, 1] + extra], axis=1)
    crops = np.stack([np.zeros_like(extra), extra], axis=1)
    dtype = convert_to_tensor(input_shape).dtype
    return (convert_to_tensor(paddings.astype(dtype.np), dtype=dtype),
            convert_to_tensor(crops.astype(dtype.np), dtype=dtype))


def _base_paddings(padding, filter_shape, rates, data_format):
    """[M, 2] paddings of the dilated window before the blocks' extra: SAME pads the dilated
    filter's reach around each dim (the odd one at the end), VALID none, a list its pairs."""
    if padding == "EXPLICIT":
        raise ValueError("'EXPLICIT' is not a valid value for `padding`. To use explicit "
                         "padding, `padding` must be a list.")
    if isinstance(padding, (list, tuple)):
        if len(padding) != 4 or any(not isinstance(p, (list, tuple)) or len(p) != 2
                                    for p in padding):
            raise ValueError(f"When padding is a list, it must be of size 4 pairs. "
                             f"Received: padding={padding}")
        pairs = np.asarray(padding, np.int64)
        return pairs[2:] if data_format and data_format.startswith("NC") else pairs[1:-1]
    if padding == "VALID":
        return np.zeros([len(rates), 2], np.int64)
    if padding != "SAME":
        raise ValueError(f"`padding` must be one of 'SAME' or 'VALID'. Received: "
                         f"padding={padding}")
    if filter_shape is None:
        raise ValueError(f"`filter_shape` must be specified for `padding='SAME'`. Received: "
                         f"filter_shape={filter_shape} and padding={padding}")
    extra = (_known(filter_shape, "with_space_to_batch", "filter_shape")[:len(rates)] - 1) \
        * rates
    return np.stack([extra // 2, extra - extra // 2], axis=1)


@tf_export("nn.with_space_to_batch")
def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None,  # noqa: A002
                        spatial_dims=None, data_format=None):
    """`op(input, M, padding)` on the space-to-batch form of `input`: the dilation rates
    become blocks, so a window op over the blocks' batch entries is its atrous form; the
    result goes back through batch_to_space with the blocks' extra padding cropped."""
    x = convert_to_tensor(input)
    rates = _known(dilation_rate, "with_space_to_batch", "dilation_rate")
    if rates.ndim != 1:
        raise ValueError(f"`dilation_rate.shape.rank` must be 1. Received: "
                         f"dilation_rate={rates} of rank {rates.ndim}")
    m = len(rates)
    channels_first = data_format is not None and data_format.startswith("NC")
    first = 2 if channels_first else 1
    dims = list(range(first, first + m)) if spatial_dims is None else list(spatial_dims)
    if sorted(set(int(d) for d in dims)) != dims or any(d < 1 for d in dims):
        raise ValueError(f"`spatial_dims` must be a monotonically increasing sequence of "
                         f"positive integers. Received: spatial_dims={dims}")
    rank = dims[-1] + (0 if channels_first else 1)
    if x.shape.rank is not None and x.shape.rank < rank:
        raise ValueError(f"`input.shape.rank` must be at least {rank}. Received: "
                         f"input.shape={x.shape} with rank {x.shape.rank}")
    if (rates < 1).any():
        raise ValueError(f"`dilation_rate` must be positive. Received: dilation_rate={rates}")
    if (rates == 1).all():
        return op(x, m, padding)
    base = _base_paddings(padding, filter_shape, rates, data_format)
    shape = x.shape.as_list()
    if any(shape[d] is None for d in dims):
        raise NotImplementedError("with_space_to_batch: the spatial dims of `input` must be "
                                  "known when the op is built, as XLA requires")
    spatial = np.asarray([shape[d] for d in dims], np.int64)
    extra = (-(spatial + base[:, 0] + base[:, 1])) % rates
    blocks = np.ones(dims[-1], np.int64)
    paddings = np.zeros([dims[-1], 2], np.int64)
    crops = np.zeros([dims[-1], 2], np.int64)
    for i, d in enumerate(dims):
        blocks[d - 1] = rates[i]
        paddings[d - 1] = base[i, 0], base[i, 1] + extra[i]
        crops[d - 1, 1] = extra[i]
    result = op(space_to_batch_nd(x, blocks, paddings), m, "VALID")
    return batch_to_space(result, blocks, crops)
