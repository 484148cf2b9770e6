"""An MLP's gradients against hand-derived NumPy backpropagation, eagerly, traced into a graph
and under XLA; and a TF2-style training step giving the same result in all three modes and
the same as a NumPy training loop."""
import numpy as np
import pytest

import flowjit as tf
from helpers import assert_close

MODES = ["eager", "graph", "xla"]


def _wrap(fn, mode):
    return fn if mode == "eager" else tf.function(fn, jit_compile=(mode == "xla"))


def _data(dtype, batch=6, sizes=(5, 7, 4)):
    rng = np.random.default_rng(42)
    x = rng.normal(size=(batch, sizes[0])).astype(dtype)
    labels = rng.integers(0, sizes[-1], size=batch).astype(np.int32)
    params = []
    for a, b in zip(sizes, sizes[1:]):
        params.append(rng.normal(size=(a, b)).astype(dtype) * 0.5)
        params.append(rng.normal(size=(b,)).astype(dtype) * 0.1)
    return x, labels, params


def _numpy_mlp_grads(x, labels, w1, b1, w2, b2):
    """Forward and backward of mean sparse softmax cross-entropy of relu MLP, by hand."""
    z1 = x @ w1 + b1
    h = np.maximum(z1, 0)
    logits = h @ w2 + b2
    m = logits.max(axis=1, keepdims=True)
    e = np.exp(logits - m)
    p = e / e.sum(axis=1, keepdims=True)
    n = x.shape[0]
    loss = -np.log(p[np.arange(n), labels]).mean()
    dlogits = p.copy()
    dlogits[np.arange(n), labels] -= 1
    dlogits /= n
    dw2 = h.T @ dlogits
    db2 = dlogits.sum(0)
    dz1 = (dlogits @ w2.T) * (z1 > 0)
    return loss, [x.T @ dz1, dz1.sum(0), dw2, db2]


def _mlp_loss(x, labels, w1, b1, w2, b2):
    h = tf.nn.relu(tf.matmul(x, w1) + b1)
    logits = tf.matmul(h, w2) + b2
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mlp_gradients_match_numpy(mode, dtype):
    x, labels, params = _data(dtype)
    vs = [tf.Variable(p) for p in params]

    def step(x, labels):
        with tf.GradientTape() as t:
            loss = _mlp_loss(x, labels, *vs)
        return loss, t.gradient(loss, vs)

    loss, grads = _wrap(step, mode)(tf.constant(x), tf.constant(labels))
    ref_loss, ref = _numpy_mlp_grads(x.astype(np.float64), labels,
                                     *[p.astype(np.float64) for p in params])
    rtol = 1e-5 if dtype == np.float32 else 1e-10
    assert_close(loss, np.asarray(ref_loss, dtype), rtol=rtol, atol=rtol)
    for g, r in zip(grads, ref):
        assert g.dtype == tf.as_dtype(dtype)
        assert_close(g, r.astype(dtype), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("mode", MODES)
def test_tanh_mse_gradients_wrt_inputs_and_weights(mode):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, 3)).astype(np.float32)
    y = rng.normal(size=(4, 2)).astype(np.float32)
    w = rng.normal(size=(3, 2)).astype(np.float32)
    wv = tf.Variable(w)

    def step(x, y):
        with tf.GradientTape() as t:
            t.watch(x)
            d = tf.tanh(tf.matmul(x, wv)) - y
            loss = tf.reduce_mean(d * d)
        return t.gradient(loss, [x, wv])

    gx, gw = _wrap(step, mode)(tf.constant(x), tf.constant(y))
    a = np.tanh(x @ w)
    dz = 2 * (a - y) / a.size * (1 - a * a)
    assert_close(gx, dz @ w.T, rtol=1e-5, atol=1e-6)
    assert_close(gw, x.T @ dz, rtol=1e-5, atol=1e-6)


def _numpy_adam_training(x, labels, params, steps, lr=0.01, b1=0.9, b2=0.999, eps=1e-7):
    params = [p.astype(np.float64) for p in params]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    losses = []
    for t in range(1, steps + 1):
        loss, grads = _numpy_mlp_grads(x.astype(np.float64), labels, *params)
        losses.append(loss)
        alpha = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        for i, g in enumerate(grads):
            m[i] += (g - m[i]) * (1 - b1)
            v[i] += (g * g - v[i]) * (1 - b2)
            params[i] -= m[i] * alpha / (np.sqrt(v[i]) + eps)
    return losses, params


def test_training_step_equal_in_all_modes_and_to_numpy():
    x, labels, params = _data(np.float32, batch=8)
    results = {}
    for mode in MODES:
        vs = [tf.Variable(p) for p in params]
        opt = tf.keras.optimizers.Adam(0.01)

        def train_step(x, labels):
            with tf.GradientTape() as tape:
                loss = _mlp_loss(x, labels, *vs)
            grads = tape.gradient(loss, vs)
            opt.apply_gradients(zip(grads, vs))
            return loss

        step = _wrap(train_step, mode)
        losses = [float(step(tf.constant(x), tf.constant(labels))) for _ in range(4)]
        results[mode] = (losses, [v.numpy() for v in vs])
        assert int(opt.iterations.numpy()) == 4
    ref_losses, ref_params = _numpy_adam_training(x, labels, params, 4)
    for mode, (losses, ps) in results.items():
        assert_close(np.array(losses), np.array(ref_losses), rtol=1e-5, atol=1e-6)
        for p, r in zip(ps, ref_params):
            assert_close(p, r.astype(np.float32), rtol=1e-4, atol=1e-5)
        for p, q in zip(ps, results["eager"][1]):
            assert_close(p, q, rtol=1e-5, atol=1e-6)
