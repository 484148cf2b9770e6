"""The candidate samplers against TF 2.21's recorded deterministic answers
(tests/data/tf_candidate_samplers.json, tools/record_tf_candidate_samplers.py) in every mode,
and the random part by its invariants: classes in range (distinct with `unique`), each
sampled class's expected count from its probability, seeded calls repeat, and the classes'
frequencies over many draws follow the recorded probabilities."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import flowjit as tf
from oracle.candidate_sampler_cases import cases

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data",
                    "tf_candidate_samplers.json")
RECORDED = json.load(open(DATA))["cases"]
CASES = cases()
MODES = ("eager", "graph", "xla")


def _call(name, mode, **override):
    fn, kwargs = CASES[name]
    kwargs = dict(kwargs, **override)
    classes = kwargs.pop("true_classes")

    def run():
        return getattr(tf.random, fn)(tf.constant(classes, tf.int64), **kwargs)
    return run() if mode == "eager" else tf.function(run, jit_compile=mode == "xla")()


def _probabilities(name):
    """TF's probability of each class of the case's sampler."""
    key = name.split("-")[0]
    return np.asarray(RECORDED[f"{key}-probability"]["true_expected_count"][0], np.float64)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(n for n in CASES if not n.startswith("error")))
def test_matches_tf(name, mode):
    want = RECORDED[name]
    out = [o.numpy() for o in _call(name, mode)]
    assert [[tf.as_dtype(o.dtype).name, list(o.shape)] for o in out] == want["outputs"]
    sampled, true_count, sampled_count = out
    if "true_expected_count" in want:
        np.testing.assert_allclose(true_count, want["true_expected_count"], rtol=1e-6)
    if "sampled" in want:
        assert sampled.tolist() == want["sampled"]
        assert sampled_count.tolist() == want["sampled_expected_count"]
        return
    p = _probabilities(name)
    assert ((sampled >= 0) & (sampled < len(p))).all(), sampled
    assert (p[sampled] > 0).all(), "a class of probability 0 was drawn"
    n = len(sampled)
    if not CASES[name][1]["unique"]:
        np.testing.assert_allclose(sampled_count, p[sampled] * n, rtol=1e-6)
        return
    assert len(set(sampled.tolist())) == n
    # one number of tries explains every expected count: p * n when no draw was rejected
    true_p = p[np.asarray(CASES[name][1]["true_classes"])]
    tries = [t for t in range(n, 200) if np.allclose(
        sampled_count, p[sampled] * n if t == n else -np.expm1(t * np.log1p(-p[sampled])),
        rtol=1e-5)]
    assert tries, sampled_count
    t = tries[0]
    np.testing.assert_allclose(
        true_count, true_p * n if t == n else -np.expm1(t * np.log1p(-true_p)), rtol=1e-5)


@pytest.mark.parametrize("name", sorted(n for n in CASES if n.startswith("error")))
def test_errors_match_tf(name):
    want = RECORDED[name]
    with pytest.raises(Exception) as info:
        _call(name, "eager")
    assert type(info.value).__name__ == want["error"]
    assert want["message"] in str(info.value)


@pytest.mark.parametrize("key", ["uniform", "log_uniform", "unigram", "unigram_shard",
                                 "learned"])
def test_frequencies_follow_probabilities(key):
    p = _probabilities(key)
    draws = 20000
    sampled = _call(f"{key}-uniqueFalse", "eager", num_sampled=draws, seed=11)[0].numpy()
    freq = np.bincount(sampled, minlength=len(p)) / draws
    # 5 standard deviations of a binomial frequency
    np.testing.assert_array_less(np.abs(freq - p), 5 * np.sqrt(p * (1 - p) / draws) + 1e-12)


def test_unique_draws_cover_the_range():
    sampled = _call("log_uniform-uniqueTrue", "graph", num_sampled=10)[0].numpy()
    assert sorted(sampled.tolist()) == list(range(10))


@pytest.mark.parametrize("mode", MODES)
def test_seeded_calls_repeat(mode):
    def twice():
        tf.random.set_seed(5)
        first = _call("unigram-uniqueTrue", mode, seed=3)[0].numpy()
        tf.random.set_seed(5)
        return first, _call("unigram-uniqueTrue", mode, seed=3)[0].numpy()
    first, again = twice()
    assert first.tolist() == again.tolist()


def test_nn_names_are_the_same_functions():
    for fn in ("uniform_candidate_sampler", "log_uniform_candidate_sampler",
               "fixed_unigram_candidate_sampler", "all_candidate_sampler",
               "learned_unigram_candidate_sampler"):
        assert getattr(tf.nn, fn) is getattr(tf.random, fn)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("loss", ["nce_loss", "sampled_softmax_loss"])
def test_sampled_losses_draw_their_own_classes(loss, mode):
    """Without sampled_values the losses draw log-uniform classes (unique): one finite loss
    per example, gradients for the table rows of the true and sampled classes only."""
    table = tf.constant(np.arange(60, dtype=np.float32).reshape(20, 3) % 7 / 4 - 0.5)
    biases = tf.zeros([20])
    inputs = tf.constant([[1.0, -1.0, 0.5], [0.0, 2.0, 1.0]])

    def run():
        with tf.GradientTape() as tape:
            tape.watch(table)
            out = getattr(tf.nn, loss)(table, biases, tf.constant([[1], [4]]), inputs, 3, 20)
        return out, tf.convert_to_tensor(tape.gradient(out, table))
    out, grad = run() if mode == "eager" else tf.function(run, jit_compile=mode == "xla")()
    assert out.shape == [2] and np.isfinite(out.numpy()).all()
    touched = np.flatnonzero(np.abs(grad.numpy()).sum(1))
    assert {1, 4} <= set(touched.tolist()) and len(touched) <= 2 + 3
