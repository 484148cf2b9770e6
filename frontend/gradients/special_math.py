"""Gradients of the special functions (TF's math_grad rules). At x = 0, where the general
rule divides by x, I1e's is its limit 0.5 and I1's is 1 (TF's choice; the limit is 0.5).
polygamma and zeta have no gradient for their order/exponent argument, as in TF."""
from __future__ import annotations

import math

from ..ops import array as A
from ..ops import math as M
from ..ops import special_math as S
from ._util import gradient, unbroadcast

mul, add, sub, div = M.multiply, M.add, M.subtract, M.divide


def _at_zero(x, value, general):
    """general(safe x) where x != 0, `value` at 0."""
    zero = M.equal(x, A.zeros_like(x))
    safe = M.where(zero, A.ones_like(x), x)
    return M.where(zero, mul(A.ones_like(x), value), general(safe))


# op name -> d(op)/dx times g, from the input x, the output y and the upstream gradient g.
UNARY = {
    "softsign": lambda x, y, g: div(g, M.square(add(1.0, M.abs(x)))),
    "erfinv": lambda x, y, g: mul(g, mul(M.exp(M.square(y)), math.sqrt(math.pi) / 2)),
    "ndtri": lambda x, y, g: mul(g, mul(M.exp(mul(M.square(y), 0.5)),
                                        math.sqrt(2 * math.pi))),
    "lgamma": lambda x, y, g: mul(g, S.digamma(x)),
    "digamma": lambda x, y, g: mul(g, S.polygamma(A.ones_like(x), x)),
    "bessel_i0": lambda x, y, g: mul(g, S.bessel_i1(x)),
    "bessel_i0e": lambda x, y, g: mul(g, sub(S.bessel_i1e(x), mul(M.sign(x), y))),
    "bessel_i1": lambda x, y, g: mul(g, _at_zero(
        x, 1.0, lambda s: sub(S.bessel_i0(s), div(y, s)))),
    "bessel_i1e": lambda x, y, g: mul(g, _at_zero(
        x, 0.5, lambda s: sub(S.bessel_i0e(s), mul(y, add(M.sign(s), M.reciprocal(s)))))),
}


def _declare_unary(name, rule):
    @gradient(name)
    def grad(op, g):
        (x,), (y,) = op.inputs, op.outputs
        return [rule(x, y, g)]


for _n, _r in UNARY.items():
    _declare_unary(_n, _r)


@gradient("polygamma")
def _polygamma_grad(op, g):
    n, x = op.inputs
    return [None, unbroadcast(mul(g, S.polygamma(add(n, 1.0), x)), x)]


@gradient("zeta")
def _zeta_grad(op, g):
    s, q = op.inputs
    return [None, unbroadcast(mul(g, mul(M.negative(s), S.zeta(add(s, 1.0), q))), q)]
