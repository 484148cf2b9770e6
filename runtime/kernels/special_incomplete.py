"""NumPy kernels of the incomplete gamma and beta functions: SciPy's (Cephes, as TF's Eigen
kernels), in float64 and rounded once to the input's type, with TF's NaN outside the domain
(a <= 0, x < 0; for betainc a or b <= 0, x outside [0, 1]).

dP/da has no SciPy function: it is the five-point central difference of whichever of P and
Q = 1 - P is smaller (the other one's difference cancels), in float64 with a step of 1e-3
of a, or of sqrt(a) from a = 1 (P changes over a width of sqrt(a) there): truncation and
rounding errors both near 1e-12 relative, far below float32's resolution and TF's own
series' float64 error (TF sums a series differentiated in a).

From a = ASYMPTOTIC_A on, P, Q and dP/da are Temme's uniform asymptotic expansion (its first
two terms), exact to 2e-13 there and better as a grows, in every mode: the series
(SciPy's, TF's, XLA's) lose digits to cancellation from about a = 1e5 (igammac(1e8, 1e8) is
0.4999932 in TF, 0.4999867 exactly) and XLA's, like TF's, never ends near a = 1e30."""
from __future__ import annotations

import numpy as np

from . import kernel
from .special_math import _sc


ASYMPTOTIC_A = 1e4
# Temme's C_0(eta) and C_1(eta), lowest power first (enough for a >= ASYMPTOTIC_A, where only
# |eta| < 0.1 leaves a term above float64's resolution)
_TEMME = ((-1 / 3, 1 / 12, -2 / 135, 1 / 864, 1 / 2835), (-1 / 540, -1 / 288, 1 / 378))


def _log1pmx(xp, s):
    """log(1 + s) - s, by its series near 0 where the difference cancels."""
    small = xp.abs(s) < 0.01
    t = xp.where(small, s, 0.0)
    series = sum((-1) ** (k + 1) * t ** k / k for k in range(2, 12))
    far = xp.where(xp.isinf(s), -xp.inf, xp.log1p(xp.where(small, 0.0, s)) - s)
    return xp.where(small, series, far)


def igamma_asymptotic(xp, erfc, a, x):
    """(P, Q, dP/da) of float64 arrays a > 0, x >= 0 by Temme's expansion, for `xp` NumPy or
    jax.numpy and its `erfc`: Q = erfc(eta sqrt(a/2)) / 2 + E (C0(eta) + C1(eta) / a) with
    E = exp(-a eta^2 / 2) / sqrt(2 pi a), eta^2 / 2 = lambda - 1 - log(lambda), lambda = x / a,
    and dQ/da differentiated from it (deta/da = -rho / a, rho = (lambda - 1) / eta)."""
    s = xp.where(xp.isinf(a), -1.0, (x - a) / a)   # a = inf: P = 0, as TF's
    eta = xp.sign(s) * xp.sqrt(-2 * _log1pmx(xp, s))
    rho = xp.where(s == 0, 1.0, s / xp.where(eta == 0, 1.0, eta))
    e = xp.exp(-a * eta * eta / 2) / xp.sqrt(2 * np.pi * a)
    y = eta * xp.sqrt(a / 2)
    c = [xp.polyval(np.array(ck[::-1]), eta) for ck in _TEMME]
    dc = [xp.polyval(np.polyder(ck[::-1]), eta) for ck in _TEMME]   # dC_k/deta
    series = sum(ck / a ** k for k, ck in enumerate(c))
    drift = s - eta * eta / 2    # d(-a eta^2 / 2)/da
    d_series = sum((ck * (drift - (k + 0.5) / a) - dck * rho / a) / a ** k
                   for k, (ck, dck) in enumerate(zip(c, dc)))
    # where E underflows, eta is far out (infinite for x = 0 or inf) and the terms are 0
    tail = xp.where(e == 0, 0.0, e * series)
    dq = xp.where(e == 0, 0.0, e * (rho - eta / 2 + d_series))
    return erfc(-y) / 2 - tail, erfc(y) / 2 + tail, -dq


def tf_domain(xp, name, a, x, out):
    """`out` inside the domain a > 0, x >= 0; TF's kernels' NaN outside it (a NaN operand
    included) and their values at its edges: igamma(a, 0) is 0 for every a, igammac(a, inf)
    0 for every a > 0 (inf too, where P is 0 as well)."""
    out = xp.where((a > 0) & (x >= 0), out, xp.nan)
    if name == "igamma":
        out = xp.where(x == 0, 0.0, out)
    elif name == "igammac":
        out = xp.where((a > 0) & (x == np.inf), 0.0, out)
    return out


def _asymptotic_or(name, a, x, pick, exact):
    """igamma_asymptotic's result `pick` where a >= ASYMPTOTIC_A, `exact(a, x)` elsewhere,
    in TF's domain."""
    a, x = np.broadcast_arrays(a, x)
    big = a >= ASYMPTOTIC_A
    with np.errstate(all="ignore"):
        out = exact(a, x)
        if big.any():
            out = np.where(big, igamma_asymptotic(np, _sc().erfc, a, x)[pick], out)
    return tf_domain(np, name, a, x, out)


def _igamma(a, x):
    return _asymptotic_or("igamma", a, x, 0, _sc().gammainc)


def _igammac(a, x):
    return _asymptotic_or("igammac", a, x, 1, _sc().gammaincc)


def _central_difference(a, x):
    h = 1e-3 * np.minimum(a, np.sqrt(a))
    upper = _sc().gammaincc(a, x) < 0.5

    def f(shift):
        at = a + shift * h
        return np.where(upper, -_sc().gammaincc(at, x), _sc().gammainc(at, x))
    return (f(-2) - 8 * f(-1) + 8 * f(1) - f(2)) / (12 * h)


def _igamma_grad_a(a, x):
    return _asymptotic_or("igamma_grad_a", a, x, 2, _central_difference)


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
