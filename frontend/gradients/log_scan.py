"""The gradient of cumulative_logsumexp (TF's rule): the upstream gradient split into its
positive and negative parts, each taken to log space, so the reversed running logsumexp of
log(g) - output stays finite where exp(output) would overflow."""
from __future__ import annotations

from ..ops import array as A
from ..ops import math as M
from ..ops import log_scan as L
from ._util import attr, gradient


@gradient("cumulative_logsumexp")
def _cumulative_logsumexp_grad(op, g):
    (x,), (out,) = op.inputs, op.outputs
    axis, exclusive, reverse = attr(op, "axis"), attr(op, "exclusive"), attr(op, "reverse")
    lowest = M.multiply(A.ones_like(g), float(g.dtype.min))

    def part(mask, magnitude):
        log_g = M.where(mask, M.log(M.where(mask, magnitude, A.ones_like(g))), lowest)
        return M.exp(M.add(L.cumulative_logsumexp(M.subtract(log_g, out), axis,
                                                  exclusive=exclusive, reverse=not reverse), x))
    zero = A.zeros_like(g)
    return [M.subtract(part(M.greater(g, zero), g), part(M.less(g, zero), M.negative(g)))]
