"""NumPy kernels of tensor_scatter_nd_min/max (out-of-range indices raise, as TF's CPU
kernels)."""
from __future__ import annotations

import numpy as np

from . import kernel
from .array import _infer, _scatter_into


def _extreme(name, mode):
    def fn(tensor, indices, updates):
        _infer(name, [tensor, indices, updates], {})
        return _scatter_into(np.array(tensor, order="C"), indices, updates, mode)
    return fn


kernel("tensor_scatter_nd_min")(_extreme("tensor_scatter_nd_min", "min"))
kernel("tensor_scatter_nd_max")(_extreme("tensor_scatter_nd_max", "max"))
