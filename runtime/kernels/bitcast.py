"""The NumPy kernel of `tf.bitcast`: a view of the same bytes."""
from __future__ import annotations

import numpy as np

from . import kernel


@kernel("bitcast")
def bitcast(x, type):
    x = np.ascontiguousarray(x)
    target = np.dtype(type.np)
    if target.itemsize < x.itemsize:   # each element becomes a last axis of narrower ones
        return x.reshape(x.shape + (1,)).view(target)
    out = x.view(target)
    return out.reshape(out.shape[:-1]) if target.itemsize > x.itemsize else out
