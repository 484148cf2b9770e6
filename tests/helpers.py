"""Shared test helpers: random arrays per dtype and NumPy comparison with per-dtype tolerance."""
from __future__ import annotations

import ml_dtypes
import numpy as np
from hypothesis.extra import numpy as hnp

FLOAT_DTYPES = [np.float16, ml_dtypes.bfloat16, np.float32, np.float64]
INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8]
BF16 = np.dtype(ml_dtypes.bfloat16)
RTOL = {np.dtype(np.float16): 1e-3, np.dtype(ml_dtypes.bfloat16): 1e-2,
        np.dtype(np.float32): 1e-6, np.dtype(np.float64): 1e-12}


def is_float(dt) -> bool:
    dt = np.dtype(dt)
    return dt.kind == "f" or dt == BF16


def dtype_ids(dts):
    """Test ids for a list of dtypes: their NumPy names."""
    return [np.dtype(d).name for d in dts]


def wrap_int(values, dt):
    """Exact Python-int results wrapped to a fixed-width integer dtype (two's complement);
    bools pass through."""
    dt = np.dtype(dt)
    values = np.asarray(values, dtype=object)
    if dt.kind == "b":
        return values.astype(bool)
    info = np.iinfo(dt)
    span = info.max - info.min + 1
    flat = [(int(v) - info.min) % span + info.min for v in values.ravel()]
    return np.array(flat, dtype=object).astype(dt).reshape(values.shape)


def shapes(min_dims=0, max_dims=4, min_side=0, max_side=5):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                            max_side=max_side)


def broadcastable_pair(max_dims=4):
    """Two shapes that broadcast together (including size-1 and zero-size dims)."""
    return hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=max_dims,
                                             min_side=0, max_side=4).map(lambda r: r.input_shapes)


def tensordot_equation(rank_a: int, rank_b: int, axes_a, axes_b) -> str:
    """The einsum equation of `tensordot(a, b, [axes_a, axes_b])` (axes non-negative): the
    tests' independent route to tensordot."""
    letters = "abcdefghij"
    la = list(letters[:rank_a])
    lb = list(letters[rank_a:rank_a + rank_b])
    for i, j in zip(axes_a, axes_b):
        lb[j] = la[i]
    out = [c for i, c in enumerate(la) if i not in axes_a] + \
          [c for j, c in enumerate(lb) if j not in axes_b]
    return f"{''.join(la)},{''.join(lb)}->{''.join(out)}"


def rand(rng: np.random.Generator, shape, dtype, low=-3.0, high=3.0):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        lo = max(int(low), np.iinfo(dt).min)
        hi = min(int(high) + 1, np.iinfo(dt).max)
        return rng.integers(lo, hi, size=shape).astype(dt)
    return rng.uniform(low, high, size=shape).astype(dt)


def assert_close(actual, expected, dtype=None, rtol=None, atol=None):
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    dt = np.dtype(dtype) if dtype is not None else expected.dtype
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if dt.kind in "f" or dt == np.dtype(ml_dtypes.bfloat16):
        r = rtol if rtol is not None else RTOL.get(dt, 1e-6)
        a = atol if atol is not None else r
        np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64),
                                   rtol=r, atol=a, equal_nan=True)
    else:
        np.testing.assert_array_equal(actual, expected)


def run_script(script, *args, timeout=300):
    """Run a Python file in a fresh interpreter (same environment, so the same flowjit), from
    the file's folder: nothing of the test suite is importable there."""
    import os
    import subprocess
    import sys
    return subprocess.run([sys.executable, str(script), *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, cwd=os.path.dirname(str(script)))


def finishes(fn, seconds=10.0):
    """Run `fn` in a thread; its exception (or None), failing the test if it blocks (a load
    path that hangs on a FIFO must fail the test, not the suite)."""
    import threading
    out = []

    def run():
        try:
            fn()
            out.append(None)
        except BaseException as e:   # noqa: BLE001 - handed to the test
            out.append(e)
    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert out, f"{fn} did not finish in {seconds} s"
    return out[0]


def shown(exc: BaseException) -> str:
    """What Python prints of an exception besides its traceback: the message, then its notes
    (flowjit notes the user's line there, so the message itself stays TF's)."""
    return "\n".join([str(exc), *getattr(exc, "__notes__", ())])
