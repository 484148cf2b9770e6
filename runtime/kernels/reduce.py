"""NumPy kernels for reductions, arg-reductions and scans.

float16/bfloat16 accumulate in float32 (as XLA does; NumPy would accumulate in the narrow type
and lose digits). Integer sums and products wrap in their own type, as TF's do.
"""
from __future__ import annotations

import numpy as np

from ...ir.dtypes import is_half_np
from ...ir.errors import InvalidArgumentError
from . import kernel



def _np_axis(axis, ndim):
    """The reduction's axis attribute as a NumPy axis tuple (None means all)."""
    if axis is None:
        return None
    return tuple(a % ndim for a in axis) if ndim else ()


def _acc_dtype(dt):
    return np.dtype(np.float32) if is_half_np(dt) else dt


def _extreme(dt, highest: bool):
    """The identity of max (lowest value) or min (highest value): -inf/+inf for floats."""
    if dt.kind == "f" or is_half_np(dt):
        return np.inf if highest else -np.inf
    info = np.iinfo(dt)
    return info.max if highest else info.min


@kernel("reduce_sum")
def reduce_sum(x, axis, keepdims):
    acc = _acc_dtype(x.dtype)
    return np.asarray(np.sum(x, axis=_np_axis(axis, x.ndim), keepdims=keepdims, dtype=acc)
                      ).astype(x.dtype)


@kernel("reduce_prod")
def reduce_prod(x, axis, keepdims):
    acc = _acc_dtype(x.dtype)
    return np.asarray(np.prod(x, axis=_np_axis(axis, x.ndim), keepdims=keepdims, dtype=acc)
                      ).astype(x.dtype)


@kernel("reduce_max")
def reduce_max(x, axis, keepdims):
    acc = _acc_dtype(x.dtype)
    return np.asarray(np.max(x.astype(acc, copy=False), axis=_np_axis(axis, x.ndim),
                             keepdims=keepdims, initial=_extreme(x.dtype, False))
                      ).astype(x.dtype)


@kernel("reduce_min")
def reduce_min(x, axis, keepdims):
    acc = _acc_dtype(x.dtype)
    return np.asarray(np.min(x.astype(acc, copy=False), axis=_np_axis(axis, x.ndim),
                             keepdims=keepdims, initial=_extreme(x.dtype, True))
                      ).astype(x.dtype)


@kernel("reduce_any")
def reduce_any(x, axis, keepdims):
    return np.asarray(np.any(x, axis=_np_axis(axis, x.ndim), keepdims=keepdims))


@kernel("reduce_all")
def reduce_all(x, axis, keepdims):
    return np.asarray(np.all(x, axis=_np_axis(axis, x.ndim), keepdims=keepdims))


@kernel("reduce_mean")
def reduce_mean(x, axis, keepdims):
    ax = _np_axis(axis, x.ndim)
    count = x.size if ax is None else int(np.prod([x.shape[a] for a in ax], dtype=np.int64))
    if x.dtype.kind in "iu":
        # TF accumulates narrow integers without overflow (int64 wraps) and divides with C
        # truncation; an empty mean is 0.
        s = np.asarray(np.sum(x, axis=ax, keepdims=keepdims, dtype=np.int64))
        if count == 0:
            return np.zeros(s.shape, x.dtype)
        q = (s - np.fmod(s, count)) // count
        return q.astype(x.dtype)
    acc = _acc_dtype(x.dtype)
    s = np.asarray(np.sum(x, axis=ax, keepdims=keepdims, dtype=acc))
    with np.errstate(invalid="ignore", divide="ignore"):  # an empty mean is 0/0 = NaN
        return (s / acc.type(count)).astype(x.dtype)


def _arg(pick, nan_fill):
    def fn(x, axis, output_type):
        axis %= x.ndim
        if x.shape[axis] == 0:
            raise InvalidArgumentError(None, None, f"Reduction axis {axis} is empty in shape "
                                                   f"[{','.join(map(str, x.shape))}]")
        if x.dtype.kind == "f" or is_half_np(x.dtype):
            # TF skips NaN (every comparison with it is false); an all-NaN slice gives 0.
            x = x.astype(_acc_dtype(x.dtype), copy=False)
            x = np.where(np.isnan(x), x.dtype.type(nan_fill), x)
        return np.asarray(pick(x, axis=axis)).astype(output_type.np)
    return fn


kernel("argmax")(_arg(np.argmax, -np.inf))
kernel("argmin")(_arg(np.argmin, np.inf))


def _scan(accumulate, identity):
    def fn(x, axis, exclusive, reverse):
        axis %= x.ndim
        acc = _acc_dtype(x.dtype)
        if reverse:
            x = np.flip(x, axis)
        out = accumulate(x, axis=axis, dtype=acc)
        if exclusive and x.shape[axis]:
            # Shift by one along the axis; the first element becomes the identity.
            head = np.full(x.shape[:axis] + (1,) + x.shape[axis + 1:], identity, acc)
            body = np.take(out, np.arange(x.shape[axis] - 1), axis=axis)
            out = np.concatenate([head, body], axis=axis)
        if reverse:
            out = np.flip(out, axis)
        return np.ascontiguousarray(out).astype(x.dtype, copy=False)
    return fn


kernel("cumsum")(_scan(np.cumsum, 0))
kernel("cumprod")(_scan(np.cumprod, 1))
