"""tf.nn composites (frontend/ops/nn_composites.py) in every mode against NumPy, with
gradients against central differences."""
from __future__ import annotations

import numpy as np
import pytest

import flowjit as tf
from composite_helpers import check_composite
from flowjit.ir.errors import InvalidArgumentError

RNG = np.random.default_rng(3)


def test_crelu():
    x = RNG.standard_normal((3, 4))
    check_composite(tf.nn.crelu, [x], np.concatenate([np.maximum(x, 0), np.maximum(-x, 0)], -1),
                    grad=(0,))


def test_losses():
    targets = np.array([0, 0.5, 1, 2, 10.0])
    log_input = RNG.standard_normal(5)
    base = np.exp(log_input) - log_input * targets
    stirling = np.where(targets > 1, targets * np.log(np.where(targets > 1, targets, 1))
                        - targets + 0.5 * np.log(2 * np.pi * np.where(targets > 1, targets, 1)),
                        0)
    check_composite(lambda t, l: tf.nn.log_poisson_loss(t, l), [targets, log_input], base,
                    grad=(1,))
    check_composite(lambda t, l: tf.nn.log_poisson_loss(t, l, compute_full_loss=True),
                    [targets, log_input], base + stirling, grad=(1,))
    z = RNG.uniform(0, 1, (2, 3))
    q = 2.5

    def want(x):
        return -(q * z * np.log(1 / (1 + np.exp(-x))) + (1 - z) * np.log(1 / (1 + np.exp(x))))
    loss = lambda a, b: tf.nn.weighted_cross_entropy_with_logits(a, b, q)
    x = np.array([[-30.0, 0.0, 2.0], [40.0, -1.0, 0.5]])
    check_composite(loss, [z, x], want(x))
    x = np.array([[-30.0, 0.3, 2.0], [40.0, -1.0, 0.5]])   # no kink of |x| at 0
    check_composite(loss, [z, x], want(x), grad=(0, 1))


def test_moments_family():
    x = RNG.standard_normal((3, 4))
    count, m, v, shift = tf.nn.sufficient_statistics(x, [0], shift=0.5)
    np.testing.assert_allclose(count.numpy(), 3)
    np.testing.assert_allclose(m.numpy(), (x - 0.5).sum(0))
    np.testing.assert_allclose(v.numpy(), ((x - 0.5) ** 2).sum(0))
    check_composite(lambda t: tf.nn.normalize_moments(*tf.nn.sufficient_statistics(
        t, [1], shift=0.25)), [x], [x.mean(1), x.var(1)], grad=(0,), rtol=1e-10)
    w = np.array([[1.0, 0, 2, 1], [0, 0, 0, 0], [3, 1, 1, 1]])
    mean = (w * x).sum(1) / np.where(w.sum(1) == 0, 1, w.sum(1))
    var = (w * (x - mean[:, None]) ** 2).sum(1) / np.where(w.sum(1) == 0, 1, w.sum(1))
    check_composite(lambda t, f: tf.nn.weighted_moments(t, [1], f), [x, w], [mean, var],
                    grad=(0,))


def test_average_loss():
    loss = RNG.uniform(0, 2, 6)
    check_composite(tf.nn.compute_average_loss, [loss], loss.sum() / 6, grad=(0,))
    weights = RNG.uniform(0, 1, 6)
    check_composite(lambda l, s: tf.nn.compute_average_loss(l, s, global_batch_size=12),
                    [loss, weights], (loss * weights).sum() / 12, grad=(0,))
    check_composite(tf.nn.compute_average_loss, [np.zeros(0)], np.float64(0))
    check_composite(lambda l: tf.nn.scale_regularization_loss([l, 2 * l]), [loss], 3 * loss,
                    grad=(0,))
    with pytest.raises(TypeError, match="floating point"):
        tf.nn.compute_average_loss(np.array([1, 2], np.int32))


def _space_to_depth(x, b):
    n, h, w, c = x.shape
    return x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5).reshape(
        n, h // b, w // b, b * b * c)


@pytest.mark.parametrize("block", [2, 3])
def test_space_and_depth(block):
    x = RNG.standard_normal((2, 6, 6, 2))
    y = _space_to_depth(x, block)
    check_composite(lambda t: tf.nn.space_to_depth(t, block), [x], y, grad=(0,))
    check_composite(lambda t: tf.nn.depth_to_space(t, block), [y], x, grad=(0,))
    with pytest.raises(InvalidArgumentError, match="divisible"):
        tf.nn.space_to_depth(np.zeros((1, 4, 5, 1)), 2)
    with pytest.raises(InvalidArgumentError, match="divisible"):
        tf.nn.depth_to_space(np.zeros((1, 1, 1, 3)), 2)


@pytest.mark.parametrize("stride,padding", [(1, "SAME"), (2, "VALID"), (2, "SAME")])
def test_conv1d(stride, padding):
    x = RNG.standard_normal((2, 7, 3))
    f = RNG.standard_normal((3, 3, 4))
    if padding == "SAME":
        out_w = -(-7 // stride)
        total = max((out_w - 1) * stride + 3 - 7, 0)
        xp = np.pad(x, [[0, 0], [total // 2, total - total // 2], [0, 0]])
    else:
        out_w = (7 - 3) // stride + 1
        xp = x
    want = np.stack([np.einsum("bki,kio->bo", xp[:, i * stride:i * stride + 3], f)
                     for i in range(out_w)], 1)
    check_composite(lambda a, b: tf.nn.conv1d(a, b, stride, padding), [x, f], want,
                    grad=(0, 1), rtol=1e-10)


def test_in_top_k():
    p = np.array([[0.1, 0.3, 0.3, 0.2], [np.nan, 1, 2, 3], [1, 2, 0, 0], [4, 4, 4, 4]], np.float32)
    t = np.array([2, 3, 5, 3], np.int32)
    for k, want in ((0, [0, 0, 0, 0]), (1, [1, 0, 0, 1]), (3, [1, 0, 0, 1])):
        check_composite(lambda a, b: tf.nn.in_top_k(a, b, k), [t, p], np.array(want, bool))
    # Target 3 of row 2 has value 0, tied with column 2: two values above it.
    check_composite(lambda a, b: tf.nn.in_top_k(a, b, 2), [np.array([3], np.int32), p[2:3]],
                    np.array([False]))
    check_composite(lambda a, b: tf.nn.in_top_k(a, b, 3), [np.array([3], np.int32), p[2:3]],
                    np.array([True]))
