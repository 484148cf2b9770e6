"""StableHLO lowering rules: random family.

Stateless ops rebuild the kernels' Threefry-2x32 stream (runtime/kernels/random.py documents
the bit layout) with uint32 adds, xors, shifts and ors, then map the words to values exactly as
the kernels do, so integers and uniform floats are bit-identical to eager and normals /
truncated normals agree to a few ulps (XLA's log, cos and sqrt, and fused multiply-adds, may
round differently from NumPy's).

Stateful ops keep their stream position in the NumPy kernel layer. Under XLA each one (at the
function's top level) takes a host input, uint32[4] = (key0, key1, lo32, hi32 of the first
block), which the runtime claims with the kernels' `reserve` before every execution; the rule
generates that call's words from it. So compiled calls draw exactly the words eager and
executor calls would, and advance the same stream positions. Inside a loop or branch an op
would need one claim per iteration or only when taken: refused, naming the op and line.

`*_uniform_int` with minval >= maxval: the kernel raises, XLA cannot raise on values, so the
lowering returns minval everywhere (documented and tested).
"""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...ir.dialect import from_xdsl_type
from ...ir.errors import UnimplementedError
from ...runtime.jax_internals import hlo, ir
from ...runtime.kernels import random as kernels
from .core import _where, register_host_input, register_lowering

_signless = ir.IntegerType.get_signless
# Threefry-2x32 constants and the seed fold, as runtime/kernels/random.py defines them
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA
_GOLDEN = 0x9E3779B9


def _unsigned(bits: int):
    return ir.IntegerType.get_unsigned(bits)


def _vec(shape, elem):
    return ir.RankedTensorType.get(list(shape), elem)


def _const(ctx, value, np_dtype, shape=()):
    """A constant of a NumPy scalar type (uint32 etc. are not flowjit dtypes), splatted."""
    c = ctx.constant(np.asarray(value, dtype=np_dtype))
    return ctx.spread(c, shape, ()) if shape else c


def _scalar_of(ctx, v):
    """The one element of a [1] vector as a rank-0 value."""
    return ctx.reshape(v, [])


# --- Threefry-2x32 ------------------------------------------------------------------------
def _seed_key(ctx, seed):
    """The two uint32 key words of a [2] int32/int64 seed: each element sign-extended to
    64 bits, then lo32 ^ (hi32 * golden)."""
    u32, u64 = _unsigned(32), _unsigned(64)
    s64 = hlo.convert(_vec([2], _signless(64)), seed)          # sign-extends an int32 seed
    bits = hlo.bitcast_convert(_vec([2], u64), s64)
    lo = hlo.convert(_vec([2], u32), hlo.and_(bits, _const(ctx, 0xFFFFFFFF, np.uint64, [2])))
    hi = hlo.convert(_vec([2], u32), hlo.shift_right_logical(bits, _const(ctx, 32, np.uint64,
                                                                          [2])))
    folded = hlo.xor(lo, hlo.multiply(hi, _const(ctx, _GOLDEN, np.uint32, [2])))
    return _scalar_of(ctx, ctx.slice(folded, [0], [1])), _scalar_of(ctx, ctx.slice(folded, [1], [2]))


def _threefry(ctx, k0, k1, x0, x1):
    """Threefry-2x32, 20 rounds, on uint32 vectors x0, x1 with scalar uint32 key words."""
    shape = ctx.shape(x0)
    ks2 = hlo.xor(hlo.xor(k0, k1), _const(ctx, _PARITY, np.uint32))
    ks = [ctx.spread(k, shape, ()) for k in (k0, k1, ks2)]
    rot = {r: (_const(ctx, r, np.uint32, shape), _const(ctx, 32 - r, np.uint32, shape))
           for group in _ROTATIONS for r in group}
    x0 = hlo.add(x0, ks[0])
    x1 = hlo.add(x1, ks[1])
    for group in range(5):
        for r in _ROTATIONS[group % 2]:
            left, right = rot[r]
            x0 = hlo.add(x0, x1)
            x1 = hlo.or_(hlo.shift_left(x1, left), hlo.shift_right_logical(x1, right))
            x1 = hlo.xor(x1, x0)
        x0 = hlo.add(x0, ks[(group + 1) % 3])
        x1 = hlo.add(hlo.add(x1, ks[(group + 2) % 3]),
                     _const(ctx, group + 1, np.uint32, shape))
    return x0, x1


def _words(ctx, seed, n: int):
    """The first `n` uint32 words of the stateless stream of `seed` (stream 0, offset 0):
    block i hashes the counter (lo32(i), hi32(i)) into words 2i and 2i+1."""
    u32 = _unsigned(32)
    k0, k1 = _seed_key(ctx, seed)
    blocks = (n + 1) // 2
    if blocks <= 1 << 32:
        lo = ctx.iota(_vec([blocks], u32), 0)
        hi = _const(ctx, 0, np.uint32, [blocks])
    else:
        lo, hi = _split64(ctx, ctx.iota(_vec([blocks], _unsigned(64)), 0))
    return _hash_blocks(ctx, k0, k1, lo, hi, n)


def _split64(ctx, idx):
    """(lo32, hi32) of a uint64 vector."""
    t = _vec(ctx.shape(idx), _unsigned(32))
    mask = _const(ctx, 0xFFFFFFFF, np.uint64, ctx.shape(idx))
    return (hlo.convert(t, hlo.and_(idx, mask)),
            hlo.convert(t, hlo.shift_right_logical(idx, _const(ctx, 32, np.uint64,
                                                               ctx.shape(idx)))))


def _hash_blocks(ctx, k0, k1, lo, hi, n: int):
    """The first `n` words of the blocks whose counters are (lo, hi): outputs interleaved."""
    u32 = _unsigned(32)
    blocks = ctx.shape(lo)[0]
    y0, y1 = _threefry(ctx, k0, k1, lo, hi)
    col = _vec([blocks, 1], u32)
    pairs = hlo.concatenate([hlo.reshape(col, y0), hlo.reshape(col, y1)], 1)
    flat = hlo.reshape(_vec([2 * blocks], u32), pairs)
    return flat if 2 * blocks == n else ctx.slice(flat, [0], [n])


def _claimed_words(ctx, claim, n: int, stream: int):
    """`n` words of a stateful stream from its host input (key0, key1, lo32, hi32 of the
    first block), as the kernels' `words(key, n, offset, stream)`."""
    u64 = _unsigned(64)
    k0, k1, off_lo, off_hi = (_scalar_of(ctx, ctx.slice(claim, [i], [i + 1])) for i in range(4))
    offset = hlo.or_(hlo.shift_left(hlo.convert(_vec([], u64), off_hi),
                                    _const(ctx, 32, np.uint64)),
                     hlo.convert(_vec([], u64), off_lo))
    blocks = (n + 1) // 2
    idx = hlo.add(ctx.iota(_vec([blocks], u64), 0),
                  ctx.spread(offset, [blocks], ()))
    lo, hi = _split64(ctx, idx)
    hi = hlo.xor(hi, _const(ctx, stream, np.uint32, [blocks]))
    return _hash_blocks(ctx, k0, k1, lo, hi, n)


def _even_odd(ctx, w):
    """(w[0::2], w[1::2]) of a word vector of even length."""
    n = ctx.shape(w)[0]
    return ctx.slice(w, [0], [n], [2]), ctx.slice(w, [1], [n], [2])


def _bits64(ctx, w):
    """uint64 values from (high, low) word pairs."""
    hi, lo = _even_odd(ctx, w)
    t = _vec(ctx.shape(hi), _unsigned(64))
    hi, lo = hlo.convert(t, hi), hlo.convert(t, lo)
    return hlo.or_(hlo.shift_left(hi, _const(ctx, 32, np.uint64, ctx.shape(hi))), lo)


# --- words -> values ----------------------------------------------------------------------
# float dtype -> (unsigned bits, kept mantissa bits, pattern of 1.0)
_MANTISSA = {D.float16: (16, 10, 0x3C00), D.bfloat16: (16, 7, 0x3F80),
             D.float32: (32, 23, 0x3F800000)}


def _uniform01(ctx, w, dt):
    """[0, 1) values of dtype `dt` from the top mantissa bits (two words per float64)."""
    if dt is D.float64:
        bits = hlo.shift_right_logical(_bits64(ctx, w), _const(ctx, 12, np.uint64,
                                                               [ctx.shape(w)[0] // 2]))
        n = ctx.shape(bits)
        bits = hlo.or_(bits, _const(ctx, 0x3FF0000000000000, np.uint64, n))
        f = hlo.bitcast_convert(ctx.tensor_type(D.float64, n), bits)
        return hlo.subtract(f, ctx.splat(1, f.type))
    width, keep, one = _MANTISSA[dt]
    n = ctx.shape(w)
    ut = {16: np.uint16, 32: np.uint32}[width]
    top = hlo.shift_right_logical(w, _const(ctx, 32 - keep, np.uint32, n))
    if width != 32:
        top = hlo.convert(_vec(n, _unsigned(width)), top)
    bits = hlo.or_(top, _const(ctx, one, ut, n))
    f = hlo.bitcast_convert(ctx.tensor_type(dt, n), bits)
    return hlo.subtract(f, ctx.splat(1, f.type))


def _compute_dtype(dt):
    return D.float64 if dt is D.float64 else D.float32


def _words_per_value(dt) -> int:
    return 2 if dt.np.itemsize == 8 else 1


def _normal(ctx, w, dt):
    """Box-Muller on consecutive uniform pairs, in float32 (float64 for float64)."""
    ct = _compute_dtype(dt)
    u1, u2 = _even_odd(ctx, _uniform01(ctx, w, ct))
    one = ctx.splat(1, u1.type)
    r = hlo.sqrt(hlo.multiply(ctx.splat(-2, u1.type), hlo.log(hlo.subtract(one, u1))))
    z = hlo.multiply(r, hlo.cosine(hlo.multiply(ctx.splat(2 * np.pi, u2.type), u2)))
    return z if ct is dt else hlo.convert(ctx.tensor_type(dt, ctx.shape(z)), z)


# Giles' single-precision erfinv (central branch), as the kernel writes it
_ERFINV = (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
           -0.00417768164, 0.246640727, 1.50140941)


def _truncated_normal(ctx, w, dt):
    ct = _compute_dtype(dt)
    u = _uniform01(ctx, w, ct)

    def c(v):
        return ctx.splat(v, u.type)
    x = hlo.multiply(hlo.subtract(hlo.multiply(c(2), u), c(1)), c(0.9544997361036416))
    t = hlo.subtract(hlo.negate(hlo.log(hlo.multiply(hlo.subtract(c(1), x),
                                                     hlo.add(c(1), x)))), c(2.5))
    p = c(2.81022636e-08)
    for coef in _ERFINV:
        p = hlo.add(c(coef), hlo.multiply(p, t))
    z = hlo.multiply(c(np.sqrt(2)), hlo.multiply(p, x))
    z = hlo.clamp(ctx.constant(np.asarray(-2, ct.np)), z, ctx.constant(np.asarray(2, ct.np)))
    return z if ct is dt else hlo.convert(ctx.tensor_type(dt, ctx.shape(z)), z)


def _uint_bits(ctx, w, dt):
    return _bits64(ctx, w) if dt.np.itemsize == 8 else w


def _full_int(ctx, w, dt):
    bits = _uint_bits(ctx, w, dt)
    return hlo.bitcast_convert(ctx.tensor_type(dt, ctx.shape(bits)), bits)


# kind -> (words per value of the result dtype, words -> flat values)
_DISTRIBUTIONS = {
    "stateless_random_uniform": (_words_per_value, _uniform01),
    "stateless_random_normal": (lambda dt: 2 * _words_per_value(_compute_dtype(dt)), _normal),
    "stateless_random_truncated_normal": (lambda dt: _words_per_value(_compute_dtype(dt)),
                                          _truncated_normal),
    "stateless_random_uniform_full_int": (_words_per_value, _full_int),
}


def _declare_stateless(name):
    per, make = _DISTRIBUTIONS[name]

    def rule(ctx, op, seed, *, dtype):
        out_t = ctx.result_type(op)
        if ctx.is_empty(out_t):
            return ctx.zeros(out_t)
        n = int(np.prod(ir.RankedTensorType(out_t).shape, dtype=np.int64))
        return hlo.reshape(out_t, make(ctx, _words(ctx, seed, n * per(dtype)), dtype))
    register_lowering(name)(rule)


for _name in _DISTRIBUTIONS:
    _declare_stateless(_name)


def _uniform_int(ctx, out_t, w, minval, maxval):
    """`minval + bits % (maxval - minval)` in unsigned arithmetic; minval everywhere when
    minval >= maxval (the kernel raises there, XLA cannot raise on values)."""
    bits = _uint_bits(ctx, w, ctx.dtype(minval))
    ut = ir.RankedTensorType(bits.type).element_type
    lo = hlo.bitcast_convert(_vec([], ut), minval)
    span = hlo.subtract(hlo.bitcast_convert(_vec([], ut), maxval), lo)
    n_vals = ctx.shape(bits)
    vals = hlo.add(hlo.remainder(bits, ctx.spread(span, n_vals, ())), ctx.spread(lo, n_vals, ()))
    vals = hlo.bitcast_convert(_vec(n_vals, ctx.elem_type(ctx.dtype(minval))), vals)
    ok = ctx.spread(ctx.compare(minval, maxval, "LT"), n_vals, ())
    return hlo.reshape(out_t, hlo.select(ok, vals, ctx.spread(minval, n_vals, ())))


@register_lowering("stateless_random_uniform_int")
def _stateless_uniform_int(ctx, op, seed, minval, maxval):
    out_t = ctx.result_type(op)
    if ctx.is_empty(out_t):
        return ctx.zeros(out_t)
    dt = ctx.dtype(minval)
    n = int(np.prod(ir.RankedTensorType(out_t).shape, dtype=np.int64))
    return _uniform_int(ctx, out_t, _words(ctx, seed, n * _words_per_value(dt)), minval, maxval)


# --- stateful: words claimed on the host per call -----------------------------------------
# stateful op -> the stateless op whose words -> values mapping it shares (None: integers)
_STATEFUL = {"random_uniform": "stateless_random_uniform",
             "random_standard_normal": "stateless_random_normal",
             "random_truncated_normal": "stateless_random_truncated_normal",
             "random_uniform_int": None}


def _call_words(name, out_t, dt) -> int:
    """How many words one call of stateful op `name` with values of `dt` consumes (as its
    kernel counts them)."""
    return kernels.words_per_call(name, ir.RankedTensorType(out_t).shape, dt.np)


def _declare_stateful(name, stateless):
    @register_host_input(name)
    def claim(ctx, op):
        attrs = op.python_attrs()     # (a host input, once per op: no rule)
        seed, seed2 = attrs["seed"], attrs["seed2"]
        dt = attrs["dtype"] if stateless else from_xdsl_type(op.operands[0].type).dtype
        n = _call_words(name, ctx.result_type(op), dt)

        def fill():
            k0, k1, first = kernels.reserve(name, seed, seed2, n)
            return np.array([k0, k1, first & 0xFFFFFFFF, first >> 32], np.uint32)
        return _vec([4], _unsigned(32)), fill

    def rule(ctx, op, *bounds, **attrs):
        claimed = ctx.host_inputs.get(op)
        if claimed is None:
            raise UnimplementedError(
                None, op.name, f"jit_compile=True: {name} at {_where(op)} is a stateful random "
                f"op inside a loop or branch, where each run would need its own claim on the "
                f"stream; draw the values outside it, use a tf.random.stateless_* op with an "
                f"explicit seed, or call the function with jit_compile=False")
        out_t = ctx.result_type(op)
        n = _call_words(name, out_t, attrs["dtype"] if stateless else ctx.dtype(bounds[0]))
        if n == 0:
            return ctx.zeros(out_t)
        w = _claimed_words(ctx, claimed, n, kernels.STREAMS[name])
        if stateless is None:
            return _uniform_int(ctx, out_t, w, *bounds)
        return hlo.reshape(out_t, _DISTRIBUTIONS[stateless][1](ctx, w, attrs["dtype"]))
    register_lowering(name)(rule)


for _name, _stateless in _STATEFUL.items():
    _declare_stateful(_name, _stateless)
