"""Gradients of elementwise math. Conventions at kinks follow TF: |x|'(0) = 0, sqrt'(0) = inf,
ties of maximum/minimum send the whole gradient to x, clip_by_value passes the gradient to t
at the bounds themselves, and pow's exponent gradient is 0 where x <= 0."""
from __future__ import annotations

import math as _pymath

from ...ir.errors import UnimplementedError
from ..ops import array as A
from ..ops import math as M
from . import register_gradient
from ._util import gradient, unbroadcast

_TWO_OVER_SQRT_PI = 2.0 / _pymath.sqrt(_pymath.pi)

mul, add, sub, div, neg = M.multiply, M.add, M.subtract, M.divide, M.negative

# op name -> d(op)/dx times g, from the input x, the output y and the upstream gradient g.
UNARY = {
    "neg": lambda x, y, g: neg(g),
    "abs": lambda x, y, g: mul(g, M.sign(x)),
    "sign": lambda x, y, g: A.zeros_like(x),
    "square": lambda x, y, g: mul(g, mul(x, 2.0)),
    "sqrt": lambda x, y, g: div(mul(g, 0.5), y),
    "rsqrt": lambda x, y, g: mul(mul(g, -0.5), mul(y, M.square(y))),
    "exp": lambda x, y, g: mul(g, y),
    "expm1": lambda x, y, g: mul(g, M.exp(x)),
    "log": lambda x, y, g: mul(g, M.reciprocal(x)),
    "log1p": lambda x, y, g: mul(g, M.reciprocal(add(x, 1.0))),
    "sin": lambda x, y, g: mul(g, M.cos(x)),
    "cos": lambda x, y, g: mul(g, neg(M.sin(x))),
    "tan": lambda x, y, g: mul(g, M.square(M.reciprocal(M.cos(x)))),
    "tanh": lambda x, y, g: mul(g, sub(1.0, M.square(y))),
    "sigmoid": lambda x, y, g: mul(g, mul(y, sub(1.0, y))),
    "erf": lambda x, y, g: mul(g, mul(M.exp(neg(M.square(x))), _TWO_OVER_SQRT_PI)),
    "softplus": lambda x, y, g: mul(g, M.sigmoid(x)),
    "reciprocal": lambda x, y, g: mul(neg(g), M.square(y)),
    "acos": lambda x, y, g: neg(div(g, M.sqrt(sub(1.0, M.square(x))))),
    "asin": lambda x, y, g: div(g, M.sqrt(sub(1.0, M.square(x)))),
    "atan": lambda x, y, g: div(g, add(1.0, M.square(x))),
    "sinh": lambda x, y, g: mul(g, M.cosh(x)),
    "cosh": lambda x, y, g: mul(g, M.sinh(x)),
    "asinh": lambda x, y, g: div(g, M.cosh(y)),
    "acosh": lambda x, y, g: div(g, M.sinh(y)),
    "atanh": lambda x, y, g: div(g, sub(1.0, M.square(x))),
    "erfc": lambda x, y, g: mul(g, mul(M.exp(neg(M.square(x))), -_TWO_OVER_SQRT_PI)),
}


def _declare_unary(name, rule):
    @gradient(name)
    def _grad(op, g):
        return [rule(op.inputs[0], op.outputs[0], g)]


for _name, _rule in UNARY.items():
    _declare_unary(_name, _rule)


@gradient("add")
def _add_grad(op, g):
    x, y = op.inputs
    return [unbroadcast(g, x), unbroadcast(g, y)]


@gradient("sub")
def _sub_grad(op, g):
    x, y = op.inputs
    return [unbroadcast(g, x), unbroadcast(neg(g), y)]


@gradient("mul")
def _mul_grad(op, g):
    x, y = op.inputs
    return [unbroadcast(mul(g, y), x), unbroadcast(mul(x, g), y)]


@gradient("div")
def _div_grad(op, g):
    x, y = op.inputs
    return [unbroadcast(div(g, y), x), unbroadcast(mul(g, div(div(neg(x), y), y)), y)]


@gradient("atan2")
def _atan2_grad(op, g):
    # atan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2)
    y, x = op.inputs
    scale = div(g, add(M.square(x), M.square(y)))
    return [unbroadcast(mul(x, scale), y), unbroadcast(mul(neg(y), scale), x)]


@gradient("floormod")
def _floormod_grad(op, g):
    # x - floor(x / y) * y, with the floor piecewise constant.
    x, y = op.inputs
    return [unbroadcast(g, x), unbroadcast(mul(g, neg(M.floordiv(x, y))), y)]


@gradient("pow")
def _pow_grad(op, g):
    x, y = op.inputs
    z = op.outputs[0]
    gx = mul(mul(g, y), M.pow(x, sub(y, 1.0)))
    # d/dy x**y = x**y log x has no real value for x < 0 and a false singularity at x = 0
    # (x**y is 0 there): TF's answer is 0 for both, and log only ever sees a positive value.
    positive = M.greater(x, 0.0)
    log_x = M.where(positive, M.log(M.where(positive, x, A.ones_like(x))), A.zeros_like(x))
    gy = mul(mul(g, z), log_x)
    return [unbroadcast(gx, x), unbroadcast(gy, y)]


def _selected(op, g, x_wins):
    """Gradients of a two-way choice: g goes to x where `x_wins`, else to y."""
    x, y = op.inputs
    zeros = A.zeros_like(g)
    return [unbroadcast(M.where(x_wins, g, zeros), x),
            unbroadcast(M.where(x_wins, zeros, g), y)]


@gradient("maximum")
def _maximum_grad(op, g):
    x, y = op.inputs
    return _selected(op, g, M.greater_equal(x, y))


@gradient("minimum")
def _minimum_grad(op, g):
    x, y = op.inputs
    return _selected(op, g, M.less_equal(x, y))


@gradient("select")
def _select_grad(op, g):
    c, x, y = op.inputs
    zeros = A.zeros_like(g)
    return [None, unbroadcast(M.where(c, g, zeros), x), unbroadcast(M.where(c, zeros, g), y)]


@gradient("add_n")
def _add_n_grad(op, g):
    return [g] * len(op.inputs)


@register_gradient("real", "imag", "conj", "complex")
def _complex_grad(op, g):
    # The tape refuses gradients that flow through complex tensors before reaching here.
    raise UnimplementedError(None, op.opdef.name, f"no gradient for {op.opdef.name}: flowjit "
                             f"does not differentiate complex tensors yet (TF does)")


@gradient("cast")
def _cast_grad(op, g):
    x = op.inputs[0]
    if not op.outputs[0].dtype.is_floating:
        return [None]
    return [M.cast(g, x.dtype)]


@gradient("clip_by_value")
def _clip_grad(op, g):
    """The gradient of TF's composition maximum(minimum(t, hi), lo): a NaN in t sends it to
    the bounds, and so does t beyond crossed bounds."""
    t, lo, hi = op.inputs
    zeros = A.zeros_like(g)
    below_hi = M.less_equal(t, hi)
    above_lo = M.greater_equal(M.minimum(t, hi), lo)
    to_min = M.where(above_lo, g, zeros)
    return [M.where(below_hi, to_min, zeros),
            unbroadcast(M.where(above_lo, zeros, g), lo),
            unbroadcast(M.where(below_hi, zeros, to_min), hi)]
