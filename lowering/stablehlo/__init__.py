"""df -> StableHLO with jaxlib's MLIR builders, one rule per df op.

A rule gets the lowering context (`ctx`: the shared builders, see builders.py), the df op
(its result types, its location), the lowered operands (tokens dropped; a variable handle
arrives as a `Resource`) and, as keyword-only parameters, the op attributes it names
(decoded once per op; axes non-negative; `**attrs` takes them all). It returns the results:

    @register_lowering("softsign")                 # or the df op class
    def _softsign(ctx, op, x):
        return hlo.divide(x, hlo.add(ctx.splat(1, x.type), hlo.abs(x)))

    @register_lowering("leaky_relu")
    def _leaky_relu(ctx, op, x, *, alpha):
        return hlo.select(ctx.compare(x, ctx.zeros(x.type), "GT"), x,
                          hlo.multiply(x, ctx.splat(alpha, x.type)))

MLIR infers and verifies result types inside the rule that builds an op; the driver checks
what the rule returned against the op's results (InternalError naming the rule otherwise).
Every op is built under `loc(fused["<df op>:", "<function>/<node>", "<file>":line:0])`.
Rule writers import `hlo`, `chlo` and `ir` from here (they come from
`flowjit.runtime.jax_internals`, the one module with private jax/jaxlib imports).
"""
from __future__ import annotations

from .core import (RULES, LoweringContext, Resource, lower_module, module_name,  # noqa
                   register_lowering)
from ...runtime.jax_internals import chlo, hlo, ir  # noqa: F401  (for rule writers)

from . import (math, reduce, linalg, array, nn, random, state, logging, fused,  # noqa: E402,F401
               strings, checks, script)
from . import control_flow  # noqa: E402,F401
from . import segment  # noqa: E402,F401  (issue 11)
from . import counting  # noqa: E402,F401  (issue 11)
from . import collective  # noqa: E402,F401  (issue 12)
from . import signal  # noqa: E402,F401
