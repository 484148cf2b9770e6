"""The running logsumexp: np.logaddexp.accumulate (pairwise, exact for -inf and +inf) in the
input's compute type (float32 for the half floats)."""
from __future__ import annotations

import numpy as np

from . import kernel
from .reduce import _scan


def _logaddexp_accumulate(x, axis, dtype):
    with np.errstate(invalid="ignore"):
        return np.logaddexp.accumulate(x.astype(dtype), axis=axis)


kernel("cumulative_logsumexp")(_scan(_logaddexp_accumulate, -np.inf))
