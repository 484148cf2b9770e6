"""df -> StableHLO with jaxlib's MLIR builders, one rule per df op.

A rule gets the lowering context, the df op and the lowered operands (tokens dropped; a
variable handle arrives as a `Resource`), and returns the lowered results:

    @register_lowering("softsign")                 # or the df op class
    def _softsign(ctx, op, x):
        one = ctx.splat(1, ctx.result_type(op))
        return hlo.divide(x, hlo.add(one, hlo.abs(x)))

MLIR infers and verifies result types inside the rule that builds an op, and every op is
built under `loc("<function>/<node>"("<file>":line:0))`.
"""
from __future__ import annotations

from .core import RULES, LoweringContext, Resource, lower_module, register_lowering  # noqa

from . import (math, reduce, linalg, array, nn, random, state, logging, fused,  # noqa: E402,F401
               strings, checks, script)
from . import control_flow  # noqa: E402,F401
from . import segment  # noqa: E402,F401  (issue 11)
from . import counting  # noqa: E402,F401  (issue 11)
from . import collective  # noqa: E402,F401  (issue 12)
