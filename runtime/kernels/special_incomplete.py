"""NumPy kernels of the incomplete gamma and beta functions: SciPy's (Cephes, as TF's Eigen
kernels), in float64 and rounded once to the input's type, with TF's NaN outside the domain
(a <= 0, x < 0; for betainc a or b <= 0, x outside [0, 1]).

dP/da has no SciPy function: it is the five-point central difference of whichever of P and
Q = 1 - P is smaller (the other one's difference cancels), in float64 with a step of 1e-3
of a: truncation and rounding errors both near 1e-12 relative, far below float32's
resolution and TF's own series' float64 error (TF sums a series differentiated in a)."""
from __future__ import annotations

import numpy as np

from . import kernel
from .special_math import _sc


def _igamma(a, x):
    with np.errstate(all="ignore"):
        out = _sc().gammainc(a, x)
    return np.where((a > 0) & (x >= 0), out, np.nan)


def _igammac(a, x):
    with np.errstate(all="ignore"):
        out = _sc().gammaincc(a, x)
    return np.where((a > 0) & (x >= 0), out, np.nan)


def _igamma_grad_a(a, x):
    a, x = np.broadcast_arrays(a, x)
    h = 1e-3 * a
    upper = _igammac(a, x) < 0.5

    def f(shift):
        at = a + shift * h
        return np.where(upper, -_igammac(at, x), _igamma(at, x))
    with np.errstate(all="ignore"):
        return (f(-2) - 8 * f(-1) + 8 * f(1) - f(2)) / (12 * h)


def _betainc(a, b, x):
    with np.errstate(all="ignore"):
        out = _sc().betainc(a, b, x)
    return np.where((a > 0) & (b > 0) & (x >= 0) & (x <= 1), out, np.nan)


def _in_float64(fn):
    def run(*args):
        dtype = np.asarray(args[0]).dtype
        out = fn(*[np.asarray(v, np.float64) for v in args])
        return np.asarray(out).astype(dtype)
    return run


for _n, _f in {"igamma": _igamma, "igammac": _igammac, "igamma_grad_a": _igamma_grad_a,
               "betainc": _betainc}.items():
    kernel(_n)(_in_float64(_f))
