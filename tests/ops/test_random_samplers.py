"""tf.random's samplers (categorical, shuffle, gamma, poisson, binomial, split, fold_in): their values
come from flowjit's Threefry streams, not TF's Philox ones, so the tests check what TF
promises: shapes and dtypes, determinism in the seed, the same values in every mode, and the
distributions' moments and edge cases (impossible classes, rate and shape 0)."""
from __future__ import annotations

import numpy as np
import pytest

import flowjit as tf

SEED = [3, 4]
MODES = ("eager", "graph", "xla")


def _in_mode(fn, mode):
    return fn if mode == "eager" else tf.function(fn, jit_compile=mode == "xla",
                                                  autograph=False)


def _draw_all(logits, alpha, lam, counts, probs):
    return (tf.random.stateless_categorical(logits, 4000, SEED),
            tf.random.stateless_gamma([20000, 4], SEED, alpha),
            tf.random.stateless_poisson([20000, 5], SEED, lam),
            tf.random.split(SEED, 3), tf.random.fold_in(SEED, 7),
            tf.random.stateless_binomial([20000, 8], SEED, counts, probs))


ARGS = (np.array([[0.0, np.log(3.0), -np.inf], [5.0, 5.0, 5.0]], np.float32),
        np.array([0.0, 0.3, 1.0, 7.5], np.float32),
        np.array([0.0, 2.5, 9.9, 10.0, 40.0], np.float32),
        # both sides of the switch to BTRS at mean 10, p mirrored above 0.5, p 0 and 1
        np.array([0.0, 5.0, 10.0, 20.0, 100.0, 1000.0, 7.0, 50.0], np.float32),
        np.array([0.3, 1.0, 0.5, 0.1, 0.3, 0.02, 0.0, 0.9], np.float32))


@pytest.fixture(scope="module")
def eager_draws():
    return [t.numpy() for t in _draw_all(*(tf.constant(a) for a in ARGS))]


@pytest.mark.parametrize("mode", ["graph", "xla"])
def test_every_mode_draws_the_same_values(mode, eager_draws):
    got = _in_mode(_draw_all, mode)(*(tf.constant(a) for a in ARGS))
    for g, want in zip(got, eager_draws):
        assert g.dtype.np == want.dtype and g.shape == want.shape
        np.testing.assert_allclose(g.numpy(), want, rtol=1e-5)


def test_distributions_have_their_moments(eager_draws):
    classes, gammas, counts, seeds, folded, successes = eager_draws
    assert classes.dtype == np.int64 and classes.shape == (2, 4000)
    freq = [np.bincount(row, minlength=3) / row.size for row in classes]
    np.testing.assert_allclose(freq[0], [0.25, 0.75, 0.0], atol=0.03)
    np.testing.assert_allclose(freq[1], [1 / 3] * 3, atol=0.03)
    assert gammas.dtype == np.float32
    # alpha 0 gives the smallest normal float, as TF
    assert np.all(gammas[:, 0] == np.finfo(np.float32).tiny)
    np.testing.assert_allclose(gammas[:, 1:].mean(0), ARGS[1][1:], rtol=0.05)
    np.testing.assert_allclose(gammas[:, 1:].var(0), ARGS[1][1:], rtol=0.08)
    assert counts.dtype == np.int32 and np.all(counts[:, 0] == 0)
    # both sides of the switch from waiting times to PTRS at rate 10
    np.testing.assert_allclose(counts[:, 1:].mean(0), ARGS[2][1:], rtol=0.03)
    np.testing.assert_allclose(counts[:, 1:].var(0), ARGS[2][1:], rtol=0.08)
    assert seeds.shape == (3, 2) and seeds.dtype == np.int32 and len({*map(tuple, seeds)}) == 3
    assert folded.tolist()[1] == 7 and folded.dtype == np.int32
    n, p = ARGS[3], ARGS[4]
    assert successes.dtype == np.int32 and np.all((successes >= 0) & (successes <= n))
    np.testing.assert_allclose(successes.mean(0), n * p, rtol=0.03, atol=0.01)
    np.testing.assert_allclose(successes.var(0), n * p * (1 - p), rtol=0.08, atol=0.01)


def test_stateless_draws_are_functions_of_the_seed():
    a = tf.random.stateless_gamma([5], [1, 2], 2.0).numpy()
    np.testing.assert_array_equal(a, tf.random.stateless_gamma([5], [1, 2], 2.0).numpy())
    assert not np.array_equal(a, tf.random.stateless_gamma([5], [1, 3], 2.0).numpy())


def test_beta_scales_gamma_and_shapes_follow_tf():
    a = tf.random.stateless_gamma([3, 2], SEED, [1.0, 2.0], beta=[[1.0], [4.0], [2.0]],
                                  dtype=tf.float64)
    b = tf.random.stateless_gamma([3, 2], SEED, [1.0, 2.0], dtype=tf.float64)
    np.testing.assert_allclose(a.numpy() * [[1.0], [4.0], [2.0]], b.numpy(), rtol=1e-12)
    assert tf.random.gamma([4], [[1.0, 2.0, 3.0]]).shape == (4, 1, 3)
    assert tf.random.poisson([4, 2], [1.0, 2.0, 3.0]).shape == (4, 2, 3)
    assert tf.random.poisson([2], 3.0, dtype=tf.int64).dtype == tf.int64
    assert tf.random.stateless_poisson([2], SEED, 3.0, dtype=tf.float64).dtype == tf.float64
    assert tf.random.categorical([[0.0, 1.0]], 0).shape == (1, 0)
    assert tf.random.stateless_categorical([[0.0, 1.0]], 3, SEED, dtype=tf.int32).dtype \
        == tf.int32


def test_gamma_gradient_is_unbiased_in_alpha():
    """d E[x]/d alpha = 1 and d E[x^2]/d alpha = 2 alpha + 1 for Gamma(alpha, 1)."""
    alpha = tf.constant([0.3, 4.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(alpha)
        x = tf.random.stateless_gamma([50000, 2], [5, 6], alpha)
        mean, second = tf.reduce_mean(x, 0), tf.reduce_mean(x * x, 0)
    np.testing.assert_allclose(tape.gradient(mean, alpha).numpy(), [1.0, 1.0], rtol=0.04)
    np.testing.assert_allclose(tape.gradient(second, alpha).numpy(), [1.6, 9.0], rtol=0.04)


def test_shuffle_permutes_the_first_dimension_without_gradient():
    x = tf.constant(np.arange(24.0).reshape(12, 2))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.random.shuffle(x, seed=5)
    rows = y.numpy()
    assert sorted(rows[:, 0].tolist()) == list(range(0, 24, 2))
    np.testing.assert_array_equal(rows[:, 1], rows[:, 0] + 1)
    assert not np.array_equal(rows, x.numpy())
    assert tape.gradient(y, x) is None
    assert tf.random.shuffle(3.0).numpy() == 3.0


@pytest.mark.parametrize("mode", MODES)
def test_stateful_samplers_run_in_every_mode(mode):
    tf.random.set_seed(11)
    fn = _in_mode(lambda x: (tf.random.shuffle(x), tf.random.categorical([[0.0, 0.0]], 6),
                             tf.random.gamma([3], 2.0), tf.random.poisson([3], 2.0)), mode)
    shuffled, classes, gammas, counts = fn(tf.constant(np.arange(6)))
    assert sorted(shuffled.numpy().tolist()) == list(range(6))
    assert classes.shape == (1, 6) and set(classes.numpy().ravel()) <= {0, 1}
    assert gammas.shape == (3,) and np.all(gammas.numpy() > 0)
    assert counts.dtype == tf.float32 and np.all(counts.numpy() >= 0)


def test_bad_arguments_raise_tf_classes():
    with pytest.raises(tf.errors.InvalidArgumentError, match="logits should be a matrix"):
        tf.random.stateless_categorical([0.0, 1.0], 4, SEED)
    with pytest.raises(tf.errors.InvalidArgumentError, match="must end with broadcasted"):
        tf.random.stateless_gamma([3], SEED, [1.0, 2.0])
    with pytest.raises(TypeError):
        tf.random.stateless_poisson([3], SEED, 1.0, dtype=tf.bool)
    with pytest.raises(tf.errors.InvalidArgumentError, match="must end with broadcasted"):
        tf.random.stateless_binomial([3], SEED, [1.0, 2.0], 0.5)
