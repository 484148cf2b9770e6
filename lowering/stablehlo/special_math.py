"""The special functions under XLA: CHLO's own ops where it has them (lgamma, digamma,
erf_inv, bessel_i1e, polygamma, zeta, next_after, which XLA expands), and expressions of
StableHLO for the rest. Half floats compute in float32 and round once. Left of 0, polygamma
and zeta are the eager kernels' reflection (hurwitz) of CHLO's values at positive
arguments, written in jax.numpy and called from the module: CHLO's fixed-length sum is wrong
there."""
from __future__ import annotations

import math

from ...ir import dtypes as D
from ...runtime.jax_internals import chlo, hlo
from ...runtime.kernels.special_math import hurwitz
from .core import register_lowering
from .decomp import JAX_FUNCTIONS, call_jax

CHLO_UNARY = {"lgamma": chlo.lgamma, "digamma": chlo.digamma, "erfinv": chlo.erf_inv,
              "bessel_i1e": chlo.bessel_i1e}

# i0e(x) for |x| <= _QUADRATURE_LIMIT: the mean of exp(|x| (cos t - 1)) over _NODES equally
# spaced t in [0, 2 pi) (the trapezoidal rule converges geometrically for this periodic
# integrand: below 1e-15 relative up to 30 with 64 nodes); beyond it Hankel's asymptotic
# series, below 1e-15 relative from 30 on with 16 terms.
_NODES, _QUADRATURE_LIMIT, _ASYMPTOTIC_TERMS = 64, 30.0, 16


def _declare_unary(name, fn):
    def rule(ctx, op, x):
        wide, back = ctx.widen(x)
        return back(fn(wide))
    register_lowering(name)(rule)


for _n, _f in CHLO_UNARY.items():
    _declare_unary(_n, _f)


def _hurwitz(name, order_shift):
    """The eager kernels' `hurwitz` of jax.lax's `name` (CHLO's polygamma(n, q) or
    zeta(s, q)), whose order s is n + order_shift."""
    def make():
        import jax
        import jax.numpy as jnp
        fn = getattr(jax.lax, name)
        return lambda a, q: hurwitz(jnp, lambda y: fn(a, y), a + order_shift, q)
    return make


JAX_FUNCTIONS["lax.polygamma_hurwitz"] = _hurwitz("polygamma", 1)
JAX_FUNCTIONS["lax.zeta_hurwitz"] = _hurwitz("zeta", 0)


def _call_hurwitz(ctx, op, name, a, q):
    """`name`'s jax function on the operands broadcast and widened: (a, q, the result), all
    in the compute type, and the function that rounds back."""
    t = ctx.result_type(op)
    a, back = ctx.widen(ctx.broadcast(a, t))
    q, _ = ctx.widen(ctx.broadcast(q, t))
    return a, q, call_jax(ctx, (name,), a, q)[0], back


@register_lowering("zeta")
def _zeta(ctx, op, x, q):
    _, _, out, back = _call_hurwitz(ctx, op, "lax.zeta_hurwitz", x, q)
    return back(out)


@register_lowering("polygamma")
def _polygamma(ctx, op, n, x):
    """With TF's 0 for the derivatives of digamma (a whole n >= 1) at +inf, and NaN for an
    infinite order (CHLO: 0 at some x)."""
    n, x, out, back = _call_hurwitz(ctx, op, "lax.polygamma_hurwitz", n, x)
    f = n.type
    inf = ctx.splat(float("inf"), f)
    whole = ctx.compare(n, hlo.floor(n), "EQ")
    at_inf = hlo.and_(hlo.and_(ctx.compare(x, inf, "EQ"), whole),
                      ctx.compare(n, ctx.splat(1, f), "GE"))
    out = hlo.select(at_inf, ctx.zeros(f), out)
    return back(hlo.select(ctx.compare(n, inf, "EQ"), ctx.splat(float("nan"), f), out))


@register_lowering("nextafter")
def _nextafter(ctx, op, x, y):
    t = ctx.result_type(op)
    return chlo.next_after(ctx.broadcast(x, t), ctx.broadcast(y, t))


@register_lowering("softsign")
def _softsign(ctx, op, x):
    wide, back = ctx.widen(x)
    return back(hlo.divide(wide, hlo.add(ctx.splat(1, wide.type), hlo.abs(wide))))


@register_lowering("ndtri")
def _ndtri(ctx, op, x):
    """sqrt(2) erfinv(2q - 1) for q = min(p, 1 - p), the lower tail, where 2q - 1 loses q's
    precision; one Newton step on Phi(x) = q (Phi by erfc, accurate in the lower tail)
    restores it. The upper half is the lower one's negation."""
    p, back = ctx.widen(x)
    f = p.type
    one, half = ctx.splat(1, f), ctx.splat(0.5, f)
    q = hlo.minimum(p, hlo.subtract(one, p))
    x0 = hlo.multiply(ctx.splat(math.sqrt(2), f),
                      chlo.erf_inv(hlo.subtract(hlo.multiply(ctx.splat(2, f), q), one)))
    cdf = hlo.multiply(half, chlo.erfc(hlo.multiply(x0, ctx.splat(-math.sqrt(0.5), f))))
    pdf = hlo.multiply(hlo.exponential(hlo.multiply(hlo.multiply(x0, x0), ctx.splat(-0.5, f))),
                       ctx.splat(1 / math.sqrt(2 * math.pi), f))
    x1 = hlo.subtract(x0, hlo.divide(hlo.subtract(cdf, q), pdf))
    lower = hlo.select(ctx.compare(q, ctx.zeros(f), "EQ"), x0, x1)
    return back(hlo.select(ctx.compare(p, half, "GT"), hlo.negate(lower), lower))


def _i0e(ctx, x):
    """exp(-|x|) I0(x) in float64 (see _NODES)."""
    a = hlo.abs(x)
    f = a.type
    total = ctx.zeros(f)
    for j in range(_NODES // 2 + 1):   # cos t is symmetric: half the nodes, doubled
        weight = 1 if j in (0, _NODES // 2) else 2
        c = math.cos(2 * math.pi * j / _NODES) - 1
        term = hlo.exponential(hlo.multiply(a, ctx.splat(c, f)))
        total = hlo.add(total, hlo.multiply(term, ctx.splat(weight / _NODES, f)))
    series, term = ctx.splat(1, f), ctx.splat(1, f)
    safe = hlo.maximum(a, ctx.splat(_QUADRATURE_LIMIT, f))
    for k in range(1, _ASYMPTOTIC_TERMS):
        term = hlo.divide(hlo.multiply(term, ctx.splat((2 * k - 1) ** 2 / (8 * k), f)), safe)
        series = hlo.add(series, term)
    asymptotic = hlo.multiply(series, hlo.rsqrt(hlo.multiply(safe, ctx.splat(2 * math.pi, f))))
    near = ctx.compare(a, ctx.splat(_QUADRATURE_LIMIT, f), "LE")
    return hlo.select(near, total, asymptotic)


def _in_float64(ctx, x, fn):
    """fn of x computed in float64 and rounded back once (I0 and I1 overflow float32's
    exponent before their values do)."""
    dt = ctx.dtype(x)
    out = fn(ctx.convert(x, D.float64))
    return ctx.convert(out, dt) if dt is not D.float64 else out


@register_lowering("bessel_i0e")
def _bessel_i0e(ctx, op, x):
    return _in_float64(ctx, x, lambda w: _i0e(ctx, w))


@register_lowering("bessel_i0")
def _bessel_i0(ctx, op, x):
    return _in_float64(ctx, x, lambda w: hlo.multiply(_i0e(ctx, w),
                                                      hlo.exponential(hlo.abs(w))))


@register_lowering("bessel_i1")
def _bessel_i1(ctx, op, x):
    return _in_float64(ctx, x, lambda w: hlo.multiply(chlo.bessel_i1e(w),
                                                      hlo.exponential(hlo.abs(w))))
