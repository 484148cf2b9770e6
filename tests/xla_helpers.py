"""Shared by the XLA lowering tests: run a function eagerly and under jit_compile=True, and
compare with per-dtype tolerances (exact for integers and bools)."""
from __future__ import annotations

import pytest
import numpy as np

import flowjit as tf

from helpers import BF16, is_float, wrap_int  # noqa: F401  (re-exported to the XLA tests)

TOL = {np.dtype(np.float16): 2e-3, BF16: 1.6e-2, np.dtype(np.float32): 1e-5,
       np.dtype(np.float64): 1e-12}



def to_numpy(out):
    """Tensors (in lists, tuples, dicts) as NumPy arrays, same structure."""
    if isinstance(out, (list, tuple)):
        return [to_numpy(o) for o in out]
    if isinstance(out, dict):
        return {k: to_numpy(v) for k, v in out.items()}
    return np.asarray(out.numpy())


def run_xla(fn, *arrays):
    """fn(*tensors) compiled with jit_compile=True; results as NumPy (same structure)."""
    return to_numpy(tf.function(fn, jit_compile=True)(*[tf.constant(np.asarray(a))
                                                         for a in arrays]))


def run_eager(fn, *arrays):
    return to_numpy(fn(*[tf.constant(np.asarray(a)) for a in arrays]))


def check(actual, expected, dt, what, tol=None):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, (what, actual.shape, expected.shape)
    assert actual.dtype == expected.dtype, (what, actual.dtype, expected.dtype)
    if is_float(dt):
        r = TOL[np.dtype(dt)] if tol is None else tol
        np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64),
                                   rtol=r, atol=r, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=what)



MODES = ("eager", "graph", "xla")


def run_mode(mode, fn, *arrays):
    """fn(*tensors) eagerly, traced for the graph executor, or under jit_compile=True; results
    as NumPy (same structure)."""
    if mode == "eager":
        return run_eager(fn, *arrays)
    if mode == "xla":
        return run_xla(fn, *arrays)
    return to_numpy(tf.function(fn)(*[tf.constant(np.asarray(a)) for a in arrays]))


@pytest.fixture(scope="module")
def x64_mode():
    """jax's x64 mode for a module whose tests put int64/float64 arrays through
    jax.device_put (which otherwise narrows them silently); use it as an autouse fixture."""
    import jax
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", old)
