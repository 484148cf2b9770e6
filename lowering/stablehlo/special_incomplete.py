"""The incomplete gamma and beta functions under XLA: jax.lax's implementations (the series
and continued fractions of XLA's client library), lowered for the operands' shapes and
called from the module (decomp.call_jax). The operands are broadcast to the result's shape
and computed in float64 (float32's series lose digits TF's kernels keep); outside the domain
(a <= 0, x < 0; betainc's b <= 0 or x > 1) the result is TF's NaN, where jax gives limits.
From a = ASYMPTOTIC_A on, the gamma functions are the eager kernels' asymptotic expansion
written in jax.numpy (XLA's series cancel there, and never end near a = 1e30); the series
get a = x = 1 in those places, so every loop ends."""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...runtime.jax_internals import hlo
from ...runtime.kernels.special_incomplete import ASYMPTOTIC_A, igamma_asymptotic, tf_domain
from .core import register_lowering
from .decomp import JAX_FUNCTIONS, call_jax


def _lax(name):
    def make():
        import jax
        return getattr(jax.lax, name)
    return make


def _gamma(name, pick):
    """jax.lax's `name` below ASYMPTOTIC_A, result `pick` of igamma_asymptotic from it on."""
    def make():
        import jax
        import jax.numpy as jnp
        from jax.scipy.special import erfc
        series = getattr(jax.lax, name)

        def gamma(a, x):
            big = a >= ASYMPTOTIC_A
            small = series(jnp.where(big, 1.0, a), jnp.where(big, 1.0, x))
            out = jnp.where(big, igamma_asymptotic(jnp, erfc, a, x)[pick], small)
            return tf_domain(jnp, name, a, x, out)   # the eager kernels' domain and edges
        return gamma
    return make


# op -> (its jax function, the operands that must be positive where the rule masks the
# domain; the gamma functions mask their own)
LAX = {"igamma": (_gamma("igamma", 0), ()), "igammac": (_gamma("igammac", 1), ()),
       "igamma_grad_a": (_gamma("igamma_grad_a", 2), ()),
       "betainc": (_lax("betainc"), (0, 1))}


def _declare(name, make, positive):
    JAX_FUNCTIONS[f"lax.{name}"] = make

    def rule(ctx, op, *operands):
        t = ctx.result_type(op)
        dt = ctx.dtype(operands[0])
        wide = [ctx.convert(ctx.broadcast(v, t), D.float64) for v in operands]
        f = wide[0].type
        out = call_jax(ctx, (f"lax.{name}",), *wide)[0]
        if positive:   # NaN outside (0, inf) for each of them and [0, 1] for x, NaN included
            zero, one = ctx.zeros(f), ctx.splat(1, f)
            inside = [ctx.compare(wide[i], zero, "GT") for i in positive]
            inside += [ctx.compare(wide[-1], zero, "GE"), ctx.compare(wide[-1], one, "LE")]
            for mask in inside:
                out = hlo.select(mask, out, ctx.splat(np.nan, f))
        return ctx.convert(out, dt)
    register_lowering(name)(rule)


for _n, (_make, _p) in LAX.items():
    _declare(_n, _make, _p)
