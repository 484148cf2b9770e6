"""Special functions NumPy lacks. Computed in float64 and cast back, so float32 results are
correctly rounded to well within rtol 1e-6."""
from __future__ import annotations

import math

import numpy as np

_erf64 = np.frompyfunc(math.erf, 1, 1)


_erfc64 = np.frompyfunc(math.erfc, 1, 1)


def erfc(x):
    x = np.asarray(x)
    return _erfc64(x.astype(np.float64).reshape(-1)).astype(x.dtype).reshape(x.shape)


def erf(x):
    x = np.asarray(x)
    return _erf64(x.astype(np.float64)).astype(x.dtype)
