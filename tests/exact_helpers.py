"""Helpers for the exactness tests of shape-inference, constant-folding and arithmetic:
inputs full of IEEE special values, a bit-for-bit comparison that tells -0.0 from +0.0, and a
runner comparing a pass spec against no passes in the executor and under XLA."""
from __future__ import annotations

import collections

import ml_dtypes
import numpy as np

import flowjit as tf
from flowjit.ir.printing import parse_module, print_module
from flowjit.passes.pipeline import run_pipeline

FLOATS = [np.float16, ml_dtypes.bfloat16, np.float32, np.float64]
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8]


def special(rng: np.random.Generator, shape, dtype, subnormal=True) -> np.ndarray:
    """Random values with NaN, +-Inf, +-0.0, +-1 and (if `subnormal`) the smallest subnormal
    mixed in (floats), or the dtype's extremes (ints)."""
    dt = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    if dt == np.bool_:
        return np.asarray(rng.random(shape) < 0.5)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        pool = np.array([info.min, info.max, 0, 1, -1 if dt.kind == "i" else 2], dtype=dt)
        vals = rng.integers(max(info.min, -100), min(info.max, 100), size=n).astype(dt)
    else:
        tiny = float(ml_dtypes.finfo(dt).smallest_subnormal)
        pool = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0] + ([tiny, -tiny] if subnormal
                                                                  else [])
        pool = np.array(pool, dtype=dt)
        vals = rng.uniform(-4, 4, size=n).astype(dt)
    pick = rng.random(n) < 0.5
    vals[pick] = rng.choice(pool, size=int(pick.sum()))
    if n >= len(pool):  # every special value at least once
        vals[:len(pool)] = pool
    return vals.reshape(shape)


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


def assert_same(actual, expected):
    """Same dtype, shape and bits (NaNs compared by position only: payloads may differ)."""
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.dtype == e.dtype, (a.dtype, e.dtype)
    assert a.shape == e.shape, (a.shape, e.shape)
    if a.dtype.kind == "f" or a.dtype == np.dtype(ml_dtypes.bfloat16):
        an, en = np.isnan(a.astype(np.float64)), np.isnan(e.astype(np.float64))
        np.testing.assert_array_equal(an, en)
        np.testing.assert_array_equal(_bits(np.ascontiguousarray(a))[~an],
                                      _bits(np.ascontiguousarray(e))[~en])
    else:
        np.testing.assert_array_equal(a, e)


def assert_xla_close(actual, expected, ulps=8, scale=16.0):
    """Same NaN and infinity positions; finite values within a few ulps (relative) or a few
    ulps of `scale` (absolute: XLA's fused multiply-add keeps a residue that per-op rounding
    cancels to zero). Integer and bool results must be equal."""
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.dtype == e.dtype and a.shape == e.shape, (a.dtype, e.dtype, a.shape, e.shape)
    if not (a.dtype.kind == "f" or a.dtype == np.dtype(ml_dtypes.bfloat16)):
        np.testing.assert_array_equal(a, e)
        return
    eps = float(ml_dtypes.finfo(a.dtype).eps)
    a64, e64 = a.astype(np.float64), e.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(a64), np.isnan(e64))
    np.testing.assert_array_equal(np.isposinf(a64), np.isposinf(e64))
    np.testing.assert_array_equal(np.isneginf(a64), np.isneginf(e64))
    fin = np.isfinite(e64)
    np.testing.assert_allclose(a64[fin], e64[fin], rtol=ulps * eps, atol=ulps * eps * scale)


def outputs(fn, args, passes, jit=False, signature=None):
    f = tf.function(fn, passes=passes, jit_compile=jit, input_signature=signature)
    out = f(*[tf.constant(a) for a in args])
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [o.numpy() for o in outs]


def check_exact(fn, args, passes, signature=None, xla=True, reset=None, xla_ulps=None):
    """`passes` against no passes, bit for bit, in the executor and (if `xla`) under XLA;
    returns the executor's outputs (with the pass). With `xla_ulps`, XLA results need only be
    that close (see `assert_xla_close`): for folded float arithmetic, which XLA itself
    computes with FMA contraction and reciprocal multiplication."""
    got = None
    for jit in (False, True) if xla else (False,):
        if reset:
            reset()
        ref = outputs(fn, args, "", jit, signature)
        if reset:
            reset()
        opt = outputs(fn, args, passes, jit, signature)
        assert len(ref) == len(opt)
        for r, o in zip(ref, opt):
            if jit and xla_ulps is not None:
                assert_xla_close(o, r, xla_ulps)
            else:
                assert_same(o, r)
        if not jit:
            got = opt
    return got


def optimized_module(fn, args, passes, signature=None):
    f = tf.function(fn, passes=passes, input_signature=signature)
    if signature is not None:
        return f.get_concrete_function().optimized_module()
    return f.get_concrete_function(*[tf.constant(a) for a in args]).optimized_module()


def op_counts(module) -> collections.Counter:
    return collections.Counter(op.name for op in module.walk())


def counts(fn, args, passes, signature=None) -> collections.Counter:
    return op_counts(optimized_module(fn, args, passes, signature))


def run_text(text: str, passes: str):
    """Parse df IR, run `passes`, verify; returns the module."""
    m = parse_module(text)
    run_pipeline(m, passes)
    return m


def assert_idempotent_module(module, passes):
    run_pipeline(module, passes)
    once = print_module(module)
    run_pipeline(module, passes)
    assert print_module(module) == once


def assert_idempotent(fn, args, passes, signature=None):
    f = tf.function(fn, passes="", input_signature=signature)
    cf = f.get_concrete_function() if signature is not None else \
        f.get_concrete_function(*[tf.constant(a) for a in args])
    assert_idempotent_module(cf.dataflow_module().clone(), passes)
