"""StableHLO lowering rules: fused family. A fused op lowers to exactly what the ops it
replaced lower to (the matmul / conv2d rule, a broadcast add of the bias, the activation's
rule), so XLA sees the same program with or without the remapper; XLA fuses it itself.

The existing rules take a df op for its attributes and result type; `_Part` stands in for the
unfused op a step corresponds to (its attributes and the fused op's result type, which every
step shares: bias add and activations keep the product's type).
"""
from __future__ import annotations

from jax._src.lib.mlir import ir
import jaxlib.mlir.dialects.stablehlo as hlo

from ...ir.ops.fused import MATMUL_ATTRS, activation_op
from ...ir.ops.nn import CONV_ATTRS, spatial_axes
from .core import RULES, register_lowering


class _Part:
    """The view of one unfused op that a lowering rule needs: name, attributes, results."""

    def __init__(self, name, attrs, results):
        self.name = "df." + name
        self._attrs = attrs
        self.results = results

    def python_attrs(self):
        return dict(self._attrs)


def _unfused(ctx, op, name, attrs, *operands):
    return RULES["df." + name](ctx, _Part(name, attrs, op.results), *operands)


def _bias_and_activation(ctx, op, y, bias, axis, attrs):
    b = hlo.broadcast_in_dim(y.type, bias, ir.DenseI64ArrayAttr.get([axis]))
    y = hlo.add(y, b)
    act = activation_op(attrs["activation"], attrs["alpha"])
    if act is None:
        return y
    return _unfused(ctx, op, act[0], act[1], y)


@register_lowering("fused_matmul")
def _fused_matmul(ctx, op, a, b, bias):
    attrs = op.python_attrs()
    y = _unfused(ctx, op, "matmul", {k[0]: attrs[k[0]] for k in MATMUL_ATTRS}, a, b)
    return _bias_and_activation(ctx, op, y, bias, len(ctx.shape(y)) - 1, attrs)


@register_lowering("fused_conv2d")
def _fused_conv2d(ctx, op, x, f, bias):
    attrs = op.python_attrs()
    y = _unfused(ctx, op, "conv2d", {k[0]: attrs[k[0]] for k in CONV_ATTRS}, x, f)
    _, ch = spatial_axes(attrs["data_format"], len(ctx.shape(y)))
    return _bias_and_activation(ctx, op, y, bias, ch, attrs)
