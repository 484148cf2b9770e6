"""random family under jit_compile=True.

Stateless ops must reproduce the eager kernels' Threefry-2x32 stream: integers and uniform
floats bit for bit, normals / truncated normals to a few ulps. Besides the eager kernels, every
stateless op is checked against an independent reference written here with Python-int
Threefry (itself checked on Random123's known-answer vectors). Stateful ops compile (see
test_xla_stateful_random.py) except inside a loop or branch, where they must refuse with a
message naming the op and the user's line.
"""
import inspect
import math

import ml_dtypes
import numpy as np
import pytest

import flowjit as tf
from flowjit.ir.errors import UnimplementedError
from flowjit.ir.registry import OPS
from flowjit.lowering.stablehlo import RULES
from xla_helpers import x64_mode  # noqa: F401  (a fixture)

BF16 = ml_dtypes.bfloat16
FLOATS = [tf.float16, tf.bfloat16, tf.float32, tf.float64]
SEEDS = {np.int32: [[0, 0], [1, 2], [-7, 2147483647]],
         np.int64: [[5, -1], [1 << 40, -(1 << 62)], [123456789012, 0]]}

# runtime/xla.to_device goes through jax.device_put, which narrows int64/float64 without x64.
pytestmark = pytest.mark.usefixtures("x64_mode")


def test_every_random_op_has_a_rule():
    names = [n for n, d in OPS.items() if d.family == "random"]
    assert len(names) == 9
    assert [n for n in names if f"df.{n}" not in RULES] == []


# --- independent reference ----------------------------------------------------------------
_M = 0xFFFFFFFF
_ROT = (13, 15, 26, 6, 17, 29, 16, 24)


def _threefry(k0, k1, c0, c1):
    """Threefry-2x32-20 on Python ints (Salmon et al. 2011)."""
    ks = (k0, k1, k0 ^ k1 ^ 0x1BD11BDA)
    x0, x1 = (c0 + ks[0]) & _M, (c1 + ks[1]) & _M
    for i in range(20):
        r = _ROT[i % 8]
        x0 = (x0 + x1) & _M
        x1 = (((x1 << r) | (x1 >> (32 - r))) & _M) ^ x0
        if i % 4 == 3:
            s = i // 4 + 1
            x0 = (x0 + ks[s % 3]) & _M
            x1 = (x1 + ks[(s + 1) % 3] + s) & _M
    return x0, x1


def test_reference_threefry_known_answers():
    # Random123's known-answer vectors for threefry2x32_20
    assert _threefry(0, 0, 0, 0) == (0x6B200159, 0x99BA4EFE)
    assert _threefry(_M, _M, _M, _M) == (0x1CB996FC, 0xBB002BE7)
    assert _threefry(0x13198A2E, 0x03707344, 0x243F6A88, 0x85A308D3) == (0xC4923A9C,
                                                                          0x483DF7A0)


def _key(seed):
    """lo32 ^ (hi32 * golden) of each seed element taken as a 64-bit two's complement."""
    out = []
    for s in seed:
        u = int(s) & ((1 << 64) - 1)
        out.append((u & _M) ^ (((u >> 32) * 0x9E3779B9) & _M))
    return out


def _ref_words(seed, n):
    k0, k1 = _key(seed)
    words = []
    for i in range((n + 1) // 2):
        words.extend(_threefry(k0, k1, i & _M, i >> 32))
    return words[:n]


def _ref_uniform(seed, n, dtype):
    """[0, 1) from the top mantissa bits, as exact multiples of 2**-mantissa."""
    dt = np.dtype(dtype)
    if dt == np.float64:
        w = _ref_words(seed, 2 * n)
        return np.array([((w[2 * i] << 32 | w[2 * i + 1]) >> 12) / 2.0 ** 52
                         for i in range(n)], np.float64)
    keep = {np.dtype(np.float16): 10, np.dtype(BF16): 7, np.dtype(np.float32): 23}[dt]
    return np.array([(v >> (32 - keep)) / 2.0 ** keep for v in _ref_words(seed, n)],
                    np.float64).astype(dt)


def _compute(dtype):
    return np.float64 if np.dtype(dtype) == np.float64 else np.float32


def _ref_normal(seed, n, dtype):
    u = _ref_uniform(seed, 2 * n, _compute(dtype)).astype(np.float64)
    u1, u2 = u[0::2], u[1::2]
    return np.sqrt(-2 * np.log1p(-u1)) * np.cos(2 * np.pi * u2)


def _erfinv(y):
    """Newton on math.erf, in float64."""
    erf = np.vectorize(math.erf, otypes=[np.float64])
    x = np.zeros_like(y)
    for _ in range(40):
        x = x - (erf(x) - y) / (2 / math.sqrt(math.pi) * np.exp(-x * x))
    return x


def _ref_truncated(seed, n, dtype):
    u = _ref_uniform(seed, n, _compute(dtype)).astype(np.float64)
    return np.clip(math.sqrt(2) * _erfinv((2 * u - 1) * math.erf(math.sqrt(2))), -2, 2)


def _ref_bits(seed, n, dtype):
    if np.dtype(dtype).itemsize == 8:
        w = _ref_words(seed, 2 * n)
        return [w[2 * i] << 32 | w[2 * i + 1] for i in range(n)]
    return _ref_words(seed, n)


def _signed(bits, dtype):
    width = 8 * np.dtype(dtype).itemsize
    return np.array([b - (1 << width) if b >> (width - 1) else b for b in bits], dtype)


# --- helpers ------------------------------------------------------------------------------
def _both(fn, *arrays):
    eager = fn(*[tf.constant(a) for a in arrays]).numpy()
    jf = tf.function(fn, jit_compile=True)
    return eager, jf


def _bits_equal(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
    np.testing.assert_array_equal(a.view(f"u{a.dtype.itemsize}"), b.view(f"u{b.dtype.itemsize}"))


# float results of Box-Muller / erfinv: a few ulps of the compute type, rounded to the output
_ULPS = {np.dtype(np.float16): 1e-3, np.dtype(BF16): 8e-3, np.dtype(np.float32): 1e-5,
         np.dtype(np.float64): 1e-12}


def _close(actual, expected, dtype, floor=0.0):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == np.dtype(dtype) and actual.shape == expected.shape
    t = max(_ULPS[np.dtype(dtype)], floor)
    np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64),
                               rtol=t, atol=t)


# (dtype, seed dtype, shape): odd and even value counts, scalars
_FLOAT_CASES = [(dt, sd, shape) for dt, shapes in zip(FLOATS, [[(3, 5), ()], [(7,), (2, 2)],
                                                               [(2, 3, 4), (5,)],
                                                               [(1,), (3, 3)]])
                for sd, shape in zip((np.int32, np.int64), shapes)]


def _case_id(case):
    dt, sd, shape = case
    return f"{dt.name}-{np.dtype(sd).name}-{'x'.join(map(str, shape)) or 'scalar'}"


def _run_seeds(api, dt, sd, shape):
    """{seed: (eager, xla)} for one compiled function over all seeds of the seed dtype."""
    def fn(s):
        return api(shape, s, dtype=dt)
    jf = tf.function(fn, jit_compile=True)
    out = {}
    for seed in SEEDS[sd]:
        s = np.array(seed, sd)
        out[tuple(seed)] = (fn(tf.constant(s)).numpy(), jf(tf.constant(s)).numpy())
    assert jf.experimental_get_tracing_count() == 1  # one trace (and compile) for all seeds
    return out


# --- stateless ----------------------------------------------------------------------------
@pytest.mark.parametrize("case", _FLOAT_CASES, ids=_case_id)
def test_stateless_uniform_bit_exact(case):
    dt, sd, shape = case
    n = math.prod(shape)
    for seed, (eager, xla) in _run_seeds(tf.random.stateless_uniform, dt, sd, shape).items():
        _bits_equal(xla, eager)
        _bits_equal(xla, _ref_uniform(seed, n, dt.as_numpy_dtype).reshape(shape))
        assert ((xla >= 0) & (xla < 1)).all()


@pytest.mark.parametrize("case", _FLOAT_CASES, ids=_case_id)
def test_stateless_normal(case):
    dt, sd, shape = case
    n = math.prod(shape)
    for seed, (eager, xla) in _run_seeds(tf.random.stateless_normal, dt, sd, shape).items():
        _close(xla, eager, dt.as_numpy_dtype)
        _close(xla, _ref_normal(seed, n, dt.as_numpy_dtype).reshape(shape), dt.as_numpy_dtype)


@pytest.mark.parametrize("case", _FLOAT_CASES, ids=_case_id)
def test_stateless_truncated_normal(case):
    dt, sd, shape = case
    n = math.prod(shape)
    for seed, (eager, xla) in _run_seeds(tf.random.stateless_truncated_normal, dt, sd,
                                         shape).items():
        _close(xla, eager, dt.as_numpy_dtype)
        # erfinv is Giles' single-precision polynomial for every dtype (~1e-7 relative)
        _close(xla, _ref_truncated(seed, n, dt.as_numpy_dtype).reshape(shape),
               dt.as_numpy_dtype, floor=2e-6)
        assert (np.abs(xla.astype(np.float64)) <= 2).all()


def test_normal_sample_statistics():
    # many values: exercises long streams, and the samples must look standard normal
    def fn(s):
        return (tf.random.stateless_normal([20001], s),
                tf.random.stateless_truncated_normal([20001], s))
    seed = np.array([3, 4], np.int32)
    eager = fn(tf.constant(seed))
    xla = tf.function(fn, jit_compile=True)(tf.constant(seed))
    for e, x in zip(eager, xla):
        _close(x.numpy(), e.numpy(), np.float32)
    z = xla[0].numpy().astype(np.float64)
    assert abs(z.mean()) < 0.03 and abs(z.std() - 1) < 0.03
    t = xla[1].numpy().astype(np.float64)
    assert abs(t.mean()) < 0.03 and abs(t.std() - 0.8796) < 0.03  # N(0,1) truncated to +-2


@pytest.mark.parametrize("dtype,sd", [(np.int32, np.int32), (np.int32, np.int64),
                                      (np.int64, np.int32), (np.int64, np.int64)],
                         ids=lambda d: np.dtype(d).name)
def test_stateless_full_int_bit_exact(dtype, sd):
    shape = (3, 3)
    for seed, (eager, xla) in _run_seeds(
            lambda sh, s, dtype: tf.random.stateless_uniform(sh, s, dtype=dtype, minval=None,
                                                             maxval=None),
            tf.as_dtype(dtype), sd, shape).items():
        _bits_equal(xla, eager)
        _bits_equal(xla, _signed(_ref_bits(seed, 9, dtype), dtype).reshape(shape))


def test_threefry_known_answer_under_xla():
    # seed (0, 0) is key (0, 0) and block 0 is counter (0, 0): Random123's first vector
    f = tf.function(lambda s: (tf.random.stateless_uniform([2], s, dtype=tf.int32,
                                                           minval=None, maxval=None),
                               tf.random.stateless_uniform([1], s, dtype=tf.int64,
                                                           minval=None, maxval=None)),
                    jit_compile=True)
    w32, w64 = f(tf.constant([0, 0]))
    np.testing.assert_array_equal(w32.numpy().view(np.uint32), [0x6B200159, 0x99BA4EFE])
    np.testing.assert_array_equal(w64.numpy().view(np.uint64), [0x6B20015999BA4EFE])


_INT_BOUNDS = {np.int32: [(-5, 17), (0, 1), (-2 ** 31, 2 ** 31 - 1), (2 ** 30, 2 ** 31 - 1)],
               np.int64: [(-5, 17), (-2 ** 62, 2 ** 62 + 12345), (-2 ** 63, 2 ** 63 - 1),
                          (2 ** 40, 2 ** 40 + 3)]}


@pytest.mark.parametrize("dtype,sd", [(np.int32, np.int64), (np.int64, np.int32)],
                         ids=lambda d: np.dtype(d).name)
def test_stateless_uniform_int_bit_exact(dtype, sd):
    shape = (4, 5)

    def fn(s, lo, hi):
        return tf.random.stateless_uniform(shape, s, minval=lo, maxval=hi, dtype=dtype)
    jf = tf.function(fn, jit_compile=True)
    for lo, hi in _INT_BOUNDS[dtype]:
        for seed in SEEDS[sd]:
            args = [tf.constant(np.array(seed, sd)), tf.constant(np.array(lo, dtype)),
                    tf.constant(np.array(hi, dtype))]
            xla = jf(*args).numpy()
            _bits_equal(xla, fn(*args).numpy())
            ref = [lo + b % (hi - lo) for b in _ref_bits(seed, 20, dtype)]
            _bits_equal(xla, np.array(ref, dtype).reshape(shape))
    assert jf.experimental_get_tracing_count() == 1


def test_stateless_uniform_int_empty_range_gives_minval():
    # eager raises InvalidArgumentError; XLA cannot raise on values and returns minval
    def fn(s, lo, hi):
        return tf.random.stateless_uniform([4], s, minval=lo, maxval=hi, dtype=tf.int32)
    args = [tf.constant([1, 2]), tf.constant(7), tf.constant(3)]
    np.testing.assert_array_equal(tf.function(fn, jit_compile=True)(*args).numpy(), [7] * 4)
    with pytest.raises(tf.errors.InvalidArgumentError):
        fn(*args)


def test_stateless_zero_size_and_scaled():
    def fn(s):
        return (tf.random.stateless_uniform([0, 3], s),
                tf.random.stateless_normal([2, 0], s, dtype=tf.float64),
                tf.random.stateless_truncated_normal([0], s, dtype=tf.float16),
                tf.random.stateless_uniform([0], s, dtype=tf.int64, minval=None, maxval=None),
                tf.random.stateless_uniform([3, 0], s, minval=1, maxval=5, dtype=tf.int32),
                tf.random.stateless_normal([5], s, mean=2.0, stddev=3.0),
                tf.random.stateless_uniform([5], s, minval=-1.0, maxval=4.0),
                tf.random.stateless_uniform([3], [7, 8]))      # a constant seed
    seed = tf.constant(np.array([9, -9], np.int64))
    eager = fn(seed)
    xla = tf.function(fn, jit_compile=True)(seed)
    for e, x in zip(eager, xla):
        assert x.dtype == e.dtype and x.shape == e.shape
    for e, x in zip(eager[5:], xla[5:]):
        _close(x.numpy(), e.numpy(), np.float32)
    _bits_equal(xla[7].numpy(), _ref_uniform([7, 8], 3, np.float32))


# --- stateful: refused inside a branch ------------------------------------------------------
def test_stateful_op_inside_cond_refused():
    def f(p, x):
        return tf.cond(p, lambda: x + tf.random.normal([2], seed=3), lambda: x)
    line = inspect.getsourcelines(f)[1] + 1
    with pytest.raises(UnimplementedError, match=rf"random_standard_normal.*"
                                                 rf"test_xla_random.py:{line}.*loop or branch"):
        tf.function(f, jit_compile=True)(tf.constant(True), tf.constant([1.0, 2.0]))
