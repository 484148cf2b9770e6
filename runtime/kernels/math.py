"""NumPy kernels for elementwise math."""
from __future__ import annotations

import numpy as np

from ...ir.dtypes import is_half_np
from ...ir.errors import InvalidArgumentError
from . import kernel, register
from .special import erf, erfc

_ERRSTATE = dict(divide="ignore", invalid="ignore", over="ignore", under="ignore")


def _erf(x):
    # special.erf maps elementwise through Python objects, and on a 0-d input that yields a
    # Python float without `.astype`: give it a 1-d view instead.
    x = np.asarray(x)
    return erf(x.reshape(-1)).reshape(x.shape)


# Never warn (comparisons, logic, NaN tests, min/max/abs/sign/rounding on any value).
for _name, _fn in {
    "abs": np.abs, "sign": np.sign, "round": np.round, "floor": np.floor, "ceil": np.ceil,
    "logical_not": np.logical_not, "is_nan": np.isnan, "is_finite": np.isfinite,
    "logical_and": np.logical_and,
    "logical_or": np.logical_or, "equal": np.equal, "not_equal": np.not_equal,
    "less": np.less, "less_equal": np.less_equal, "greater": np.greater,
    "greater_equal": np.greater_equal, "erf": _erf, "erfc": erfc,
}.items():
    register(_name, _fn)
# Float overflow/invalid/divide-by-zero give inf/NaN, as in TF (the warnings filter in
# kernels/__init__.py keeps NumPy quiet about it).
for _name, _fn in {
    "neg": np.negative, "square": np.square, "sqrt": np.sqrt, "exp": np.exp,
    "expm1": np.expm1, "log": np.log, "log1p": np.log1p, "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "tanh": np.tanh, "add": np.add, "sub": np.subtract, "mul": np.multiply,
    "acos": np.arccos, "asin": np.arcsin, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "atan2": np.arctan2,
}.items():
    register(_name, _fn)


def _choose(x, y, x_wins):
    """x where `x_wins` or x is NaN, else y: TF's max/min keep x on a tie (so the sign of a
    zero is x's) and propagate a NaN of either operand."""
    if np.result_type(x, y).kind not in "fcV":
        return None
    with np.errstate(invalid="ignore"):
        return np.where(x_wins | np.isnan(x), x, y).astype(np.result_type(x, y))


@kernel("maximum")
def maximum(x, y):
    out = _choose(x, y, np.greater_equal(x, y))
    return np.maximum(x, y) if out is None else out


@kernel("minimum")
def minimum(x, y):
    out = _choose(x, y, np.less_equal(x, y))
    return np.minimum(x, y) if out is None else out


@kernel("rsqrt")
def rsqrt(x):
    with np.errstate(**_ERRSTATE):
        return (1 / np.sqrt(x)).astype(x.dtype)


@kernel("reciprocal")
def reciprocal(x):
    if x.dtype.kind in "iu":
        _check_int_divisor(x)
        return _int_div(np.ones_like(x), x)
    with np.errstate(**_ERRSTATE):
        return np.reciprocal(x)


@kernel("sigmoid")
def sigmoid(x):
    # Split by sign so exp never overflows: 1/(1+e^-x) for x>=0, e^x/(1+e^x) otherwise.
    with np.errstate(**_ERRSTATE):
        e = np.exp(-np.abs(x))
        return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype)


@kernel("softplus")
def softplus(x):
    # log(1 + e^x) = max(x, 0) + log1p(e^-|x|), exact for large |x|.
    with np.errstate(**_ERRSTATE):
        return (np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))).astype(x.dtype)


def _check_int_divisor(y):
    if np.any(np.asarray(y) == 0):
        raise InvalidArgumentError(None, None, "Integer division by zero")


def _int_div(x, y):
    """TF's Div on integers truncates toward zero (C semantics). x - fmod(x, y) is an exact
    multiple of y, so the floor division below is exact; unlike |x| // |y| it cannot overflow
    on the most negative value (only INT_MIN / -1 wraps, as in TF)."""
    with np.errstate(over="ignore"):
        return np.floor_divide(x - np.fmod(x, y), y).astype(np.result_type(x, y))


@kernel("div")
def div(x, y):
    if np.result_type(x, y).kind in "iu":
        _check_int_divisor(y)
        return _int_div(x, y)
    with np.errstate(**_ERRSTATE):
        return np.true_divide(x, y)


@kernel("floordiv")
def floordiv(x, y):
    if np.result_type(x, y).kind in "iu":
        _check_int_divisor(y)
        with np.errstate(over="ignore"):  # INT_MIN // -1 wraps
            return np.floor_divide(x, y)
    # TF floors the rounded quotient (1.0 // 0.1 == 10), where NumPy's floor_divide
    # corrects for the remainder and gives 9.
    with np.errstate(**_ERRSTATE):
        return np.floor(np.true_divide(x, y))


@kernel("floormod")
def floormod(x, y):
    if np.result_type(x, y).kind in "iu":
        _check_int_divisor(y)
        return np.mod(x, y)
    # TF's: the C remainder, moved by y when its sign differs from y's (-0.0 stays -0.0,
    # where NumPy's mod gives +0.0).
    with np.errstate(**_ERRSTATE):
        r = np.fmod(x, y)
        return np.where((r != 0) & ((r < 0) != (y < 0)), r + y, r).astype(r.dtype)


@kernel("pow")
def pow_(x, y):
    if np.result_type(x, y).kind in "iu":
        if np.any(np.asarray(y) < 0):
            raise InvalidArgumentError(None, None,
                                       "Integers to negative integer powers are not allowed")
    with np.errstate(**_ERRSTATE):
        return np.power(x, y)


@kernel("select")
def select(condition, x, y):
    return np.where(condition, x, y)


@kernel("add_n")
def add_n(*xs):
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return np.asarray(out)


@kernel("cast")
def cast(x, dtype):
    target = np.dtype(dtype.np)
    x = np.asarray(x)
    if x.dtype.kind == "c" and target.kind not in "cb":  # TF keeps the real part
        x = x.real
    if target.kind in "iu" and (x.dtype.kind == "f" or is_half_np(x.dtype)):  # bf16: V
        if target in _WIDE_UNSIGNED:
            return _float_to_wide_unsigned(x, target)
        x = _float_to_int(x, target)
    if target.kind == "b":
        return x != 0
    with np.errstate(invalid="ignore", over="ignore"):  # out-of-range values wrap silently
        return x.astype(target)


def _float_to_int(x, target):
    """TF's conversion on x86: truncation toward zero into int32 (int64 for an int64 target);
    a value out of that range, NaN and +-Inf give its minimum (the "integer indefinite"),
    which then wraps to a narrower target (TF 2.21: cast(nan, int32) == -2**31, cast(inf,
    int8) == 0). Written out, as NumPy's own conversion of such values is platform-dependent."""
    wide = np.dtype(np.int64 if target == np.int64 else np.int32)
    bound = 2.0 ** (8 * wide.itemsize - 1)
    x = np.trunc(x.astype(np.float64))
    with np.errstate(invalid="ignore"):
        in_range = (x >= -bound) & (x < bound)    # False for NaN
    return np.where(in_range, x, -bound).astype(wide)


# TF 2.21's conversion on x86 into uint32 and uint64 (recorded): truncation; a value in
# [negative bound, 0) wraps as the signed integer would, one in [0, 2**bits) is exact, and
# anything else (NaN, +-Inf, too large) gives the "indefinite" 2**(bits-1), as TF's
# vectorized loop does (its scalar tail differs for some such values: README).
# target -> negative bound
_WIDE_UNSIGNED = {np.dtype(np.uint32): -2.0 ** 31, np.dtype(np.uint64): -2.0 ** 63}


def _float_to_wide_unsigned(x, target):
    bits = 8 * target.itemsize
    x = np.trunc(np.asarray(x, np.float64))
    with np.errstate(invalid="ignore"):
        negative = (x >= _WIDE_UNSIGNED[target]) & (x < 0)
        exact = (x >= 0) & (x < 2.0 ** bits)
    out = np.full(x.shape, 2 ** (bits - 1), target)
    out[negative] = x[negative].astype(np.int64).astype(target)
    out[exact] = x[exact].astype(target)
    return out


@kernel("clip_by_value")
def clip_by_value(t, lo, hi):
    # TF's order: the lower bound wins when the bounds cross, and a NaN stays NaN.
    out = maximum(minimum(t, hi), lo).astype(t.dtype)
    if out.shape != np.shape(t):   # bounds whose dims were unknown while tracing
        raise InvalidArgumentError(None, "clip_by_value", f"clip bounds of shapes "
                                   f"{list(np.shape(lo))}, {list(np.shape(hi))} do not "
                                   f"broadcast to the input shape {list(np.shape(t))}")
    return out


# --- complex numbers --------------------------------------------------------------------------
register("real", np.real)
register("imag", np.imag)
register("conj", np.conj)


@kernel("complex")
def complex_(real, imag):
    dt = np.complex64 if np.asarray(real).dtype == np.float32 else np.complex128
    # part by part: real + imag * 1j makes inf * 1j = nan + inf j (TF: complex(-inf, -inf)
    # is -inf - inf j)
    real, imag = np.broadcast_arrays(real, imag)
    out = np.empty(real.shape, dt)
    out.real, out.imag = real, imag
    return out
