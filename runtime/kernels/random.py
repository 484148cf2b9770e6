"""NumPy kernels: random family.

Every random value comes from one counter-based generator, Threefry-2x32 with 20 rounds
(Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11), written with plain
uint32 adds, shifts, ors and xors so that the XLA lowering can rebuild it op for op and get the
same bits. The layout, which a lowering must follow exactly:

* key: the two seed elements, each sign-extended to int64, folded to uint32 as
  `lo32(s) ^ (hi32(s) * 0x9E3779B9)` (uint32 wrap-around; so int32 and int64 seeds of equal
  value agree, and seeds that differ only in their high word still differ).
* words: block `i` (i = offset, offset+1, ...) is hashed from the counter pair
  `(lo32(i), hi32(i) ^ stream)`; its two outputs are words `2i` and `2i+1` of the stream, so a
  smaller request is a prefix of a larger one. `stream` is 0 for stateless ops.
* floats come from the top mantissa bits: float32 `(w >> 9) | 0x3F800000` viewed as float32
  minus 1; float16 `(w >> 22) | 0x3C00`; bfloat16 `(w >> 25) | 0x3F80`; float64 from two words
  `((w[2k] << 32 | w[2k+1]) >> 12) | 0x3FF0000000000000`. All lie in [0, 1).
* normals: Box-Muller `sqrt(-2 log(1 - u1)) * cos(2 pi u2)` with u1, u2 from consecutive
  uniforms (1 - u1 is in (0, 1], so the log is finite); float16/bfloat16 compute in float32.
* truncated normals: inverse CDF, `sqrt(2) * erfinv((2u - 1) * erf(sqrt(2)))`, clipped to
  [-2, 2]; erfinv is Giles' single-precision central polynomial (its argument never leaves
  the central branch here).
* integers: `minval + (bits % (maxval - minval))` in unsigned arithmetic, one word per int32
  and two (high, low) per int64, as TF does; full-range integers are the bits themselves.

Stateful ops keep, per (op, seed, seed2), the number of blocks consumed: the stream continues
across calls, and `reset()` (called by `random.set_seed`) starts every stream again. Seeds
(0, 0) mean "not seeded" (TF's convention): such calls draw a fresh key from the OS entropy.
`reserve` is that bookkeeping alone, so an XLA computation can generate the words of a call
whose key and position the host claimed just before running it.
"""
from __future__ import annotations

import numpy as np

from ...ir.errors import InvalidArgumentError
from . import kernel

_U32 = np.uint32
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA
_GOLDEN = 0x9E3779B9  # odd, so the high word is spread over all 32 bits


def threefry2x32(key, x0, x1):
    """Threefry-2x32, 20 rounds: two uint32 key words, two uint32 counter arrays -> two uint32
    arrays."""
    k0, k1 = _U32(key[0]), _U32(key[1])
    ks = (k0, k1, k0 ^ k1 ^ _U32(_PARITY))
    x0 = np.asarray(x0, _U32) + ks[0]
    x1 = np.asarray(x1, _U32) + ks[1]
    for group in range(5):
        for r in _ROTATIONS[group % 2]:
            x0 = x0 + x1
            x1 = (x1 << _U32(r)) | (x1 >> _U32(32 - r))
            x1 = x1 ^ x0
        # key injection after every four rounds
        x0 = x0 + ks[(group + 1) % 3]
        x1 = x1 + ks[(group + 2) % 3] + _U32(group + 1)
    return x0, x1


def words(key, n: int, offset: int = 0, stream: int = 0):
    """`n` uint32 words of the stream `key`, starting at block `offset`."""
    blocks = np.arange(offset, offset + (n + 1) // 2, dtype=np.uint64)
    lo = (blocks & np.uint64(0xFFFFFFFF)).astype(_U32)
    hi = (blocks >> np.uint64(32)).astype(_U32) ^ _U32(stream)
    y0, y1 = threefry2x32(key, lo, hi)
    return np.stack([y0, y1], axis=-1).reshape(-1)[:n]


def seed_key(seed):
    """The Threefry key of a seed pair (see the module docstring)."""
    s = np.asarray(seed).astype(np.int64).view(np.uint64)
    lo = (s & np.uint64(0xFFFFFFFF)).astype(_U32)
    hi = (s >> np.uint64(32)).astype(_U32)
    folded = lo ^ (hi * _U32(_GOLDEN))
    return int(folded[0]), int(folded[1])


# --- words -> values ----------------------------------------------------------------------
# dtype -> (unsigned view type, bits kept, pattern of 1.0)
_MANTISSA = {"float16": (np.uint16, 10, 0x3C00),
             "bfloat16": (np.uint16, 7, 0x3F80),
             "float32": (np.uint32, 23, 0x3F800000)}


def _compute_dtype(dt):
    return np.dtype(np.float64) if dt == np.float64 else np.dtype(np.float32)


def _words_per_value(dt) -> int:
    return 2 if dt.itemsize == 8 else 1


def uniform01(w, dt):
    """One [0, 1) value of dtype `dt` per word (two words per float64)."""
    dt = np.dtype(dt)
    if dt == np.float64:
        bits = (w[0::2].astype(np.uint64) << np.uint64(32)) | w[1::2].astype(np.uint64)
        bits = (bits >> np.uint64(12)) | np.uint64(0x3FF0000000000000)
        return bits.view(np.float64) - np.float64(1)
    view, keep, one = _MANTISSA[dt.name]
    bits = (w >> _U32(32 - keep)).astype(view) | view(one)
    return bits.view(dt) - dt.type(1)


def _erfinv_central(x):
    """Giles' single-precision erfinv, valid where -log(1 - x^2) < 5 (|x| < 0.9966)."""
    t = -np.log((1 - x) * (1 + x)) - x.dtype.type(2.5)
    p = x.dtype.type(2.81022636e-08)
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
              -0.00125372503, -0.00417768164, 0.246640727, 1.50140941):
        p = x.dtype.type(c) + p * t
    return p * x


def _normal(w, dt):
    ct = _compute_dtype(dt)
    u = uniform01(w, ct).reshape(-1, 2)
    r = np.sqrt(ct.type(-2) * np.log(ct.type(1) - u[:, 0]))
    return (r * np.cos(ct.type(2 * np.pi) * u[:, 1])).astype(dt)


def _truncated_normal(w, dt):
    ct = _compute_dtype(dt)
    u = uniform01(w, ct)
    x = (ct.type(2) * u - ct.type(1)) * ct.type(0.9544997361036416)  # erf(sqrt(2))
    z = ct.type(np.sqrt(2)) * _erfinv_central(x)
    return np.clip(z, ct.type(-2), ct.type(2)).astype(dt)


def _uint_bits(w, dt):
    if np.dtype(dt).itemsize == 8:
        return (w[0::2].astype(np.uint64) << np.uint64(32)) | w[1::2].astype(np.uint64)
    return w


# kind -> (words per value for dtype, words -> values)
_DISTRIBUTIONS = {
    "uniform": (_words_per_value, uniform01),
    "normal": (lambda dt: 2 * _words_per_value(_compute_dtype(dt)), _normal),
    "truncated_normal": (lambda dt: _words_per_value(_compute_dtype(dt)), _truncated_normal),
    "full_int": (_words_per_value, lambda w, dt: _uint_bits(w, dt).view(dt)),
}


def _check_bounds(minval, maxval):
    if not minval < maxval:
        raise InvalidArgumentError(None, None, f"Need minval < maxval, got {minval} >= {maxval}")


def _uniform_int(w, minval, maxval):
    dt = np.dtype(minval.dtype)
    ut = np.uint64 if dt.itemsize == 8 else np.uint32
    # 1-element arrays, not scalars: array arithmetic wraps silently
    lo = np.asarray(minval).reshape(1).view(ut)
    span = np.asarray(maxval).reshape(1).view(ut) - lo
    return ((_uint_bits(w, dt) % span) + lo).view(dt)


def _count(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


# --- stateless ----------------------------------------------------------------------------
def _stateless(kind):
    per, make = _DISTRIBUTIONS[kind]

    def fn(seed, *, shape, dtype):
        dt = dtype.np
        n = _count(shape)
        return make(words(seed_key(seed), n * per(dt)), dt).reshape(shape)
    return fn


for _kind, _name in (("uniform", "stateless_random_uniform"),
                     ("normal", "stateless_random_normal"),
                     ("truncated_normal", "stateless_random_truncated_normal"),
                     ("full_int", "stateless_random_uniform_full_int")):
    kernel(_name)(_stateless(_kind))


@kernel("stateless_random_uniform_int")
def stateless_random_uniform_int(seed, minval, maxval, *, shape):
    _check_bounds(minval, maxval)
    n = _count(shape) * _words_per_value(minval.dtype)
    return _uniform_int(words(seed_key(seed), n), minval, maxval).reshape(shape)


# --- stateful -----------------------------------------------------------------------------
# (op name, seed, seed2) -> blocks consumed so far, least recently used first. With a global
# seed every unseeded eager call brings a new seed2, so the table is capped; a stream unused
# for _MAX_STREAMS other streams starts again from its beginning.
_POSITIONS: dict = {}
_MAX_STREAMS = 1 << 16
_ENTROPY = np.random.default_rng()
# Each stateful op draws from its own counter range (the high counter word), so ops that share
# a seed pair give independent values, as TF's per-op kernels do.
STREAMS = {"random_uniform": 1 << 28, "random_standard_normal": 2 << 28,
            "random_truncated_normal": 3 << 28, "random_uniform_int": 4 << 28}


def reset():
    """Start every stateful stream again (called by `random.set_seed`)."""
    _POSITIONS.clear()


def reserve(opname, seed, seed2, n: int):
    """Claim the next `n` words of a stateful op's stream: returns (key0, key1, first block).
    Advances the stream's position (seeded) or draws a fresh key (unseeded), exactly once per
    call, whether the kernel or a compiled XLA function then generates the words."""
    if seed == 0 and seed2 == 0:
        k0, k1 = _ENTROPY.integers(0, 1 << 32, size=2, dtype=np.uint64)
        return int(k0), int(k1), 0
    slot = (opname, seed, seed2)
    pos = _POSITIONS.pop(slot, 0)
    _POSITIONS[slot] = pos + (n + 1) // 2
    if len(_POSITIONS) > _MAX_STREAMS:
        del _POSITIONS[next(iter(_POSITIONS))]
    return (*seed_key((seed, seed2)), pos)


def words_per_call(opname, shape, dtype) -> int:
    """How many stream words one call of a stateful op consumes (`dtype`: the result's, or
    the bounds' for random_uniform_int)."""
    kind = _KIND_OF[opname]
    per = _words_per_value if kind is None else _DISTRIBUTIONS[kind][0]
    return _count(shape) * per(np.dtype(dtype))


def _draw(opname, seed, seed2, n):
    k0, k1, pos = reserve(opname, seed, seed2, n)
    return words((k0, k1), n, pos, STREAMS[opname])


def _stateful(opname, kind):
    make = _DISTRIBUTIONS[kind][1]

    def fn(*, shape, dtype, seed, seed2):
        dt = dtype.np
        return make(_draw(opname, seed, seed2, words_per_call(opname, shape, dt)), dt) \
            .reshape(shape)
    return fn


# stateful op -> its distribution (None: random_uniform_int, one or two words per integer)
_KIND_OF = {"random_uniform": "uniform", "random_standard_normal": "normal",
            "random_truncated_normal": "truncated_normal", "random_uniform_int": None}
for _name, _kind in _KIND_OF.items():
    if _kind is not None:
        kernel(_name)(_stateful(_name, _kind))


@kernel("random_uniform_int")
def random_uniform_int(minval, maxval, *, shape, seed, seed2):
    _check_bounds(minval, maxval)  # before drawing, so a failed call leaves the stream as is
    n = words_per_call("random_uniform_int", shape, minval.dtype)
    return _uniform_int(_draw("random_uniform_int", seed, seed2, n), minval, maxval) \
        .reshape(shape)
