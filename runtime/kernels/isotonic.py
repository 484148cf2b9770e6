"""Kernel of `isotonic_regression`: pool adjacent violators per row. Blocks of a row are kept
on a stack as (sum, count); a new element starts a block, and while the block before the last
has a smaller mean than the last (a rise, which a non-increasing fit cannot have) the two
merge. Equal means stay apart, and a NaN compares false, so it pools with nothing (TF's)."""
from __future__ import annotations

import numpy as np

from . import kernel


def _fit_row(row: np.ndarray, out: np.ndarray, segments: np.ndarray):
    sums, counts = [], []
    for value in row:
        sums.append(float(value))
        counts.append(1)
        while len(sums) > 1 and sums[-2] / counts[-2] < sums[-1] / counts[-1]:
            total, count = sums.pop(), counts.pop()
            sums[-1] += total
            counts[-1] += count
    start = 0
    for index, (total, count) in enumerate(zip(sums, counts)):
        out[start:start + count] = total / count
        segments[start:start + count] = index
        start += count


@kernel("isotonic_regression")
def isotonic_regression(input, output_dtype):  # noqa: A002 - TF's argument name
    x = np.asarray(input, np.float64)
    width = x.shape[-1] if x.ndim else 1
    rows = x.reshape(int(np.prod(x.shape[:-1], dtype=np.int64)) if x.ndim else 1, width)
    out = np.empty(rows.shape, np.float64)
    segments = np.empty(rows.shape, np.int32)
    for i in range(rows.shape[0]):
        _fit_row(rows[i], out[i], segments[i])
    return out.reshape(x.shape).astype(output_dtype.np), segments.reshape(x.shape)
