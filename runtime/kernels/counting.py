"""NumPy kernels for unique, bincount and searchsorted, with TF's CPU checks."""
from __future__ import annotations

import numpy as np

from ...ir.errors import InvalidArgumentError
from . import kernel


def _unique(x, out_idx):
    """Distinct values in order of first appearance, each element's index among them, and
    how often each occurs. NaNs never equal each other, so each is its own value (as TF)."""
    key = x.astype(np.float32) if x.dtype.name in ("float16", "bfloat16") else x
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
    seq = sorted_sequence.reshape(-1, sorted_sequence.shape[-1])
    vals = values.reshape(-1, values.shape[-1])
    if seq.shape[0] != vals.shape[0]:
        raise InvalidArgumentError(None, "searchsorted", "Leading dim_size of both tensors "
                                                         "must match.")
    out = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(seq, vals)]) \
        if seq.shape[0] else np.zeros(vals.shape, np.int64)
    return out.reshape(values.shape).astype(out_type.np)
