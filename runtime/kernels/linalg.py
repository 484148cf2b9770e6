"""NumPy kernels for matmul, tensordot, einsum and top_k.

float16/bfloat16 products accumulate in float32 (as TF's CPU and XLA kernels do) and are
rounded once at the end.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from . import kernel

_HALF = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))


def _compute(*xs):
    return tuple(x.astype(np.float32) if x.dtype in _HALF else x for x in xs)


@kernel("matmul")
def matmul(a, b, transpose_a, transpose_b, output_type):
    out = np.dtype(output_type.np) if output_type is not None else a.dtype
    ca, cb = _compute(a, b)
    if ca.dtype != out and out.kind in "iu":  # int8/uint8 -> int32
        ca, cb = ca.astype(out), cb.astype(out)
    if transpose_a:
        ca = np.swapaxes(ca, -1, -2)
    if transpose_b:
        cb = np.swapaxes(cb, -1, -2)
    return np.matmul(ca, cb).astype(out, copy=False)


@kernel("tensordot")
def tensordot(a, b, a_axes, b_axes):
    ca, cb = _compute(a, b)
    return np.asarray(np.tensordot(ca, cb, axes=(list(a_axes), list(b_axes)))
                      ).astype(a.dtype, copy=False)


@kernel("einsum")
def einsum(*xs, equation):
    cs = _compute(*xs)
    return np.asarray(np.einsum(equation, *cs, optimize=len(cs) > 1)
                      ).astype(xs[0].dtype, copy=False)


@kernel("top_k")
def top_k(x, k, sorted, index_type):  # noqa: A002  (the op's attribute name)
    # A stable ascending sort of the reversed row, read backwards, is a descending sort
    # that keeps the lower index first among ties; NaN sorts above everything.
    n = x.shape[-1]
    key = x.astype(np.float32) if x.dtype in _HALF else x
    order = np.argsort(key[..., ::-1], axis=-1, kind="stable")[..., ::-1][..., :k]
    idx = n - 1 - order
    values = np.take_along_axis(x, idx, axis=-1)
    return values, idx.astype(index_type.np)
