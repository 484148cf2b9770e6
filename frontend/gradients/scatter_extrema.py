"""Gradients of tensor_scatter_nd_min/max (TF's rule): the gradient of each element goes to
whichever of the original value and the updates sent to it equal the result, split evenly
among ties."""
from __future__ import annotations

from ..ops import array as A
from ..ops import math as M
from ._util import gradient


@gradient("tensor_scatter_nd_min", "tensor_scatter_nd_max")
def _extreme_grad(op, g):
    x, indices, updates = op.inputs
    out = op.outputs[0]
    x_chosen = M.cast(M.equal(x, out), g.dtype)
    updates_chosen = M.cast(M.equal(updates, A.gather_nd(out, indices)), g.dtype)
    chosen = M.add(x_chosen, A.scatter_nd(indices, updates_chosen, A.shape(x)))
    share = M.truediv(g, chosen)
    return [M.multiply(share, x_chosen), None,
            M.multiply(A.gather_nd(share, indices), updates_chosen)]
