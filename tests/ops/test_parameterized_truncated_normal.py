"""tf.random.stateless_parameterized_truncated_normal: flowjit's values are its own (TF draws
from Philox), so these check what TF guarantees: samples inside the bounds, the truncated
normal's mean and variance, the same values for the same seed in every mode, other values
for another seed, and TF's implicit gradient (recomputed in NumPy from the samples)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import flowjit as tf

sample = tf.random.stateless_parameterized_truncated_normal


def _phi(x):
    return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def _cdf(x):
    return 0.5 * math.erfc(-x / math.sqrt(2))


def _moments(mean, std, lo, hi):
    a, b = (lo - mean) / std, (hi - mean) / std
    mass = _cdf(b) - _cdf(a)
    shift = (_phi(a) - _phi(b)) / mass
    var = 1 + (a * _phi(a) - b * _phi(b)) / mass - shift ** 2
    return mean + std * shift, std * std * var


@pytest.mark.parametrize("mean,std,lo,hi", [(1.0, 2.0, 0.0, 5.0), (0.0, 1.0, 6.0, 7.0),
                                            (-3.0, 0.5, -10.0, -3.0), (0.0, 1.0, -2.0, 2.0)])
def test_samples_follow_the_truncated_normal(mean, std, lo, hi):
    n = 100000
    x = sample([n], [3, 4], means=mean, stddevs=std, minvals=lo, maxvals=hi).numpy()
    want_mean, want_var = _moments(mean, std, lo, hi)
    assert lo <= x.min() and x.max() <= hi
    assert abs(x.mean() - want_mean) < 5 * math.sqrt(want_var / n)
    assert abs(x.var() - want_var) < 0.02 * want_var


def test_per_element_parameters_broadcast_over_the_leading_dims():
    x = sample([20000, 3], [1, 2], means=[0.0, 10.0, -5.0], stddevs=[1.0, 0.1, 2.0],
               minvals=[-1.0, 9.0, -5.0], maxvals=[1.0, 10.0, float("inf")]).numpy()
    assert x.shape == (20000, 3)
    for col, (mean, std, lo, hi) in enumerate([(0.0, 1.0, -1.0, 1.0), (10.0, 0.1, 9.0, 10.0),
                                               (-5.0, 2.0, -5.0, 1e9)]):
        want_mean, want_var = _moments(mean, std, lo, hi)
        assert lo <= x[:, col].min() and x[:, col].max() <= hi
        assert abs(x[:, col].mean() - want_mean) < 5 * math.sqrt(want_var / 20000)


def test_the_seed_decides_the_values_in_every_mode():
    def draw(seed):
        return sample([5], seed, means=[0.0, 1.0, 2.0, 3.0, 4.0], maxvals=6.0)
    eager = draw([7, 8]).numpy()
    graph = tf.function(draw)(tf.constant([7, 8])).numpy()
    xla = tf.function(draw, jit_compile=True)(tf.constant([7, 8])).numpy()
    np.testing.assert_array_equal(eager, graph)
    np.testing.assert_allclose(eager, xla, rtol=1e-6)
    assert not np.allclose(eager, draw([7, 9]).numpy())
    assert sample([2], [1, 2], means=tf.constant(0.0, tf.float64)).dtype == tf.float64


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
def test_gradient_is_tfs_implicit_one(mode):
    params = [tf.constant([0.0, 1.0]), tf.constant(2.0), tf.constant(-1.0), tf.constant(3.0)]
    upstream = np.arange(1.0, 9.0, dtype=np.float32).reshape(4, 2)

    def run(mean, std, lo, hi):
        with tf.GradientTape() as tape:
            tape.watch([mean, std, lo, hi])
            x = sample([4, 2], [5, 6], means=mean, stddevs=std, minvals=lo, maxvals=hi)
            loss = tf.reduce_sum(x * upstream)
        return x, tape.gradient(loss, [mean, std, lo, hi])
    if mode != "eager":
        run = tf.function(run, jit_compile=mode == "xla")
    x, grads = run(*params)
    x = x.numpy().astype(np.float64)
    mean = np.array([0.0, 1.0])
    z, a, b = (x - mean) / 2.0, (-1.0 - mean) / 2.0, (3.0 - mean) / 2.0
    cdf = np.vectorize(_cdf)
    u = (cdf(z) - cdf(a)) / (cdf(b) - cdf(a))
    d_max = np.exp(0.5 * (z ** 2 - b ** 2)) * u
    d_min = np.exp(0.5 * (z ** 2 - a ** 2)) * (1 - u)
    want = [upstream.sum(0), (upstream * z).sum(), (upstream * d_min).sum(),
            (upstream * d_max).sum()]
    for got, expected in zip(grads, want):
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-4)
