"""`ensure_shape` under XLA: shapes are static per compile, so the check runs once while
lowering (TF's InvalidArgumentError naming the op's line) and the op lowers to nothing."""
from __future__ import annotations

from ...ir.errors import InvalidArgumentError
from ...runtime.kernels.checks import shape_mismatch
from .core import _where, register_lowering


@register_lowering("ensure_shape")
def _ensure_shape(ctx, op, x, *, shape):
    problem = shape_mismatch(ctx.tt(op.operands[0]).shape, shape)
    if problem is not None:
        raise InvalidArgumentError(None, "ensure_shape", f"{problem} [at {_where(op)}]")
    return x
