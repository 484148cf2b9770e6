"""Shared by the XLA lowering tests: run a function eagerly and under jit_compile=True, and
compare with per-dtype tolerances (exact for integers and bools)."""
from __future__ import annotations

import ml_dtypes
import numpy as np

import flowjit as tf

BF16 = np.dtype(ml_dtypes.bfloat16)
TOL = {np.dtype(np.float16): 2e-3, BF16: 1.6e-2, np.dtype(np.float32): 1e-5,
       np.dtype(np.float64): 1e-12}


def is_float(dt) -> bool:
    dt = np.dtype(dt)
    return dt.kind == "f" or dt == BF16


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


def wrap_int(values, dt):
    """Exact Python-int results wrapped to a fixed-width integer dtype (two's complement)."""
    dt = np.dtype(dt)
    info = np.iinfo(dt)
    span = info.max - info.min + 1
    flat = [(int(v) - info.min) % span + info.min for v in np.asarray(values).ravel()]
    return np.array(flat, dtype=object).astype(dt).reshape(np.shape(values))


MODES = ("eager", "graph", "xla")


def run_mode(mode, fn, *arrays):
    """fn(*tensors) eagerly, traced for the graph executor, or under jit_compile=True; results
    as NumPy (same structure)."""
    if mode == "eager":
        return run_eager(fn, *arrays)
    if mode == "xla":
        return run_xla(fn, *arrays)
    return to_numpy(tf.function(fn)(*[tf.constant(np.asarray(a)) for a in arrays]))
