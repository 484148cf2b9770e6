"""`tf.bitcast` -> StableHLO `bitcast_convert` (which adds or consumes the last dimension as
TF does)."""
from __future__ import annotations

from ...runtime.jax_internals import hlo
from .core import register_lowering


@register_lowering("bitcast")
def _bitcast(ctx, op, x, *, type):
    return hlo.bitcast_convert(ctx.result_type(op), x)
