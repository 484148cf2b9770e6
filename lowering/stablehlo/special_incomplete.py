"""The incomplete gamma and beta functions under XLA: jax.lax's implementations (the series
and continued fractions of XLA's client library), lowered for the operands' shapes and
called from the module (decomp.call_jax). The operands are broadcast to the result's shape
and computed in float64 (float32's series lose digits TF's kernels keep); outside the domain
(a <= 0, x < 0; betainc's b <= 0 or x > 1) the result is TF's NaN, where jax gives limits."""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...runtime.jax_internals import hlo
from .core import register_lowering
from .decomp import JAX_FUNCTIONS, call_jax


def _lax(name):
    def make():
        import jax
        return getattr(jax.lax, name)
    return make


# op -> (jax.lax function of the same arguments, the operands that must be positive)
LAX = {"igamma": ("igamma", (0,)), "igammac": ("igammac", (0,)),
       "igamma_grad_a": ("igamma_grad_a", (0,)), "betainc": ("betainc", (0, 1))}


def _declare(name, lax_name, positive):
    JAX_FUNCTIONS[f"lax.{lax_name}"] = _lax(lax_name)

    def rule(ctx, op, *operands):
        t = ctx.result_type(op)
        dt = ctx.dtype(operands[0])
        wide = [ctx.convert(ctx.broadcast(v, t), D.float64) for v in operands]
        f = wide[0].type
        zero, one = ctx.zeros(f), ctx.splat(1, f)
        outside = [ctx.compare(wide[i], zero, "LE") for i in positive]
        outside.append(ctx.compare(wide[-1], zero, "LT"))
        if name == "betainc":
            outside.append(ctx.compare(wide[-1], one, "GT"))
        out = call_jax(ctx, (f"lax.{lax_name}",), *wide)[0]
        for mask in outside:
            out = hlo.select(mask, ctx.splat(np.nan, f), out)
        return ctx.convert(out, dt)
    register_lowering(name)(rule)


for _n, (_l, _p) in LAX.items():
    _declare(_n, _l, _p)
