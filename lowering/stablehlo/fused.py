"""StableHLO lowering rules: fused family. A fused op lowers to exactly what the ops it
replaced lower to (the matmul / conv2d rule, a broadcast add of the bias, the activation's
rule), so XLA sees the same program with or without the remapper; XLA fuses it itself.

Each step runs the unfused op's rule through `ctx.lower_as`, with the fused op's result type
(every step shares it: bias add and activations keep the product's type).
"""
from __future__ import annotations

from ...ir.ops.fused import activation_op
from ...ir.ops.nn import spatial_axes
from ...runtime.jax_internals import hlo
from .core import register_lowering


def _bias_and_activation(ctx, op, y, bias, axis, attrs):
    y = hlo.add(y, ctx.spread(bias, ctx.shape(y), [axis]))
    act = activation_op(attrs["activation"], attrs["alpha"])
    if act is None:
        return y
    return ctx.lower_as(act[0], op, y, **act[1])


@register_lowering("fused_matmul")
def _fused_matmul(ctx, op, a, b, bias, **attrs):
    y = ctx.lower_as("matmul", op, a, b, **attrs)
    return _bias_and_activation(ctx, op, y, bias, len(ctx.shape(y)) - 1, attrs)


@register_lowering("fused_conv2d")
def _fused_conv2d(ctx, op, x, f, bias, **attrs):
    y = ctx.lower_as("conv2d", op, x, f, **attrs)
    _, ch = spatial_axes(attrs["data_format"], len(ctx.shape(y)))
    return _bias_and_activation(ctx, op, y, bias, ch, attrs)
