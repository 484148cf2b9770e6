"""bitcast's NumPy kernel: a view of the input's bytes (little-endian, as TF on x86)."""
from __future__ import annotations

import numpy as np

from ...ir.dtypes import from_numpy
from ...ir.ops.bitcast import bitcast_shape
from . import kernel


@kernel("bitcast")
def bitcast(input, type):  # noqa: A002  (TF's names)
    x = np.asarray(input)    # (np.ascontiguousarray would make a scalar 1-d)
    shape = bitcast_shape(x.shape, from_numpy(x.dtype), type)
    return np.ascontiguousarray(x).reshape(-1).view(type.np).reshape(shape)
