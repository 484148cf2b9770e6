"""NumPy kernels for unique, bincount and searchsorted, with TF's CPU checks."""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...ir.errors import InvalidArgumentError
from . import check_allocation, kernel


def _unique(x, out_idx):
    """Distinct values in order of first appearance, each element's index among them, and
    how often each occurs. NaNs never equal each other, so each is its own value (as TF)."""
    key = x.astype(np.float32) if D.is_half_np(x.dtype) else x
    _, first, inverse, counts = np.unique(key, return_index=True, return_inverse=True,
                                          return_counts=True, equal_nan=False)
    inverse = inverse.reshape(-1)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return x[first[order]], rank[inverse].astype(out_idx.np), counts[order].astype(out_idx.np)


@kernel("unique")
def unique(x, out_idx):
    return _unique(x, out_idx)[:2]


kernel("unique_with_counts")(_unique)


@kernel("bincount")
def bincount(arr, weights, minlength, maxlength, per_row, binary_output):
    if arr.size and arr.min() < 0:
        raise InvalidArgumentError(None, "bincount", "Input arr must be non-negative!")
    length = max(minlength, int(arr.max()) + 1 if arr.size else 0)
    if maxlength >= 0:
        length = min(length, maxlength)
    weights = np.broadcast_to(weights, arr.shape)
    rows = arr.reshape(-1, arr.shape[-1]) if per_row else arr.reshape(1, -1)
    # the length comes from the values (seed 306400: an arr of 2**31 - 1)
    check_allocation("bincount", D.from_numpy(weights.dtype), (rows.shape[0], length))
    wrows = weights.reshape(rows.shape)
    out = np.zeros((rows.shape[0], length), weights.dtype)
    for r, (ids, w) in enumerate(zip(rows, wrows)):
        keep = ids < length
        if binary_output:
            out[r, ids[keep]] = 1
        else:
            np.add.at(out[r], ids[keep], w[keep])
    return out if per_row else out[0]


@kernel("searchsorted")
def searchsorted(sorted_sequence, values, side, out_type):
    seq = _rows(sorted_sequence)
    vals = _rows(values)
    if seq.shape[0] != vals.shape[0]:
        raise InvalidArgumentError(None, "searchsorted", "Leading dim_size of both tensors "
                                                         "must match.")
    return _binary_search(seq, vals, side == "right").reshape(values.shape).astype(out_type.np)


def _rows(a):
    """`a` as a matrix of its last dim (NumPy cannot infer a -1 dim beside a 0 one)."""
    return a.reshape(int(np.prod(a.shape[:-1], dtype=np.int64)), a.shape[-1])


def _binary_search(seq, vals, right: bool):
    """Row-wise std::lower_bound (std::upper_bound when `right`) with plain `<`, as TF's CPU
    kernel: the same probes, so NaN and unsorted rows give TF's answers (NumPy's searchsorted
    orders NaN last)."""
    n = seq.shape[-1]
    first = np.zeros(vals.shape, np.int64)
    count = np.full(vals.shape, n, np.int64)
    with np.errstate(invalid="ignore"):
        while n and count.any():
            step = count // 2
            probe = first + step
            elem = np.take_along_axis(seq, np.minimum(probe, n - 1), axis=-1)
            go = ~(vals < elem) if right else elem < vals
            go &= count > 0
            first = np.where(go, probe + 1, first)
            count = np.where(go, count - step - 1, step)
    return first
