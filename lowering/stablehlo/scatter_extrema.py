"""tensor_scatter_nd_min/max under XLA: a scatter combining with minimum/maximum (indices
out of range are skipped, as TF's XLA kernels do)."""
from __future__ import annotations

from ...runtime.jax_internals import hlo
from .array import _nothing_to_scatter, scatter
from .core import register_lowering


def _extreme(combine):
    def rule(ctx, op, tensor, indices, updates):
        if _nothing_to_scatter(ctx, tensor, indices):
            return tensor
        return scatter(ctx, tensor, indices, updates, combine)
    return rule


register_lowering("tensor_scatter_nd_min")(_extreme(hlo.minimum))
register_lowering("tensor_scatter_nd_max")(_extreme(hlo.maximum))
