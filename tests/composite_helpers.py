"""Checks for API functions built from other ops (composites): the value in every mode
(eager, graph executor, XLA) against a NumPy reference, and the gradient of sum(out * W)
(W non-uniform) in every mode against central differences in float64."""
from __future__ import annotations

import numpy as np

import flowjit as tf
from xla_helpers import MODES, to_numpy


def weights(shape) -> np.ndarray:
    """The upstream gradient: 1/4, 2/4, ... 7/4 cycling, so a gradient right only under a
    uniform upstream still fails."""
    n = int(np.prod(shape, dtype=np.int64))
    return ((np.arange(n) % 7 + 1) / 4).reshape(shape)


def _outputs(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def with_gradient(fn, grad):
    """fn's outputs and the gradients of sum(out * W) over its float outputs with respect to
    the positional arguments listed in `grad`."""
    def run(*xs):
        with tf.GradientTape() as tape:
            for i in grad:
                tape.watch(xs[i])
            outs = _outputs(fn(*xs))
            terms = [tf.reduce_sum(o * tf.constant(weights(o.shape), o.dtype))
                     for o in outs if o.dtype.is_floating]
            loss = tf.add_n(terms) if grad else None
        return outs, tape.gradient(loss, [xs[i] for i in grad]) if grad else []
    return run


def run_mode(mode, fn, *arrays):
    tensors = [tf.constant(np.asarray(a)) for a in arrays]
    if mode == "graph":
        fn = tf.function(fn)
    elif mode == "xla":
        fn = tf.function(fn, jit_compile=True)
    return to_numpy(fn(*tensors))


def numeric_gradient(fn, arrays, i, eps=1e-6):
    """d sum(fn(...) * W) / d arrays[i] by central differences in float64, eagerly."""
    arrays = [np.asarray(a, np.float64) if np.asarray(a).dtype.kind == "f" else a
              for a in arrays]

    def loss(x):
        args = list(arrays)
        args[i] = x
        outs = _outputs(fn(*[tf.constant(a) for a in args]))
        return sum(float(np.sum(np.asarray(o.numpy(), np.float64) * weights(o.shape)))
                   for o in outs if o.dtype.is_floating)
    x = arrays[i]
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += eps
        down[idx] -= eps
        g[idx] = (loss(up) - loss(down)) / (2 * eps)
    return g


def check_composite(fn, arrays, expected, grad=(), rtol=1e-5, atol=1e-6, grad_tol=1e-4,
                    modes=MODES, eps=1e-6):
    """fn(*arrays) in every mode equals `expected` (one array or a list); with `grad`, the
    gradients agree with central differences (step `eps`) of fn in float64 (eager)."""
    expected = [np.asarray(e) for e in _outputs(expected)]
    numeric = [numeric_gradient(fn, arrays, i, eps) for i in grad]
    for mode in modes:
        outs, grads = run_mode(mode, with_gradient(fn, grad), *arrays)
        assert len(outs) == len(expected), (mode, len(outs))
        for got, want in zip(outs, expected):
            assert got.shape == want.shape, (mode, got.shape, want.shape)
            assert got.dtype == want.dtype, (mode, got.dtype, want.dtype)
            if want.dtype.kind in "fc":
                np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True,
                                           err_msg=mode)
            else:
                np.testing.assert_array_equal(got, want, err_msg=mode)
        for i, got, want in zip(grad, grads, numeric):
            np.testing.assert_allclose(got, want, rtol=grad_tol, atol=grad_tol,
                                       err_msg=f"{mode}: gradient of argument {i}")
