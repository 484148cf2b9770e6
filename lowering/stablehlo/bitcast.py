"""bitcast under XLA: stablehlo.bitcast_convert, which adds or consumes the last dim when the
widths differ, as TF's op does."""
from __future__ import annotations

from ...runtime.jax_internals import hlo
from .core import register_lowering


@register_lowering("bitcast")
def _bitcast(ctx, op, x):
    return hlo.bitcast_convert(ctx.result_type(op), x)
