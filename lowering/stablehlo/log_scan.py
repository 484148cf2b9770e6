"""The running logsumexp under XLA: the scan of reduce.scan with a logaddexp body,
max + log1p(exp(min - max)), which keeps an infinite maximum as it is (inf - inf would be
NaN there)."""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...runtime.jax_internals import hlo
from .core import register_lowering
from .reduce import scan


@register_lowering("cumulative_logsumexp")
def _cumulative_logsumexp(ctx, op, x, *, axis, exclusive, reverse):
    dt = ctx.dtype(x)
    wide = ctx.convert(x, D.compute_dtype(dt))

    def logaddexp(a, b):
        high, low = hlo.maximum(a, b), hlo.minimum(a, b)
        summed = hlo.add(high, hlo.log_plus_one(hlo.exponential(hlo.subtract(low, high))))
        infinite = ctx.compare(hlo.abs(high), ctx.splat(np.inf, high.type), "EQ")
        return hlo.select(infinite, high, summed)
    out = scan(ctx, wide, axis % ctx.rank(x), None, exclusive, reverse, init=-np.inf,
               combine=logaddexp)
    return ctx.convert(out, dt)
