"""NumPy kernels of the special functions: SciPy's implementations (Cephes, as TF's Eigen
kernels), computed in float64 and rounded once to the input's type. scipy.special loads on
the first call (seconds of import time `import flowjit` does not pay)."""
from __future__ import annotations

import functools
import importlib

import numpy as np

from . import kernel


@functools.cache
def _sc():
    return importlib.import_module("scipy.special")


def _softsign(x):
    return x / (1 + np.abs(x))


def hurwitz_left(xp, fn, s, q):
    """fn(q) at a negative, non-integer q from fn at positive arguments only, where fn(y) is
    c * zeta(s, y) for a whole s > 1 (polygamma of order s - 1 is such a multiple). Summed over
    every integer k, (q + k)^-s depends on q's fraction alone: zeta(s, f) + (-1)^s zeta(s, g)
    with f = q - floor(q) and g = ceil(q) - q (both exact, so a q near an integer keeps its
    pole's digits); zeta(s, q) leaves out the terms left of q, (-1)^s zeta(s, 1 - q).
    Cephes's direct sum (SciPy's and TF's float64 kernels) takes |q| steps, hours at
    q = -1e15 + 0.5, and TF's float32 kernel and XLA's fixed-length sum are wrong there."""
    f, g = q - xp.floor(q), xp.ceil(q) - q
    sign = 1 - 2 * xp.mod(s, 2)
    return fn(f) + sign * (fn(g) - fn(1 - q))


def hurwitz(xp, fn, s, q):
    """fn(q) everywhere: hurwitz_left's reflection at a negative q off the integers (NaN there
    unless s is whole), fn itself elsewhere; each evaluation gets an argument where it is
    fast (0.5 in place of the other side's)."""
    left = (q < 0) & (q != xp.floor(q))
    reflected = hurwitz_left(xp, fn, s, xp.where(left, q, 0.5))
    reflected = xp.where(s == xp.floor(s), reflected, xp.nan)
    return xp.where(left, reflected, fn(xp.where(left, 0.5, q)))


def _polygamma(n, x):
    """TF's polygamma: NaN unless the order n is a finite, non-negative integer; the
    derivatives of digamma vanish at +inf."""
    n, x = np.broadcast_arrays(n, x)
    whole = (n == np.floor(n)) & (n >= 0) & np.isfinite(n)
    order = np.where(whole, n, 0).astype(np.int64)
    out = hurwitz(np, lambda y: _sc().polygamma(order, y), order + 1, x)
    out = np.where((order > 0) & (x == np.inf), 0.0, out)
    # At a pole x = 0, -1, ... TF's order n is (-1)^(n+1) n! zeta(n+1, x), and its zeta is
    # +inf for an even n+1 but NaN for an odd one; order 0 is digamma, NaN there (SciPy:
    # -inf for every even order, +-inf for order 0 at +-0).
    pole = (x <= 0) & (x == np.floor(x))
    out = np.where(pole & (order % 2 == 0), np.nan, out)
    out = np.where(order == 0, _digamma(x), out)
    return np.where(whole, out, np.nan)


def _lgamma(x):
    """log |Gamma(x)|, +inf at -inf as TF's (SciPy's gammaln gives -inf there)."""
    return np.where(x == -np.inf, np.inf, _sc().gammaln(x))


def _digamma(x):
    """Psi; NaN at 0 as TF's (a pole of either sign: SciPy gives -inf)."""
    return np.where(x == 0, np.nan, _sc().psi(x))


def _zeta(x, q):
    """Hurwitz zeta as TF's: at a whole q <= 0 (-inf included) +inf for an even whole x > 1,
    NaN for any other x > 1 (SciPy: +inf for every x); at a negative q off the integers
    hurwitz's reflection (SciPy's value is wrong for a float x)."""
    x, q = np.broadcast_arrays(x, q)
    pole = (x > 1) & (q <= 0) & (q == np.floor(q))
    even = (x == np.floor(x)) & (np.fmod(x, 2) == 0)
    out = hurwitz(np, lambda y: _sc().zeta(x, y), x, q)
    return np.where(pole, np.where(even, np.inf, np.nan), out)


def _scipy(name):
    return lambda *args: getattr(_sc(), name)(*args)


UNARY = {
    "softsign": _softsign, "erfinv": _scipy("erfinv"), "ndtri": _scipy("ndtri"),
    "lgamma": _lgamma, "digamma": _digamma, "bessel_i0": _scipy("i0"),
    "bessel_i0e": _scipy("i0e"), "bessel_i1": _scipy("i1"), "bessel_i1e": _scipy("i1e"),
}
BINARY = {"polygamma": _polygamma, "zeta": _zeta, "nextafter": np.nextafter}


def _in_float64(fn):
    def run(*args):
        dtype = np.asarray(args[0]).dtype
        with np.errstate(all="ignore"):
            out = fn(*[np.asarray(a, np.float64) for a in args])
        return np.asarray(out).astype(dtype)
    return run


for _n, _f in UNARY.items():
    kernel(_n)(_in_float64(_f))
for _n, _f in BINARY.items():
    kernel(_n)(_in_float64(_f) if _n != "nextafter" else _f)
