"""Matrix decompositions beyond what the TF oracle can compare: SVD and eigh vectors against
TF's recorded sign-free answers (tests/data/tf_decompositions.json) with their gradients, in
every mode; the factorizations' defining identities on batches, float16 and empty matrices;
gradient guards with TF's messages; eig's eigenpairs."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import flowjit as tf
from oracle.decomp_cases import INPUTS, sign_free_loss

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "data", "tf_decompositions.json")) as f:
    RECORDED = json.load(f)["cases"]
MODES = ("eager", "graph", "xla")


def _in_mode(fn, mode):
    return fn if mode == "eager" else tf.function(fn, jit_compile=mode == "xla",
                                                  autograph=False)


def _decompose(kind, x, kwargs):
    return tf.linalg.svd(x, **kwargs) if kind == "svd" else tf.linalg.eigh(x)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(INPUTS))
def test_vectors_and_gradients_match_tf_up_to_sign(name, mode):
    kind, value, kwargs = INPUTS[name]
    want = RECORDED[name]

    def run(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            outs = _decompose(kind, x, kwargs)
            loss = sign_free_loss(tf, kind, outs)
        return outs[0], [tf.abs(v) for v in outs[1:]], tape.gradient(loss, x)
    values, vectors, grad = _in_mode(run, mode)(tf.constant(value, tf.float64))
    np.testing.assert_allclose(values.numpy(), want["values"], rtol=1e-10, atol=1e-12)
    for got, ref in zip(vectors, want["abs_vectors"]):
        np.testing.assert_allclose(got.numpy(), ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(grad.numpy(), want["grad"], rtol=1e-8, atol=1e-10)


def _rng_matrix(shape, dtype, seed=0):
    return np.random.default_rng(seed).uniform(-2, 2, shape).astype(dtype)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape", [(2, 3, 5, 4), (3, 2), (2, 6)])
def test_factorizations_reproduce_their_input(shape, mode):
    a = _rng_matrix(shape, np.float64)

    def run(x):
        q, r = tf.linalg.qr(x)
        s, u, v = tf.linalg.svd(x)
        return q, r, s, u, v
    q, r, s, u, v = (t.numpy() for t in _in_mode(run, mode)(tf.constant(a)))
    k = min(shape[-2:])
    assert q.shape == shape[:-2] + (shape[-2], k) and r.shape == shape[:-2] + (k, shape[-1])
    np.testing.assert_allclose(q @ r, a, atol=1e-12)
    np.testing.assert_allclose(np.tril(r, -1), 0, atol=0)
    np.testing.assert_allclose((u * s[..., None, :]) @ np.swapaxes(v, -1, -2), a, atol=1e-12)
    assert np.all(np.diff(s, axis=-1) <= 0) and np.all(s >= 0)


@pytest.mark.parametrize("mode", MODES)
def test_eigh_reads_the_lower_triangle_and_lu_permutes_rows(mode):
    a = _rng_matrix((2, 4, 4), np.float64, seed=1)
    sym = np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2)

    def run(x):
        e, v = tf.linalg.eigh(x)
        lu, p = tf.linalg.lu(x)
        return e, v, lu, p, tf.linalg.lu_reconstruct(lu, p)
    e, v, lu, p, back = (t.numpy() for t in _in_mode(run, mode)(tf.constant(a)))
    np.testing.assert_allclose(v @ (e[..., None] * np.swapaxes(v, -1, -2)), sym, atol=1e-12)
    low = np.tril(lu, -1) + np.eye(4)
    np.testing.assert_allclose(np.take_along_axis(a, p[..., None], -2), low @ np.triu(lu),
                               atol=1e-12)
    np.testing.assert_allclose(back, a, atol=1e-12)
    assert p.dtype == np.int32


@pytest.mark.parametrize("mode", MODES)
def test_float16_computes_in_float32_and_empty_matrices_work(mode):
    a = _rng_matrix((3, 3), np.float16, seed=2)

    def run(x, empty):
        return tf.linalg.svd(x, compute_uv=False), tf.linalg.qr(empty)
    s, (q, r) = _in_mode(run, mode)(tf.constant(a), tf.zeros([2, 0, 3], tf.float32))
    assert s.dtype == tf.float16
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(a.astype(np.float32), compute_uv=False)
                               .astype(np.float16), rtol=1e-3)
    assert q.shape == (2, 0, 0) and r.shape == (2, 0, 3)


def test_eig_gives_eigenpairs():
    a = np.array([[0.0, -2.0, 1.0], [1.0, 0.0, 0.5], [0.0, 0.25, 3.0]])
    e, v = tf.linalg.eig(tf.constant(a))
    assert e.dtype == tf.complex128 and v.dtype == tf.complex128
    np.testing.assert_allclose(a @ v.numpy(), v.numpy() * e.numpy()[None, :], atol=1e-12)
    np.testing.assert_allclose(np.sort_complex(tf.linalg.eigvals(tf.constant(a)).numpy()),
                               np.sort_complex(e.numpy()), atol=1e-12)


def test_singular_lu_raises_tf_error():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input is not invertible."):
        tf.linalg.lu(tf.constant([[1.0, 2.0], [2.0, 4.0]]))


def test_gradient_guards_raise_tf_messages():
    x = tf.constant(_rng_matrix((4, 2), np.float32))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        q, _ = tf.linalg.qr(x, full_matrices=True)
        _, u, _ = tf.linalg.svd(tf.concat([x, x], 0), full_matrices=True)
    with pytest.raises(NotImplementedError, match="nrows > ncols and full_matrices is true"):
        tape.gradient(q, x)
    with pytest.raises(NotImplementedError, match=r"abs\(m - n\) > 1"):
        tape.gradient(u, x)
