"""The regularized incomplete gamma functions P(a, x), Q(a, x) and dP/da where a is large, in
every mode. From a = 1e4 on they are Temme's asymptotic expansion (README, Differences from
TF): TF 2.21's series lose digits there (dP/da at a = x = 1e5 is -0.000901 in TF, -0.0012616
exactly) and never end near a = 1e30. The references are mpmath's at 40 digits:
`mpmath.gammainc(a, x, mpmath.inf, regularized=True)`, and dP/da as the central difference
of `mpmath.gammainc(s, 0, x, regularized=True)` with a step of 1e-15 a."""
from __future__ import annotations

import numpy as np
import pytest

import flowjit as tf
from flowjit.frontend.eager.dispatch import apply
from helpers import finishes

MODES = ["eager", "graph", "xla"]
A = np.array([1e6, 1e6, 1e6, 100.0, 9000.0])
X = np.array([1e6, 999000.0, 1002000.0, 90.0, 9100.0])
Q_MPMATH = [0.49986701923912741, 0.84134478642569635, 0.022804095898769863]
DP_DA_MPMATH = [-0.0003989423136466252, -0.00024201106639974455, -5.4080860028467674e-5,
                -0.02461191684397991, -0.0024092891622232885]


def _run(fn, mode, *args):
    f = fn if mode == "eager" else tf.function(fn, jit_compile=mode == "xla")
    return f(*[tf.constant(a) for a in args]).numpy()


@pytest.mark.parametrize("mode", MODES)
def test_large_a_matches_mpmath(mode):
    q = _run(tf.math.igammac, mode, A[:3], X[:3])
    p = _run(tf.math.igamma, mode, A[:3], X[:3])
    np.testing.assert_allclose(q, Q_MPMATH, rtol=1e-12)
    np.testing.assert_allclose(p, 1 - np.array(Q_MPMATH), rtol=1e-12)


@pytest.mark.parametrize("mode", MODES)
def test_derivative_in_a_matches_mpmath_on_both_sides_of_the_switch(mode):
    # a = 100 and 9000 take the central difference (a step of 1e-3 sqrt(a): one of 1e-3 a
    # was 1e-4 off at a = 1e4), a = 1e6 the expansion
    d = _run(lambda a, x: apply("igamma_grad_a", (a, x), {}), mode, A, X)
    np.testing.assert_allclose(d, DP_DA_MPMATH, rtol=1e-8)


@pytest.mark.parametrize("mode", MODES)
def test_huge_a_ends(mode):
    # fuzz seeds 363720, 366008: XLA's series looped forever at a = 1e30 (TF's too)
    a = np.array([1e30, 1e30, 1e30, 1e5, 1e5, np.inf], np.float32)
    x = np.array([1e30, 3.0, 1e31, 0.0, np.inf, 1.0], np.float32)
    out = []
    assert finishes(lambda: out.extend([
        _run(tf.math.igammac, mode, a, x),
        _run(lambda a, x: apply("igamma_grad_a", (a, x), {}), mode, a, x)]),
        seconds=60) is None
    q, d = out
    # TF 2.21 at a = 1e5 and a = inf: Q 1, 0, 1 and dP/da 0
    np.testing.assert_allclose(q, [0.5, 1.0, 0.0, 1.0, 0.0, 1.0], atol=1e-6)
    np.testing.assert_allclose(d, [-3.989423e-16, 0.0, 0.0, 0.0, 0.0, 0.0], rtol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_outside_the_domain_is_nan(mode):
    a = np.array([1e5, -1e5, np.nan, 1e5])
    x = np.array([-1.0, 1.0, 1e5, np.nan])
    for f in (tf.math.igamma, tf.math.igammac):
        assert np.isnan(_run(f, mode, a, x)).all()
