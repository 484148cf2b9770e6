"""Elementwise math -> StableHLO. Binary ops broadcast their operands to the result shape
first (df broadcasts implicitly like NumPy; StableHLO needs equal shapes).

Value-dependent errors of the NumPy kernels cannot be raised inside XLA, so XLA's own
definitions apply there (tests/lowering/test_xla_math.py checks them): integer x / 0 == -1
(all bits set: 255 for uint8) and x % 0 == x, so floordiv by zero gives -1 or -2 and
floormod by zero gives x; an integer to a negative power is 0, except 1 ** n == 1 and
(-1) ** n == +-1.
"""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...runtime.jax_internals import chlo, hlo
from .core import register_lowering

UNARY = {
    "neg": hlo.negate, "abs": hlo.abs, "sign": hlo.sign,
    "rsqrt": hlo.rsqrt, "exp": hlo.exponential, "expm1": hlo.exponential_minus_one,
    "log": hlo.log, "log1p": hlo.log_plus_one, "sin": hlo.sine, "cos": hlo.cosine,
    "tan": hlo.tan, "tanh": hlo.tanh, "sigmoid": hlo.logistic, "erf": chlo.erf,
    "floor": hlo.floor, "ceil": hlo.ceil,
    "logical_not": hlo.not_, "is_finite": hlo.is_finite,
    "acos": chlo.acos, "asin": chlo.asin, "atan": chlo.atan, "sinh": chlo.sinh,
    "cosh": chlo.cosh, "asinh": chlo.asinh, "acosh": chlo.acosh, "atanh": chlo.atanh,
    "erfc": chlo.erfc,
}
BINARY = {
    "add": hlo.add, "sub": hlo.subtract, "mul": hlo.multiply,
    "maximum": hlo.maximum, "minimum": hlo.minimum,
    "logical_and": hlo.and_, "logical_or": hlo.or_, "atan2": hlo.atan2,
}
COMPARE = {"equal": "EQ", "not_equal": "NE", "less": "LT", "less_equal": "LE",
           "greater": "GT", "greater_equal": "GE"}


def _declare_unary(name, fn):
    register_lowering(name)(lambda ctx, op, x: fn(x))


def _declare_binary(name, fn):
    def rule(ctx, op, x, y):
        t = ctx.result_type(op)
        return fn(ctx.broadcast(x, t), ctx.broadcast(y, t))
    register_lowering(name)(rule)


def _declare_compare(name, direction):
    def rule(ctx, op, x, y):
        t = ctx.result_type(op)   # (bool: the operands broadcast to its shape only)
        return ctx.compare(ctx.broadcast(x, t), ctx.broadcast(y, t), direction)
    register_lowering(name)(rule)


for _n, _f in UNARY.items():
    _declare_unary(_n, _f)
for _n, _f in BINARY.items():
    _declare_binary(_n, _f)
for _n, _d in COMPARE.items():
    _declare_compare(_n, _d)


@register_lowering("sqrt")
def _sqrt(ctx, op, x):
    """stablehlo.sqrt, with C99's special values for complex x where XLA's expansion gives
    NaN: an infinite imaginary part gives (+inf, that part) whatever the real part,
    (inf, NaN) gives (inf, NaN) and (-inf, NaN) gives (NaN, inf); TF's XLA and eager kernels
    (and NumPy) answer so."""
    out = hlo.sqrt(x)
    if ctx.dtype(x) not in D.COMPLEX:
        return out
    re, im = hlo.real(x), hlo.imag(x)
    inf, nan = ctx.splat(np.inf, re.type), ctx.splat(np.nan, re.type)
    nan_im = ctx.compare(im, im, "NE")
    special = [(ctx.compare(re, inf, "EQ"), hlo.complex(inf, nan)),
               (ctx.compare(re, hlo.negate(inf), "EQ"), hlo.complex(nan, inf))]
    for real_is, value in special:
        out = hlo.select(hlo.and_(real_is, nan_im), value, out)
    return hlo.select(ctx.compare(hlo.abs(im), inf, "EQ"), hlo.complex(inf, im), out)


@register_lowering("pow")
def _pow(ctx, op, x, y):
    """Integer powers by square-and-multiply over every exponent bit: XLA's own integer power
    looks at the low 6 bits only (2 ** 64 == 1), while TF's kernel and NumPy wrap around."""
    t = ctx.result_type(op)
    x, y = ctx.broadcast(x, t), ctx.broadcast(y, t)
    dt = ctx.dtype(x)
    if dt.is_floating:
        return hlo.power(x, y)
    one, zero = ctx.splat(1, t), ctx.splat(0, t)
    result, base, e = one, x, y
    for _ in range(dt.size * 8 - 1):   # the bits of a non-negative (signed) exponent
        odd = ctx.compare(hlo.and_(e, one), zero, "NE")
        result = hlo.select(odd, hlo.multiply(result, base), result)
        base = hlo.multiply(base, base)
        e = hlo.shift_right_logical(e, one)
    return hlo.select(ctx.compare(y, zero, "LT"), hlo.power(x, y), result)


@register_lowering("square")
def _square(ctx, op, x):
    return hlo.multiply(x, x)


@register_lowering("round")
def _round(ctx, op, x):
    # integers are already round (stablehlo.round_nearest_even takes floats only)
    return hlo.round_nearest_even(x) if ctx.dtype(x).is_floating else x


@register_lowering("reciprocal")
def _reciprocal(ctx, op, x):
    return hlo.divide(ctx.splat(1, x.type), x)


@register_lowering("softplus")
def _softplus(ctx, op, x):
    # max(x, 0) + log1p(exp(-|x|)): exact for large |x|, like the NumPy kernel
    zero = ctx.splat(0, x.type)
    return hlo.add(hlo.maximum(x, zero), hlo.log_plus_one(hlo.exponential(hlo.negate(
        hlo.abs(x)))))


@register_lowering("is_nan")
def _is_nan(ctx, op, x):
    return ctx.compare(x, x, "NE")


def _int_quotient_remainder(ctx, x, y, t):
    """XLA's integer x / y and x % y (x / 0 == -1, all bits set; x % 0 == x; MIN / -1 == MIN),
    with the divisor made safe before dividing: XLA's constant folder evaluates a division by
    a constant zero (or MIN / -1) on the host, where the CPU traps and the process dies."""
    dt = ctx.dtype(x)
    trap = ctx.compare(y, ctx.splat(0, t), "EQ")
    by_zero = trap
    if not dt.is_unsigned:
        lowest = ctx.splat(np.iinfo(dt.np).min, t)
        trap = hlo.or_(trap, hlo.and_(ctx.compare(x, lowest, "EQ"),
                                      ctx.compare(y, ctx.splat(-1, t), "EQ")))
    safe = hlo.select(trap, ctx.splat(1, t), y)
    all_bits = ctx.splat(np.iinfo(dt.np).max if dt.is_unsigned else -1, t)
    q = hlo.select(by_zero, all_bits, hlo.divide(x, safe))
    r = hlo.select(by_zero, x, hlo.remainder(x, safe))
    return q, r


@register_lowering("div")
def _div(ctx, op, x, y):
    t = ctx.result_type(op)
    x, y = ctx.broadcast(x, t), ctx.broadcast(y, t)
    if ctx.dtype(x).is_floating or ctx.dtype(x).is_complex:
        return hlo.divide(x, y)
    return _int_quotient_remainder(ctx, x, y, t)[0]


@register_lowering("floordiv")
def _floordiv(ctx, op, x, y):
    t = ctx.result_type(op)
    x, y = ctx.broadcast(x, t), ctx.broadcast(y, t)
    if ctx.dtype(x).is_floating:
        return hlo.floor(hlo.divide(x, y))
    # integer division truncates; step down when the signs differ and there is a remainder
    q, rem = _int_quotient_remainder(ctx, x, y, t)
    if ctx.dtype(x).is_unsigned:
        return q
    zero = ctx.splat(0, t)
    adjust = hlo.and_(ctx.compare(rem, zero, "NE"),
                      ctx.compare(ctx.compare(x, zero, "LT"), ctx.compare(y, zero, "LT"),
                              "NE"))
    return hlo.select(adjust, hlo.subtract(q, ctx.splat(1, t)), q)


@register_lowering("floormod")
def _floormod(ctx, op, x, y):
    t = ctx.result_type(op)
    x, y = ctx.broadcast(x, t), ctx.broadcast(y, t)
    rem = hlo.remainder(x, y) if ctx.dtype(x).is_floating else \
        _int_quotient_remainder(ctx, x, y, t)[1]
    if ctx.dtype(x).is_unsigned:
        return rem
    zero = ctx.splat(0, t)
    adjust = hlo.and_(ctx.compare(rem, zero, "NE"),
                      ctx.compare(ctx.compare(rem, zero, "LT"), ctx.compare(y, zero, "LT"),
                              "NE"))
    return hlo.select(adjust, hlo.add(rem, y), rem)


@register_lowering("select")
def _select(ctx, op, c, x, y):
    t = ctx.result_type(op)
    return hlo.select(ctx.broadcast(c, t), ctx.broadcast(x, t), ctx.broadcast(y, t))


@register_lowering("add_n")
def _add_n(ctx, op, *xs):
    out = xs[0]
    for x in xs[1:]:
        out = hlo.add(out, x)
    return out


@register_lowering("cast")
def _cast(ctx, op, x, *, dtype):
    t = ctx.result_type(op)
    src, dst = ctx.dtype(x), dtype
    if dst.is_bool:
        return ctx.compare(x, ctx.splat(0, x.type), "NE")
    if src.is_complex and not dst.is_complex:   # TF keeps the real part
        x, src = hlo.real(x), src.real_dtype
    if src.is_floating and dst in _WIDE_UNSIGNED:
        return _float_to_wide_unsigned(ctx, x, dst, t)
    if src.is_floating and dst.is_integer:
        return _float_to_int(ctx, x, dst, t)
    return hlo.convert(t, x)


# A half float's (exponent, mantissa) bits. Widened for a conversion to an integer, the value
# keeps the half type's rounding through reduce_precision: XLA's CPU float normalization
# computes the producer in float32 and drops the convert pair around it (cast(cos(x), int64) of
# a bfloat16 0.028 gave 0, TF 2.21 under jit_compile 1; TF converts from the half type).
_HALF_BITS = {D.float16: (5, 10), D.bfloat16: (8, 7)}


def _from_half(ctx, x, wide):
    bits = _HALF_BITS.get(ctx.dtype(x))
    y = ctx.convert(x, wide)
    return y if bits is None else hlo.reduce_precision(y, *bits)


def _float_to_int(ctx, x, dst, t):
    """Truncation toward zero, as TF (and the kernel) convert on x86: into a 32-bit integer
    (64-bit for an int64 target), where a value out of range, NaN and +-Inf give that type's
    minimum (the x86 "integer indefinite"), then wrapped to the target width. XLA's convert
    alone would saturate instead."""
    wide = D.int64 if dst is D.int64 else D.int32
    x = _from_half(ctx, x, D.float32)   # exact; holds 2**31
    wide_t = ctx.tensor_type(wide, ctx.shape(x))
    bound = 2.0 ** (8 * wide.size - 1)                 # exact in float32 and float64
    in_range = hlo.and_(ctx.compare(x, ctx.splat(-bound, x.type), "GE"),
                        ctx.compare(x, ctx.splat(bound, x.type), "LT"))
    value = hlo.select(in_range, hlo.convert(wide_t, x), ctx.splat(wide.min, wide_t))
    return value if wide is dst else hlo.convert(t, value)


# As the kernel's table (runtime/kernels/math.py): target -> negative bound
_WIDE_UNSIGNED = {D.uint32: -2.0 ** 31, D.uint64: -2.0 ** 63}


def _float_to_wide_unsigned(ctx, x, dst, t):
    """TF's x86 conversion into uint32/uint64 (see the kernel), computed in float64."""
    bits = 8 * dst.size
    x = _from_half(ctx, x, D.float64)
    f = x.type
    negative = hlo.and_(ctx.compare(x, ctx.splat(_WIDE_UNSIGNED[dst], f), "GE"),
                        ctx.compare(x, ctx.splat(0.0, f), "LT"))
    exact = hlo.and_(ctx.compare(x, ctx.splat(0.0, f), "GE"),
                     ctx.compare(x, ctx.splat(2.0 ** bits, f), "LT"))
    wrapped = hlo.convert(t, hlo.convert(ctx.tensor_type(D.int64, ctx.shape(x)), x))
    out = hlo.select(negative, wrapped, ctx.splat(2 ** (bits - 1), t))
    return hlo.select(exact, hlo.convert(t, x), out)


@register_lowering("clip_by_value")
def _clip(ctx, op, x, lo, hi):
    t = ctx.result_type(op)
    return hlo.maximum(hlo.minimum(x, ctx.broadcast(hi, t)), ctx.broadcast(lo, t))


# --- complex numbers --------------------------------------------------------------------------
register_lowering("real")(lambda ctx, op, x: hlo.real(x))
register_lowering("imag")(lambda ctx, op, x: hlo.imag(x))
register_lowering("conj")(lambda ctx, op, x: hlo.complex(hlo.real(x), hlo.negate(hlo.imag(x))))


@register_lowering("complex")
def _complex(ctx, op, re, im):
    t = ctx.result_type(op)   # (complex: the parts broadcast to its shape only)
    return hlo.complex(ctx.broadcast(re, t), ctx.broadcast(im, t))
