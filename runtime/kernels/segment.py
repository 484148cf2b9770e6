"""NumPy kernels for the segment reductions (TF's CPU kernels: bad ids raise; negative ids
of the unsorted ops are dropped; an empty segment is 0 for sum and mean, 1 for prod, and for
max (min) the dtype's lowest (highest) value in the unsorted ops, 0 in the sorted ones).
float16/bfloat16 accumulate in float32."""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...ir.errors import InvalidArgumentError
from . import check_allocation, kernel
from .reduce import _acc_dtype


def _lowest(dt):
    return np.iinfo(dt).min if dt.kind in "iu" else D.finfo(dt).min


def _highest(dt):
    return np.iinfo(dt).max if dt.kind in "iu" else D.finfo(dt).max


# how -> (the ufunc that combines rows, the identity it starts from, for the accumulator dtype)
_EXTREMES = {"max": (np.maximum, _lowest), "min": (np.minimum, _highest)}


def _combine(data, ids, n, how, empty_extreme):
    """Rows of `data` (leading dims = ids.shape) reduced into `n` segments; ids < 0 dropped.
    An empty segment of a max or min gets `empty_extreme`."""
    acc = _acc_dtype(data.dtype)
    _check_memory(n, data.shape[ids.ndim:], how)
    rows = data.reshape((ids.size,) + data.shape[ids.ndim:]).astype(acc, copy=False)
    flat = ids.reshape(-1)
    keep = flat >= 0
    rows, flat = rows[keep], flat[keep]
    out_shape = (n,) + data.shape[ids.ndim:]
    count = np.bincount(flat, minlength=n)[:n]
    if how in _EXTREMES:
        combine, identity = _EXTREMES[how]
        out = np.full(out_shape, identity(acc), acc)
        combine.at(out, flat, rows)
        out = out.astype(data.dtype)
        out[count == 0] = empty_extreme
        return out
    if how == "prod":
        out = np.ones(out_shape, acc)
        np.multiply.at(out, flat, rows)
        return out.astype(data.dtype)
    out = np.zeros(out_shape, acc)
    np.add.at(out, flat, rows)
    if how == "mean":
        count = np.maximum(count, 1).reshape((n,) + (1,) * (len(out_shape) - 1))
        if acc.kind in "iu":  # C truncation, as TF's integer division
            out = (out - np.fmod(out, count)) // count
        else:
            out = out / count.astype(acc)
    return out.astype(data.dtype)


def _check_memory(n, row_shape, how):
    """The segment count comes from the ids' values: the working set (int64 counts and a
    64-bit accumulator per segment row, at most n * 2 * row words) is checked before NumPy
    allocates it (the fuzzer's seed 203615: segment_max with an id of 2**31 - 1)."""
    check_allocation(f"segment_{how}", D.int64, (n, 2 * max(int(np.prod(row_shape)), 1)),
                     f"{n} segments of shape {list(row_shape)}")


def _check_range(ids, n, what):
    bad = np.flatnonzero(ids.reshape(-1) >= n)
    if bad.size:
        i = bad[0]
        raise InvalidArgumentError(None, what, f"segment_ids[{i}] = {ids.reshape(-1)[i]} is out "
                                               f"of range [0, {n})")


def _unsorted(how):
    def fn(data, segment_ids, num_segments):
        _check_range(segment_ids, num_segments, f"unsorted_segment_{how}")
        extreme = _highest if how == "min" else _lowest
        return _combine(data, segment_ids, num_segments, how, extreme(data.dtype))
    return fn


def _sorted(how):
    def fn(data, segment_ids):
        name = f"segment_{how}"
        if data.ndim == 0 or data.shape[0] != segment_ids.shape[0]:
            raise InvalidArgumentError(None, name, "segment_ids should be the same size as "
                                                   "dimension 0 of input.")
        n = int(segment_ids[-1]) + 1 if segment_ids.size else 0
        if segment_ids.size and np.any(np.diff(segment_ids) < 0):
            raise InvalidArgumentError(None, name, "segment ids are not increasing")
        if segment_ids.size and segment_ids[0] < 0:
            raise InvalidArgumentError(None, name, f"Segment id {segment_ids[0]} out of range "
                                                   f"[0, {n}), possibly because 'segment_ids' "
                                                   f"input is not sorted.")
        # TF's sorted kernels fill an empty segment with 0, also for max and min.
        return _combine(data, segment_ids, n, how, 0)
    return fn


for _how in ("sum", "max", "min", "prod"):
    kernel(f"unsorted_segment_{_how}")(_unsorted(_how))
for _how in ("sum", "mean", "max", "min", "prod"):
    kernel(f"segment_{_how}")(_sorted(_how))
