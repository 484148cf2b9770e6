"""Elementwise math -> StableHLO. Binary ops broadcast their operands to the result shape
first (df broadcasts implicitly like NumPy; StableHLO needs equal shapes)."""
from __future__ import annotations

from jax._src.lib.mlir import ir
import jaxlib.mlir.dialects.chlo as chlo
import jaxlib.mlir.dialects.stablehlo as hlo

from .core import register_lowering

UNARY = {
    "neg": hlo.negate, "abs": hlo.abs, "sign": hlo.sign, "sqrt": hlo.sqrt,
    "rsqrt": hlo.rsqrt, "exp": hlo.exponential, "expm1": hlo.exponential_minus_one,
    "log": hlo.log, "log1p": hlo.log_plus_one, "sin": hlo.sine, "cos": hlo.cosine,
    "tan": hlo.tan, "tanh": hlo.tanh, "sigmoid": hlo.logistic, "erf": chlo.erf,
    "round": hlo.round_nearest_even, "floor": hlo.floor, "ceil": hlo.ceil,
    "logical_not": hlo.not_, "is_finite": hlo.is_finite,
}
BINARY = {
    "add": hlo.add, "sub": hlo.subtract, "mul": hlo.multiply, "div": hlo.divide,
    "pow": hlo.power, "maximum": hlo.maximum, "minimum": hlo.minimum,
    "logical_and": hlo.and_, "logical_or": hlo.or_,
}
COMPARE = {"equal": "EQ", "not_equal": "NE", "less": "LT", "less_equal": "LE",
           "greater": "GT", "greater_equal": "GE"}


def compare(ctx, x, y, direction: str):
    """stablehlo.compare with the comparison type of the operands' element type."""
    dt = ctx.dtype(x)
    kind = "FLOAT" if dt.is_floating else ("SIGNED" if dt.kind == "i" else "UNSIGNED")
    return hlo.compare(x, y, hlo.ComparisonDirectionAttr.get(direction),
                       compare_type=hlo.ComparisonTypeAttr.get(kind))


def _declare_unary(name, fn):
    register_lowering(name)(lambda ctx, op, x: fn(x))


def _declare_binary(name, fn):
    def rule(ctx, op, x, y):
        t = ctx.result_type(op)
        return fn(ctx.broadcast(x, t), ctx.broadcast(y, t))
    register_lowering(name)(rule)


def _declare_compare(name, direction):
    def rule(ctx, op, x, y):
        t = ctx.result_type(op)
        shape_t = ir.RankedTensorType.get(ir.RankedTensorType(t).shape,
                                          ir.RankedTensorType(x.type).element_type)
        return compare(ctx, ctx.broadcast(x, shape_t), ctx.broadcast(y, shape_t), direction)
    register_lowering(name)(rule)


for _n, _f in UNARY.items():
    _declare_unary(_n, _f)
for _n, _f in BINARY.items():
    _declare_binary(_n, _f)
for _n, _d in COMPARE.items():
    _declare_compare(_n, _d)


@register_lowering("square")
def _square(ctx, op, x):
    return hlo.multiply(x, x)


@register_lowering("reciprocal")
def _reciprocal(ctx, op, x):
    return hlo.divide(ctx.splat(1, x.type), x)


@register_lowering("softplus")
def _softplus(ctx, op, x):
    # max(x, 0) + log1p(exp(-|x|)): exact for large |x|, like the NumPy kernel
    zero = ctx.splat(0, x.type)
    return hlo.add(hlo.maximum(x, zero), hlo.log_plus_one(hlo.exponential(hlo.negate(
        hlo.abs(x)))))


@register_lowering("is_nan")
def _is_nan(ctx, op, x):
    return compare(ctx, x, x, "NE")


@register_lowering("floordiv")
def _floordiv(ctx, op, x, y):
    t = ctx.result_type(op)
    x, y = ctx.broadcast(x, t), ctx.broadcast(y, t)
    if ctx.dtype(x).is_floating:
        return hlo.floor(hlo.divide(x, y))
    # integer division truncates; step down when the signs differ and there is a remainder
    q = hlo.divide(x, y)
    if ctx.dtype(x).is_unsigned:
        return q
    zero = ctx.splat(0, t)
    rem = hlo.remainder(x, y)
    adjust = hlo.and_(compare(ctx, rem, zero, "NE"),
                      compare(ctx, compare(ctx, x, zero, "LT"), compare(ctx, y, zero, "LT"),
                              "NE"))
    return hlo.select(adjust, hlo.subtract(q, ctx.splat(1, t)), q)


@register_lowering("floormod")
def _floormod(ctx, op, x, y):
    t = ctx.result_type(op)
    x, y = ctx.broadcast(x, t), ctx.broadcast(y, t)
    rem = hlo.remainder(x, y)
    if ctx.dtype(x).is_unsigned:
        return rem
    zero = ctx.splat(0, t)
    adjust = hlo.and_(compare(ctx, rem, zero, "NE"),
                      compare(ctx, compare(ctx, rem, zero, "LT"), compare(ctx, y, zero, "LT"),
                              "NE"))
    return hlo.select(adjust, hlo.add(rem, y), rem)


@register_lowering("select")
def _select(ctx, op, c, x, y):
    t = ctx.result_type(op)
    shape = ir.RankedTensorType(t).shape
    ct = ir.RankedTensorType.get(shape, ir.RankedTensorType(c.type).element_type)
    return hlo.select(ctx.broadcast(c, ct), ctx.broadcast(x, t), ctx.broadcast(y, t))


@register_lowering("add_n")
def _add_n(ctx, op, *xs):
    out = xs[0]
    for x in xs[1:]:
        out = hlo.add(out, x)
    return out


@register_lowering("cast")
def _cast(ctx, op, x):
    t = ctx.result_type(op)
    src, dst = ctx.dtype(x), op.python_attrs()["dtype"]
    if dst.is_bool:
        return compare(ctx, x, ctx.splat(0, x.type), "NE")
    if src.is_floating and dst.is_integer:
        # truncation toward zero; NaN/Inf become 0, as the NumPy kernel defines it
        conv = hlo.convert(t, x)
        return hlo.select(hlo.is_finite(x), conv, ctx.splat(0, t))
    return hlo.convert(t, x)


@register_lowering("clip_by_value")
def _clip(ctx, op, x, lo, hi):
    t = ctx.result_type(op)
    return hlo.minimum(hlo.maximum(x, ctx.broadcast(lo, t)), ctx.broadcast(hi, t))
