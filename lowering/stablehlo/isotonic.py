"""`isotonic_regression` under XLA: refused as TF refuses it (its XLA has no
IsotonicRegression kernel; the pool-adjacent-violators loop has a data-dependent trip count)."""
from __future__ import annotations

from .core import refuse_without_kernel, register_lowering


@register_lowering("isotonic_regression")
def _isotonic_regression(ctx, op, x, *, output_dtype):
    refuse_without_kernel(ctx.fname, op, "IsotonicRegression")
