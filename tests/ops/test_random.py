"""Random family: the Threefry core against published known answers and jax's independent
implementation, the documented bits -> value layout (which the XLA lowering must reproduce),
TF's seeding model, distributions (generous statistical bounds) and bad input."""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flowjit as tf
from flowjit.ir import registry
from flowjit.ir.errors import InvalidArgumentError
from flowjit.ir.registry import TT
from flowjit.runtime.kernels import KERNELS
from flowjit.runtime.kernels import random as rk

jax_random = pytest.importorskip("jax.extend.random")

FLOATS = [tf.float16, tf.bfloat16, tf.float32, tf.float64]
N = 100_000


def jax_threefry(key, x0, x1):
    """jax's own Threefry-2x32 primitive: an implementation independent of flowjit's."""
    import jax.numpy as jnp
    y0, y1 = jax_random.threefry2x32_p.bind(jnp.uint32(key[0]), jnp.uint32(key[1]),
                                            jnp.asarray(x0, jnp.uint32),
                                            jnp.asarray(x1, jnp.uint32))
    return np.asarray(y0), np.asarray(y1)


def ref_words(key, n, offset=0, stream=0):
    """The documented stream layout, built on jax's Threefry: block i hashes counter
    (lo32(i), hi32(i) ^ stream) and gives words 2i, 2i+1."""
    i = np.arange(offset, offset + (n + 1) // 2, dtype=np.uint64)
    y0, y1 = jax_threefry(key, (i & 0xFFFFFFFF).astype(np.uint32),
                          ((i >> np.uint64(32)).astype(np.uint32) ^ np.uint32(stream)))
    out = np.empty(2 * len(i), np.uint32)
    out[0::2], out[1::2] = y0, y1
    return out[:n]


def ref_key(seed):
    """lo32 ^ (hi32 * 0x9E3779B9) of each sign-extended seed element, in Python ints."""
    out = []
    for s in seed:
        u = int(s) & (2**64 - 1)
        out.append((u & 0xFFFFFFFF) ^ (((u >> 32) * 0x9E3779B9) & 0xFFFFFFFF))
    return tuple(out)


def ref_uniform01(w, dt):
    dt = np.dtype(dt)
    if dt == np.float64:
        vals = [((int(a) << 32 | int(b)) >> 12) / 2.0**52 for a, b in zip(w[0::2], w[1::2])]
        return np.array(vals, np.float64)
    mant = {np.dtype(np.float16): 10, np.dtype(ml_dtypes.bfloat16): 7,
            np.dtype(np.float32): 23}[dt]
    # k / 2**mant is exact in the target type
    return ((w >> np.uint32(32 - mant)).astype(np.float64) / 2.0**mant).astype(dt)


def ref_normal(w, dt):
    ct = np.float64 if np.dtype(dt) == np.float64 else np.float32
    u = ref_uniform01(w, ct).astype(np.float64).reshape(-1, 2)
    return np.sqrt(-2 * np.log1p(-u[:, 0])) * np.cos(2 * np.pi * u[:, 1])


def _erfinv(y):
    """Bisection on math.erf: slow but plainly right."""
    lo, hi = -6.0, 6.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if math.erf(mid) < y:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def ref_truncated(w, dt):
    ct = np.float64 if np.dtype(dt) == np.float64 else np.float32
    u = ref_uniform01(w, ct).astype(np.float64)
    return np.array([math.sqrt(2) * _erfinv((2 * x - 1) * math.erf(math.sqrt(2))) for x in u])


def words_per(dt, kind):
    base = 2 if np.dtype(dt).itemsize == 8 else 1
    if kind in ("normal", "truncated_normal") and np.dtype(dt) != np.float64:
        base = 1
    return base * (2 if kind == "normal" else 1)


@pytest.fixture(autouse=True)
def _unseed():
    tf.random.set_seed(None)
    yield
    tf.random.set_seed(None)


# --- Threefry core ------------------------------------------------------------------------
# Random123's kat_vectors for threefry2x32_20: (key, counter) -> output.
KAT = [((0x00000000, 0x00000000), (0x00000000, 0x00000000), (0x6B200159, 0x99BA4EFE)),
       ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
       ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0))]


@pytest.mark.parametrize("key,ctr,expected", KAT)
def test_threefry_known_answers(key, ctr, expected):
    y0, y1 = rk.threefry2x32(key, np.array([ctr[0]], np.uint32), np.array([ctr[1]], np.uint32))
    assert (int(y0[0]), int(y1[0])) == expected
    assert tuple(int(v[0]) for v in jax_threefry(key, [ctr[0]], [ctr[1]])) == expected


@settings(max_examples=15)
@given(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1), st.integers(0, 2**31))
def test_threefry_matches_jax(k0, k1, seed):
    rng = np.random.default_rng(seed)
    x0 = rng.integers(0, 2**32, 257, dtype=np.uint64).astype(np.uint32)
    x1 = rng.integers(0, 2**32, 257, dtype=np.uint64).astype(np.uint32)
    ours = rk.threefry2x32((k0, k1), x0, x1)
    ref = jax_threefry((k0, k1), x0, x1)
    np.testing.assert_array_equal(ours[0], ref[0])
    np.testing.assert_array_equal(ours[1], ref[1])


def test_stream_layout_with_offset_and_stream():
    np.testing.assert_array_equal(rk.words((5, 9), 7, offset=2**32 - 2, stream=3 << 28),
                                  ref_words((5, 9), 7, offset=2**32 - 2, stream=3 << 28))


# --- stateless: exact layout --------------------------------------------------------------
SEEDS = st.tuples(st.integers(-2**31, 2**31 - 1), st.integers(-2**31, 2**31 - 1))


@settings(max_examples=15)
@given(SEEDS, st.sampled_from(FLOATS), st.sampled_from([(), (0,), (5,), (2, 3)]))
def test_stateless_uniform_bits(seed, dtype, shape):
    got = tf.random.stateless_uniform(shape, seed=seed, dtype=dtype)
    assert got.dtype == dtype and tuple(got.shape) == shape
    n = int(np.prod(shape))
    w = ref_words(ref_key(seed), n * words_per(dtype.np, "uniform"))
    np.testing.assert_array_equal(got.numpy().reshape(-1), ref_uniform01(w, dtype.np))


@settings(max_examples=10)
@given(SEEDS, st.sampled_from(FLOATS))
def test_stateless_normal_box_muller(seed, dtype):
    got = tf.random.stateless_normal([7], seed=seed, dtype=dtype)
    assert got.dtype == dtype
    w = ref_words(ref_key(seed), 7 * words_per(dtype.np, "normal"))
    # float32 computes log/cos in float32: a few ulp of 1 plus log's sensitivity near u=1
    tol = {tf.float64: 1e-12, tf.float32: 2e-5, tf.float16: 2e-3, tf.bfloat16: 1e-2}[dtype]
    np.testing.assert_allclose(got.numpy().astype(np.float64), ref_normal(w, dtype.np),
                               rtol=tol, atol=tol)


@settings(max_examples=8)
@given(SEEDS, st.sampled_from(FLOATS))
def test_stateless_truncated_normal_inverse_cdf(seed, dtype):
    got = tf.random.stateless_truncated_normal([6], seed=seed, dtype=dtype)
    assert got.dtype == dtype
    w = ref_words(ref_key(seed), 6 * words_per(dtype.np, "truncated_normal"))
    # the erfinv polynomial is single-precision accurate, also for float64
    tol = {tf.float64: 2e-6, tf.float32: 2e-6, tf.float16: 2e-3, tf.bfloat16: 1e-2}[dtype]
    np.testing.assert_allclose(got.numpy().astype(np.float64), ref_truncated(w, dtype.np),
                               rtol=tol, atol=tol)


@settings(max_examples=15)
@given(SEEDS, st.sampled_from([tf.int32, tf.int64]), st.data())
def test_stateless_uniform_int_bits(seed, dtype, data):
    info = np.iinfo(dtype.np)
    lo = data.draw(st.integers(int(info.min), int(info.max) - 1))
    hi = data.draw(st.integers(lo + 1, int(info.max)))
    got = tf.random.stateless_uniform([9], seed=seed, minval=lo, maxval=hi, dtype=dtype)
    assert got.dtype == dtype
    w = ref_words(ref_key(seed), 9 * words_per(dtype.np, "uniform"))
    if dtype == tf.int64:
        bits = [int(a) << 32 | int(b) for a, b in zip(w[0::2], w[1::2])]
    else:
        bits = [int(a) for a in w]
    expected = [lo + b % (hi - lo) for b in bits]
    assert got.numpy().tolist() == expected
    assert all(lo <= v < hi for v in expected)


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64])
def test_stateless_uniform_full_int(dtype):
    got = tf.random.stateless_uniform([8], seed=[3, 4], minval=None, maxval=None, dtype=dtype)
    w = ref_words(ref_key((3, 4)), 8 * words_per(dtype.np, "uniform"))
    if dtype == tf.int64:
        w = (w[0::2].astype(np.uint64) << np.uint64(32)) | w[1::2].astype(np.uint64)
    np.testing.assert_array_equal(got.numpy(), w.view(dtype.np))


def test_stateless_seed_handling():
    a = tf.random.stateless_normal([50], seed=[1, 2]).numpy()
    np.testing.assert_array_equal(a, tf.random.stateless_normal([50], seed=[1, 2]).numpy())
    # int32 and int64 seeds of equal value agree; a Tensor seed works
    s64 = tf.convert_to_tensor(np.array([1, 2], np.int64))
    np.testing.assert_array_equal(a, tf.random.stateless_normal([50], seed=s64).numpy())
    # every seed element matters, including an int64 seed's high word
    for other in ([2, 1], [1, 3], [0, 2], [1, 2 + 2**32], [-1, 2]):
        seed = tf.convert_to_tensor(np.array(other, np.int64))
        assert not np.array_equal(a, tf.random.stateless_normal([50], seed=seed).numpy())
    # a smaller request is a prefix of a larger one
    np.testing.assert_array_equal(
        a[:7], tf.random.stateless_normal([7], seed=[1, 2]).numpy())


def test_stateless_scale_and_shift():
    base = tf.random.stateless_normal([4, 3], seed=[5, 6]).numpy()
    got = tf.random.stateless_normal([4, 3], seed=[5, 6], mean=3.0, stddev=2.0)
    np.testing.assert_allclose(got.numpy(), base * np.float32(2) + np.float32(3), rtol=1e-6)
    got = tf.random.stateless_normal([4, 3], seed=[5, 6], mean=[1.0, 2.0, 3.0])
    np.testing.assert_allclose(got.numpy(), base + np.float32([1, 2, 3]), rtol=1e-6)
    u = tf.random.stateless_uniform([5], seed=[5, 6]).numpy()
    got = tf.random.stateless_uniform([5], seed=[5, 6], minval=-2.0, maxval=6.0)
    np.testing.assert_allclose(got.numpy(), u * np.float32(8) + np.float32(-2), rtol=1e-6)
    t = tf.random.stateless_truncated_normal([5], seed=[5, 6]).numpy()
    got = tf.random.stateless_truncated_normal([5], seed=[5, 6], mean=1.0, stddev=0.5)
    np.testing.assert_allclose(got.numpy(), t * np.float32(0.5) + np.float32(1), rtol=1e-6)


# --- stateful: TF's seeding model ---------------------------------------------------------
def _run_program():
    return [tf.random.uniform([3]).numpy(), tf.random.normal([2, 2]).numpy(),
            tf.random.truncated_normal([3], dtype=tf.float64).numpy(),
            tf.random.uniform([4], maxval=10, dtype=tf.int64).numpy(),
            tf.random.uniform([3], seed=4).numpy(), tf.random.uniform([3], seed=4).numpy()]


def test_set_seed_reproduces_sequence():
    tf.random.set_seed(1234)
    first = _run_program()
    tf.random.set_seed(1234)
    again = _run_program()
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    tf.random.set_seed(4321)
    other = _run_program()
    assert not np.array_equal(first[0], other[0])


def test_repeated_calls_differ():
    tf.random.set_seed(3)
    a, b = tf.random.normal([20]).numpy(), tf.random.normal([20]).numpy()
    assert not np.array_equal(a, b)
    c, d = tf.random.normal([20], seed=9).numpy(), tf.random.normal([20], seed=9).numpy()
    assert not np.array_equal(c, d)


def test_op_seed_with_global_seed():
    tf.random.set_seed(1)
    a1 = tf.random.uniform([5], seed=7).numpy()
    a2 = tf.random.uniform([5], seed=7).numpy()
    tf.random.set_seed(1)
    # other ops in between, even with the same op seed, do not move this op's sequence
    tf.random.normal([3], seed=7)
    tf.random.uniform([3])
    np.testing.assert_array_equal(tf.random.uniform([5], seed=7).numpy(), a1)
    np.testing.assert_array_equal(tf.random.uniform([5], seed=7).numpy(), a2)
    tf.random.set_seed(2)
    assert not np.array_equal(tf.random.uniform([5], seed=7).numpy(), a1)
    tf.random.set_seed(1)
    assert not np.array_equal(tf.random.uniform([5], seed=8).numpy(), a1)


def test_op_seed_without_global_seed():
    a1 = tf.random.normal([5], seed=11).numpy()
    a2 = tf.random.normal([5], seed=11).numpy()
    assert not np.array_equal(a1, a2)
    tf.random.set_seed(None)  # restarts the streams: the op seed alone fixes the sequence
    np.testing.assert_array_equal(tf.random.normal([5], seed=11).numpy(), a1)
    np.testing.assert_array_equal(tf.random.normal([5], seed=11).numpy(), a2)


def test_unseeded_is_nondeterministic():
    a = tf.random.uniform([16]).numpy()
    tf.random.set_seed(None)
    b = tf.random.uniform([16]).numpy()
    assert not np.array_equal(a, b)


def test_seed_zero_pair_is_still_seeded():
    tf.random.set_seed(0)
    a = tf.random.uniform([8], seed=0).numpy()
    tf.random.set_seed(0)
    np.testing.assert_array_equal(tf.random.uniform([8], seed=0).numpy(), a)


def test_stateful_layout():
    """Seeded stateful ops read the stream of key (seed, seed2) from where the last call of the
    same op stopped, each op in its own counter range (the stream word)."""
    tf.random.set_seed(3)
    a = tf.random.uniform([5], seed=4).numpy()
    b = tf.random.uniform([5], seed=4).numpy()
    c = tf.random.uniform([3], minval=0, maxval=2**31 - 1, dtype=tf.int32, seed=4).numpy()
    w = ref_words((3, 4), 12, 0, stream=rk.STREAMS["random_uniform"])
    np.testing.assert_array_equal(a, ref_uniform01(w[:5], np.float32))
    np.testing.assert_array_equal(b, ref_uniform01(w[6:11], np.float32))  # blocks 3..5
    w = ref_words((3, 4), 3, 0, stream=rk.STREAMS["random_uniform_int"])
    np.testing.assert_array_equal(c, w % np.uint32(2**31 - 1))
    assert len(set(rk.STREAMS.values())) == len(rk.STREAMS)


def test_stream_table_is_bounded(monkeypatch):
    monkeypatch.setattr(rk, "_MAX_STREAMS", 4)
    tf.random.set_seed(1)
    first = [tf.random.uniform([2], seed=1).numpy()]
    for _ in range(10):  # each unseeded call under a global seed is a new stream
        tf.random.uniform([2])
        first.append(tf.random.uniform([2], seed=1).numpy())  # kept: recently used
    assert len(rk._POSITIONS) <= 4
    assert len({a.tobytes() for a in first}) == len(first)


def test_int_uniform_error_leaves_stream():
    tf.random.set_seed(5)
    a = tf.random.uniform([4], minval=0, maxval=100, dtype=tf.int32, seed=1).numpy()
    tf.random.set_seed(5)
    with pytest.raises(InvalidArgumentError, match="random_uniform_int"):
        tf.random.uniform([4], minval=3, maxval=3, dtype=tf.int32, seed=1)
    np.testing.assert_array_equal(
        tf.random.uniform([4], minval=0, maxval=100, dtype=tf.int32, seed=1).numpy(), a)


# --- distributions ------------------------------------------------------------------------
def _stateful_and_stateless(fn, stateless, **kw):
    tf.random.set_seed(77)
    return [fn([N], **kw).numpy(), stateless([N], seed=[8, 9], **kw).numpy()]


def _normal_cdf(x):
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


@pytest.mark.parametrize("dtype", FLOATS)
def test_normal_distribution(dtype):
    for x in _stateful_and_stateless(tf.random.normal, tf.random.stateless_normal,
                                     mean=2.0, stddev=3.0, dtype=dtype):
        assert x.dtype == dtype.np and x.shape == (N,)
        x = x.astype(np.float64)
        assert abs(x.mean() - 2) < 5 * 3 / math.sqrt(N)
        assert abs(x.std() - 3) < 5 * 3 / math.sqrt(2 * N) + 0.01
        z = np.sort((x - 2) / 3)
        for q in (-2.0, -1.0, 0.0, 0.5, 1.5):  # a KS-style check at a few points
            assert abs(np.searchsorted(z, q) / N - _normal_cdf(q)) < 5 / math.sqrt(N) + 4e-3


@pytest.mark.parametrize("dtype", FLOATS)
def test_truncated_normal_distribution(dtype):
    # N(0, 1) truncated to [-2, 2]: variance 1 - 2*2*phi(2) / (Phi(2) - Phi(-2))
    phi2 = math.exp(-2) / math.sqrt(2 * math.pi)
    mass = math.erf(math.sqrt(2))
    sd = math.sqrt(1 - 4 * phi2 / mass)
    for x in _stateful_and_stateless(tf.random.truncated_normal,
                                     tf.random.stateless_truncated_normal,
                                     mean=-1.0, stddev=0.5, dtype=dtype):
        assert x.dtype == dtype.np
        x = x.astype(np.float64)
        assert x.min() >= -1 - 2 * 0.5 and x.max() <= -1 + 2 * 0.5
        assert abs(x.mean() + 1) < 5 * 0.5 * sd / math.sqrt(N)
        assert abs(x.std() - 0.5 * sd) < 5 * 0.5 / math.sqrt(2 * N) + 5e-3
        z = np.sort((x + 1) / 0.5)
        for q in (-1.5, 0.0, 1.0):
            expect = (_normal_cdf(q) - _normal_cdf(-2)) / mass
            assert abs(np.searchsorted(z, q) / N - expect) < 5 / math.sqrt(N) + 4e-3


@pytest.mark.parametrize("dtype", FLOATS)
def test_uniform_distribution(dtype):
    for lo, hi in ((0, None), (-3.0, 5.0)):
        kw = {"minval": lo} if hi is None else {"minval": lo, "maxval": hi}
        hi = 1.0 if hi is None else hi
        for x in _stateful_and_stateless(tf.random.uniform, tf.random.stateless_uniform,
                                         dtype=dtype, **kw):
            assert x.dtype == dtype.np
            x = x.astype(np.float64)
            assert x.min() >= lo and x.max() < hi or (dtype.size == 2 and x.max() <= hi)
            width = hi - lo
            assert abs(x.mean() - (lo + hi) / 2) < 5 * width / math.sqrt(12 * N) + width / 512
            counts = np.histogram(x, bins=8, range=(lo, hi))[0]
            assert np.all(np.abs(counts - N / 8) < 6 * math.sqrt(N / 8) + N / 8 / 64)


def test_unit_uniform_never_reaches_one():
    for dtype in FLOATS:
        x = tf.random.stateless_uniform([N], seed=[1, 1], dtype=dtype).numpy()
        assert x.min() >= 0 and x.max() < 1


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64])
def test_int_uniform_distribution(dtype):
    for x in _stateful_and_stateless(tf.random.uniform, tf.random.stateless_uniform,
                                     minval=-3, maxval=7, dtype=dtype):
        assert x.dtype == dtype.np
        assert x.min() == -3 and x.max() == 6
        counts = np.bincount(x + 3, minlength=10)
        assert np.all(np.abs(counts - N / 10) < 6 * math.sqrt(N / 10))
    big = tf.random.uniform([1000], minval=-2**31, maxval=2**31 - 1, dtype=tf.int32).numpy()
    assert big.min() < -2**30 and big.max() > 2**30
    wide = tf.random.uniform([1000], minval=0, maxval=2**40, dtype=tf.int64).numpy()
    assert wide.min() >= 0 and wide.max() < 2**40 and wide.max() > 2**39


# --- shapes and arguments -----------------------------------------------------------------
@pytest.mark.parametrize("shape", [[], [0], (2, 0, 3), (4,), [2, 3]])
def test_shapes(shape):
    for x in (tf.random.normal(shape), tf.random.uniform(shape, maxval=4, dtype=tf.int32),
              tf.random.truncated_normal(shape),
              tf.random.stateless_uniform(shape, seed=[1, 2]),
              tf.random.stateless_normal(shape, seed=[1, 2])):
        assert tuple(x.shape) == tuple(shape)


def test_shape_spellings():
    tf.random.set_seed(2)
    ref = tf.random.stateless_normal([2, 3], seed=[1, 2]).numpy()
    for shape in ((2, 3), tf.TensorShape([2, 3]), np.array([2, 3]),
                  tf.convert_to_tensor([2, 3]), tf.convert_to_tensor(np.array([2, 3], np.int64)),
                  [tf.convert_to_tensor(2), 3]):
        np.testing.assert_array_equal(tf.random.stateless_normal(shape, seed=[1, 2]).numpy(),
                                      ref)
        assert tuple(tf.random.uniform(shape).shape) == (2, 3)


def test_alg_argument():
    ref = tf.random.stateless_uniform([3], seed=[1, 2]).numpy()
    for alg in ("auto_select", "threefry", "PHILOX", 1, None):
        np.testing.assert_array_equal(
            tf.random.stateless_uniform([3], seed=[1, 2], alg=alg).numpy(), ref)
    with pytest.raises(ValueError, match="stateless_uniform"):
        tf.random.stateless_uniform([3], seed=[1, 2], alg="bogus")


BAD = [
    (lambda: tf.random.uniform([2], dtype=tf.int32), ValueError, "random.uniform"),
    (lambda: tf.random.uniform([2], dtype=tf.int8, maxval=3), ValueError, "random.uniform"),
    (lambda: tf.random.uniform([2], dtype=tf.bool, maxval=3), ValueError, "random.uniform"),
    (lambda: tf.random.stateless_uniform([2], seed=[1, 2], dtype=tf.int32), ValueError,
     "stateless_uniform"),
    (lambda: tf.random.stateless_uniform([2], seed=[1, 2], minval=None, maxval=3,
                                         dtype=tf.int64), ValueError, "stateless_uniform"),
    (lambda: tf.random.normal([2], dtype=tf.int32), TypeError, "random.normal"),
    (lambda: tf.random.truncated_normal([2], dtype=tf.int64), TypeError, "truncated_normal"),
    (lambda: tf.random.stateless_normal([2], seed=[1, 2], dtype=tf.int32), TypeError,
     "stateless_normal"),
    (lambda: tf.random.normal([-1, 2]), InvalidArgumentError, "random_standard_normal"),
    (lambda: tf.random.uniform([3, -2]), InvalidArgumentError, "random_uniform"),
    (lambda: tf.random.stateless_normal([-1], seed=[1, 2]), InvalidArgumentError,
     "stateless_random_normal"),
    (lambda: tf.random.normal(3), InvalidArgumentError, "random.normal"),
    (lambda: tf.random.normal([2.5]), InvalidArgumentError, "random.normal"),
    (lambda: tf.random.normal(tf.TensorShape([2, None])), ValueError, "random.normal"),
    (lambda: tf.random.normal(tf.convert_to_tensor([2.0])), InvalidArgumentError,
     "random.normal"),
    (lambda: tf.random.stateless_normal([2], seed=[1, 2, 3]), InvalidArgumentError,
     "stateless_random_normal"),
    (lambda: tf.random.stateless_uniform([2], seed=1), InvalidArgumentError,
     "stateless_random_uniform"),
    (lambda: tf.random.stateless_normal([2], seed=[1.0, 2.0]), InvalidArgumentError,
     "stateless_random_normal"),
    (lambda: tf.random.stateless_normal([2], seed=tf.convert_to_tensor(np.array([1, 2],
                                                                            np.int16))),
     InvalidArgumentError, "stateless_random_normal"),
    (lambda: tf.random.stateless_truncated_normal([2], seed=[[1, 2]]), InvalidArgumentError,
     "stateless_random_truncated_normal"),
    (lambda: tf.random.uniform([2], minval=3, maxval=3, dtype=tf.int32), InvalidArgumentError,
     "random_uniform_int"),
    (lambda: tf.random.uniform([2], minval=[1, 2], maxval=5, dtype=tf.int32),
     InvalidArgumentError, "random_uniform_int"),
    (lambda: tf.random.stateless_uniform([2], seed=[1, 2], minval=5, maxval=-5,
                                         dtype=tf.int64), InvalidArgumentError,
     "stateless_random_uniform_int"),
    (lambda: tf.random.stateless_uniform([2], seed=[1, 2], minval=0, maxval=[5, 6],
                                         dtype=tf.int64), InvalidArgumentError,
     "stateless_random_uniform_int"),
    (lambda: tf.random.uniform([2], minval=1, maxval=5.5, dtype=tf.int32), TypeError, "5.5"),
    (lambda: tf.random.normal([2], mean=tf.convert_to_tensor(np.float64(1.0))), ValueError,
     "float64"),
    (lambda: tf.random.set_seed("a"), TypeError, "set_seed"),
]


@pytest.mark.parametrize("i", range(len(BAD)))
def test_bad_input(i):
    fn, exc, name = BAD[i]
    with pytest.raises(exc, match=name):
        fn()


# --- declarations -------------------------------------------------------------------------
def test_declarations():
    from flowjit.extend import api_for_op
    ops = {n: o for n, o in registry.OPS.items() if o.family == "random"}
    for name, o in ops.items():
        assert name in KERNELS
        assert o.differentiable is False
        assert o.stateful is name.startswith("random_")
        ns, fn = api_for_op(name).split(".")
        assert callable(getattr(getattr(tf, ns), fn))


def test_inference_with_unknown_dims():
    f32, i32, i64 = tf.float32, tf.int32, tf.int64
    infer = registry.infer_types
    assert infer(registry.get("stateless_random_normal"), [TT(i64, (None,))],
                 {"shape": (None, 3), "dtype": f32}) == (TT(f32, (None, 3)),)
    assert infer(registry.get("stateless_random_uniform_int"),
                 [TT(i32, None), TT(i64, None), TT(i64, ())],
                 {"shape": (2,)}) == (TT(i64, (2,)),)
    assert infer(registry.get("random_uniform_int"), [TT(i32, ()), TT(i32, ())],
                 {"shape": None, "seed": 0, "seed2": 0}) == (TT(i32, None),)
    for args in ([TT(i32, (None, 2))], [TT(tf.float32, (2,))]):
        with pytest.raises(registry.InferenceError):
            infer(registry.get("stateless_random_uniform"), args,
                  {"shape": (2,), "dtype": f32})
    with pytest.raises(registry.InferenceError, match="int32, int64"):
        infer(registry.get("stateless_random_uniform_full_int"), [TT(i32, (2,))],
              {"shape": (2,), "dtype": tf.float32})
    with pytest.raises(registry.InferenceError, match="maxval"):
        infer(registry.get("random_uniform_int"), [TT(i32, ()), TT(i64, ())],
              {"shape": (2,), "seed": 0, "seed2": 0})
    with pytest.raises(registry.InferenceError, match="dtype int32"):
        infer(registry.get("random_uniform"), [],
              {"shape": (2,), "dtype": i32, "seed": 0, "seed2": 0})
