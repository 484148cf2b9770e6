"""The incomplete gamma and beta functions under XLA: jax.lax's implementations (the series
and continued fractions XLA's own client library uses), lowered for the operands' shapes
and called from the module (decomp.call_jax). Operands are broadcast to the result's shape
first, as TF's kernels broadcast."""
from __future__ import annotations

from .core import register_lowering
from .decomp import JAX_FUNCTIONS, call_jax


def _lax(name):
    def make():
        import jax
        return getattr(jax.lax, name)
    return make


# op -> jax.lax function of the same arguments
LAX = {"igamma": "igamma", "igammac": "igammac", "igamma_grad_a": "igamma_grad_a",
       "betainc": "betainc"}


def _declare(name, lax_name):
    JAX_FUNCTIONS[f"lax.{lax_name}"] = _lax(lax_name)

    def rule(ctx, op, *operands):
        t = ctx.result_type(op)
        return call_jax(ctx, (f"lax.{lax_name}",), *[ctx.broadcast(v, t) for v in operands])[0]
    register_lowering(name)(rule)


for _n, _l in LAX.items():
    _declare(_n, _l)
