"""mul_no_nan under XLA: the product, with 0 selected where y is 0."""
from __future__ import annotations

from ...runtime.jax_internals import hlo
from .core import register_lowering


@register_lowering("mul_no_nan")
def _mul_no_nan(ctx, op, x, y):
    t = ctx.result_type(op)
    x, y = ctx.broadcast(x, t), ctx.broadcast(y, t)
    return hlo.select(ctx.compare(y, ctx.zeros(t), "EQ"), ctx.zeros(t), hlo.multiply(x, y))
