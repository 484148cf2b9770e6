"""`tf.experimental.numpy`: NumPy's API over flowjit tensors (TF's `tnp`).

Every function converts its array arguments as NumPy would (Python floats default to float64,
ints to int64, as TF's tnp does) and promotes mixed dtypes with NumPy's rules
(`np.result_type`, Python scalars weak), then runs flowjit ops, so the functions trace into
graphs and compile under XLA like any other op. `ndarray` is flowjit's `Tensor`;
`experimental_enable_numpy_behavior()` gives tensors NumPy's methods (`.reshape((2, 3))`,
`.astype`, `.T`, `.sum()`, ...) as TF's does.

The op functions are looked up by public name when called (`_tf("math.sin")`): this module
only composes the TF API and needs nothing private from the op families.
"""
from __future__ import annotations

import builtins as _builtins   # the module defines `abs`, `all`, `any`, `sum`, ...
import functools
import math as _pymath
import sys

import numpy as np

from ..ir import dtypes as D
from .export import tf_export
from .eager.tensor import Tensor


def _tf(path: str):
    """The public flowjit function `path` ("math.sin"), resolved at call time."""
    return functools.reduce(getattr, path.split("."), sys.modules["flowjit"])


def _export(*names):
    return tf_export(*(f"experimental.numpy.{n}" for n in names))


def _is_tensor(x) -> bool:
    return hasattr(x, "dtype") and isinstance(getattr(x, "dtype"), D.DType)


# --- dtypes -----------------------------------------------------------------

for _name, _dt in {"bool_": D.bool_, "int8": D.int8, "int16": D.int16, "int32": D.int32,
                   "int64": D.int64, "uint8": D.uint8, "float16": D.float16,
                   "float32": D.float32, "float64": D.float64, "complex64": D.complex64,
                   "complex128": D.complex128}.items():
    _export(_name)(_dt.np.type)
for _extra in ("uint16", "uint32", "uint64"):
    _export(_extra)(getattr(np, _extra))
_export("float_")(np.float64)
_export("int_")(np.int64)
_export("complex_")(np.complex128)
_export("object_")(np.object_)
_export("string_")(np.bytes_)
_export("unicode_")(np.str_)
_export("inexact")(np.inexact)
_export("ndarray")(Tensor)
_export("pi")(_pymath.pi)
_export("e")(_pymath.e)
_export("inf")(_pymath.inf)
_export("newaxis")(None)
_export("finfo")(np.finfo)
_export("iinfo")(np.iinfo)
_export("issubdtype")(np.issubdtype)
_export("promote_types")(np.promote_types)


def _np_dtype(x):
    """What `np.result_type` should see for `x`: a dtype, or the Python scalar itself (weak)."""
    if _is_tensor(x):
        return x.dtype.np
    if isinstance(x, (bool, int, float, complex)):
        return x
    if isinstance(x, (np.ndarray, np.generic)):
        return x.dtype
    if isinstance(x, np.dtype):
        return x
    if isinstance(x, D.DType):
        return x.np
    # a Python list promotes as a Python scalar of its kind does (weak), as TF's tnp does
    return _WEAK_BY_KIND.get(np.asarray(_to_numpy_nested(x)).dtype.kind, 0.0)


_WEAK_BY_KIND = {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}


def _to_numpy_nested(x):
    if isinstance(x, (list, tuple)):
        return [_to_numpy_nested(v) for v in x]
    if _is_tensor(x):
        return x.numpy()
    return x


@_export("result_type")
def result_type(*arrays_and_dtypes):
    """NumPy's promotion of the arguments' dtypes (Python scalars weak), as a NumPy dtype."""
    items = [_np_dtype(a) if not isinstance(a, type) else np.dtype(a)
             for a in arrays_and_dtypes]
    return np.result_type(*items)


def _dt(dtype):
    return None if dtype is None else D.as_dtype(np.dtype(dtype) if not isinstance(
        dtype, D.DType) else dtype)


@_export("asarray", "asanyarray", "ascontiguousarray")
def asarray(a, dtype=None):
    """`a` as a tensor; a tensor already of `dtype` is returned as it is."""
    want = _dt(dtype)
    if _is_tensor(a) and not isinstance(a, (list, tuple)):
        if getattr(a, "_handle_name", None) is not None or not isinstance(a, Tensor):
            a = _tf("convert_to_tensor")(a)
        return a if want is None or a.dtype == want else _tf("cast")(a, want)
    if isinstance(a, (list, tuple)) and _builtins.any(_is_tensor(v) for v in _flatten(a)):
        parts = [asarray(v) for v in a]
        common = result_type(*parts) if want is None else want.np
        return _tf("stack")([asarray(p, common) for p in parts])
    arr = np.asarray(a, dtype=None if want is None else want.np)
    return _tf("constant")(arr)


def _flatten(x):
    if isinstance(x, (list, tuple)):
        for v in x:
            yield from _flatten(v)
    else:
        yield x


@_export("array")
def array(val, dtype=None, copy=True, ndmin=0):
    out = asarray(val, dtype)
    if copy and out is val:
        out = _tf("identity")(out)
    while out.shape.rank is not None and out.shape.rank < ndmin:
        out = _tf("expand_dims")(out, 0)
    return out


@_export("copy")
def copy(a):
    return _tf("identity")(asarray(a))


def _promote(*xs, to=None):
    """The arguments as tensors of one dtype: NumPy's result type, or `to`."""
    dtype = np.dtype(to) if to is not None else result_type(*xs)
    return [asarray(x, dtype) for x in xs]


def _promote_float(*xs):
    """The arguments promoted as a float function of them takes them: NumPy's result type,
    float64 where that is an integer or bool."""
    dtype = result_type(*xs)
    if not np.issubdtype(dtype, np.inexact):
        dtype = np.dtype(np.float64)
    return _promote(*xs, to=dtype)


def _float_type(x):
    """NumPy's dtype for a float function of `x` (ints and bools compute in float64)."""
    dt = _np_dtype(x)
    dt = np.asarray(dt).dtype if not isinstance(dt, np.dtype) else dt
    return dt if np.issubdtype(dt, np.inexact) else np.dtype(np.float64)


# --- elementwise ---------------------------------------------------------------

_UNARY_FLOAT = {   # NumPy name -> flowjit function; ints promote to float64
    "sqrt": "math.sqrt", "exp": "math.exp", "expm1": "math.expm1", "log": "math.log",
    "log1p": "math.log1p", "sin": "math.sin", "cos": "math.cos", "tan": "math.tan",
    "tanh": "math.tanh", "arcsin": "math.asin", "arccos": "math.acos", "arctan": "math.atan",
    "sinh": "math.sinh", "cosh": "math.cosh", "arcsinh": "math.asinh",
    "arccosh": "math.acosh", "arctanh": "math.atanh", "reciprocal": "math.reciprocal",
}
_UNARY_SAME = {    # dtype preserved
    "negative": "math.negative", "abs": "math.abs", "absolute": "math.abs",
    "sign": "math.sign", "square": "math.square", "conj": "math.conj",
    "conjugate": "math.conj", "bitwise_not": "bitwise.invert",
}


def _make_unary_float(public, path):
    def fn(x):
        x = asarray(x)
        return _tf(path)(asarray(x, _float_type(x)))
    fn.__name__ = public
    fn.__doc__ = f"NumPy's `{public}` (integers compute in float64)."
    return _export(public)(fn)


def _make_unary_same(public, path):
    def fn(x, out=None, where=None, **kwargs):
        if out is not None or where is not None:
            raise ValueError(f"{public}: `out` and `where` are not supported")
        return _tf(path)(asarray(x))
    fn.__name__ = public
    fn.__doc__ = f"NumPy's `{public}`."
    return _export(public)(fn)


for _n, _p in _UNARY_FLOAT.items():
    globals()[_n] = _make_unary_float(_n, _p)
for _n, _p in _UNARY_SAME.items():
    globals()[_n] = _make_unary_same(_n, _p)


@_export("log2")
def log2(x):
    x = asarray(x)
    x = asarray(x, _float_type(x))
    return _tf("math.log")(x) / asarray(np.log(2), x.dtype.np)


@_export("log10")
def log10(x):
    x = asarray(x)
    x = asarray(x, _float_type(x))
    return _tf("math.log")(x) / asarray(np.log(10), x.dtype.np)


@_export("exp2")
def exp2(x):
    x = asarray(x)
    x = asarray(x, _float_type(x))
    return _tf("math.pow")(asarray(2, x.dtype.np), x)


@_export("cbrt")
def cbrt(x):
    x = asarray(x)
    x = asarray(x, _float_type(x))
    mag = _tf("math.pow")(_tf("math.abs")(x), asarray(1 / 3, x.dtype.np))
    return _tf("math.sign")(x) * mag


@_export("deg2rad")
def deg2rad(x):
    x = asarray(x)
    x = asarray(x, _float_type(x))
    return x * asarray(np.pi / 180, x.dtype.np)


@_export("rad2deg")
def rad2deg(x):
    x = asarray(x)
    x = asarray(x, _float_type(x))
    return x * asarray(180 / np.pi, x.dtype.np)


@_export("positive")
def positive(x):
    return asarray(x)


@_export("fabs")
def fabs(x):
    x = asarray(x)
    return _tf("math.abs")(asarray(x, _float_type(x)))


@_export("floor")
def floor(x):
    x = asarray(x)
    return _tf("math.floor")(asarray(x, _float_type(x)))


@_export("ceil")
def ceil(x):
    x = asarray(x)
    return _tf("math.ceil")(asarray(x, _float_type(x)))


@_export("fix")
def fix(x):
    x = asarray(x)
    x = asarray(x, _float_type(x))
    return _tf("where")(x < 0, _tf("math.ceil")(x), _tf("math.floor")(x))


@_export("around", "round")
def around(a, decimals=0):
    """NumPy's round half to even, at `decimals` digits (negative: tens, hundreds, ...)."""
    a = asarray(a)
    if not a.dtype.is_floating and not a.dtype.is_complex:
        if decimals >= 0:
            return a
        scale = asarray(10.0 ** -decimals)
        return asarray(_tf("math.round")(asarray(a, np.float64) / scale) * scale, a.dtype.np)
    factor = asarray(10.0 ** decimals, a.dtype.np)
    return _tf("math.round")(a * factor) / factor


@_export("signbit")
def signbit(x):
    x = asarray(x)
    if not x.dtype.is_floating:
        return x < asarray(0, x.dtype.np)
    # -0.0 and NaN with the sign bit set: the sign of 1/x separates zeros
    negative_zero = _tf("logical_and")(_tf("equal")(x, asarray(0, x.dtype.np)),
                                       _tf("less")(asarray(1, x.dtype.np) / x,
                                                   asarray(0, x.dtype.np)))
    return _tf("logical_or")(_tf("less")(x, asarray(0, x.dtype.np)), negative_zero)


@_export("sinc")
def sinc(x):
    x = asarray(x)
    x = asarray(x, _float_type(x))
    y = x * asarray(np.pi, x.dtype.np)
    safe = _tf("where")(_tf("equal")(x, asarray(0, x.dtype.np)), _tf("ones_like")(y), y)
    return _tf("where")(_tf("equal")(x, asarray(0, x.dtype.np)), _tf("ones_like")(y),
                        _tf("math.sin")(safe) / safe)


@_export("isnan")
def isnan(x):
    x = asarray(x)
    return _tf("math.is_nan")(x) if x.dtype.is_floating else _tf("zeros_like")(x, D.bool_)


@_export("isfinite")
def isfinite(x):
    x = asarray(x)
    return _tf("math.is_finite")(x) if x.dtype.is_floating else _tf("ones_like")(x, D.bool_)


@_export("isinf")
def isinf(x):
    x = asarray(x)
    if not x.dtype.is_floating:
        return _tf("zeros_like")(x, D.bool_)
    return _tf("equal")(_tf("math.abs")(x), asarray(np.inf, x.dtype.np))


@_export("isposinf")
def isposinf(x):
    x = asarray(x)
    if not x.dtype.is_floating:
        return _tf("zeros_like")(x, D.bool_)
    return _tf("equal")(x, asarray(np.inf, x.dtype.np))


@_export("isneginf")
def isneginf(x):
    x = asarray(x)
    if not x.dtype.is_floating:
        return _tf("zeros_like")(x, D.bool_)
    return _tf("equal")(x, asarray(-np.inf, x.dtype.np))


@_export("real")
def real(val):
    val = asarray(val)
    return _tf("math.real")(val) if val.dtype.is_complex else val


@_export("imag")
def imag(val):
    val = asarray(val)
    return _tf("math.imag")(val) if val.dtype.is_complex else _tf("zeros_like")(val)


@_export("angle")
def angle(z, deg=False):
    z = asarray(z)
    if z.dtype.is_complex:
        out = _tf("math.atan2")(_tf("math.imag")(z), _tf("math.real")(z))
    else:
        z = asarray(z, _float_type(z))
        out = _tf("where")(z < asarray(0, z.dtype.np),
                           _tf("fill")(_tf("shape")(z), asarray(np.pi, z.dtype.np)),
                           _tf("zeros_like")(z))
    return rad2deg(out) if deg else out


@_export("iscomplex")
def iscomplex(x):
    x = asarray(x)
    if not x.dtype.is_complex:
        return _tf("zeros_like")(x, D.bool_)
    return _tf("not_equal")(_tf("math.imag")(x), asarray(0, _tf("math.imag")(x).dtype.np))


@_export("isreal")
def isreal(x):
    return _tf("logical_not")(iscomplex(x))


@_export("iscomplexobj")
def iscomplexobj(x):
    return bool(asarray(x).dtype.is_complex)


@_export("isrealobj")
def isrealobj(x):
    return not iscomplexobj(x)


@_export("isscalar")
def isscalar(num):
    if _is_tensor(num):
        return num.shape.rank == 0
    return np.isscalar(num)


_BINARY = {     # NumPy name -> flowjit function, both operands promoted to the result type
    "add": "math.add", "subtract": "math.subtract", "multiply": "math.multiply",
    "maximum": "math.maximum", "minimum": "math.minimum", "equal": "math.equal",
    "not_equal": "math.not_equal", "less": "math.less", "less_equal": "math.less_equal",
    "greater": "math.greater", "greater_equal": "math.greater_equal",
    "floor_divide": "math.floordiv", "power": "math.pow",
    "bitwise_and": "bitwise.bitwise_and", "bitwise_or": "bitwise.bitwise_or",
    "bitwise_xor": "bitwise.bitwise_xor",
}


def _make_binary(public, path):
    def fn(x1, x2):
        a, b = _promote(x1, x2)
        if a.dtype.is_bool and public in ("add", "multiply", "maximum", "minimum"):
            combine = "logical_or" if public in ("add", "maximum") else "logical_and"
            return _tf(combine)(a, b)
        return _tf(path)(a, b)
    fn.__name__ = public
    fn.__doc__ = f"NumPy's `{public}`, with NumPy's dtype promotion."
    return _export(public)(fn)


for _n, _p in _BINARY.items():
    globals()[_n] = _make_binary(_n, _p)


@_export("true_divide", "divide")
def true_divide(x1, x2):
    a, b = _promote_float(x1, x2)
    return _tf("math.truediv")(a, b)


@_export("mod", "remainder")
def mod(x1, x2):
    a, b = _promote(x1, x2)
    return _tf("math.floormod")(a, b)


@_export("divmod")
def divmod_(x1, x2):
    return floor_divide(x1, x2), mod(x1, x2)   # noqa: F821 (made from _BINARY)


@_export("float_power")
def float_power(x1, x2):
    dtype = result_type(x1, x2, np.float64)
    a, b = _promote(x1, x2, to=dtype)
    return _tf("math.pow")(a, b)


@_export("arctan2")
def arctan2(x1, x2):
    a, b = _promote_float(x1, x2)
    return _tf("math.atan2")(a, b)


@_export("hypot")
def hypot(x1, x2):
    a, b = _promote_float(x1, x2)
    return _tf("math.sqrt")(a * a + b * b)


@_export("logaddexp")
def logaddexp(x1, x2):
    a, b = _promote_float(x1, x2)
    # max + log1p(exp(-|a - b|)): no overflow, and a tie sends the gradient as TF's does
    delta = a - b
    out = _tf("math.maximum")(a, b) + _tf("math.log1p")(_tf("math.exp")(
        -_tf("math.abs")(delta)))
    return _tf("where")(_tf("math.is_nan")(delta), a + b, out)


@_export("logaddexp2")
def logaddexp2(x1, x2):
    a, b = _promote_float(x1, x2)
    ln2 = asarray(np.log(2), a.dtype.np)
    return logaddexp(a * ln2, b * ln2) / ln2


@_export("heaviside")
def heaviside(x1, x2):
    a, b = _promote_float(x1, x2)
    zero = _tf("zeros_like")(a)
    one = _tf("ones_like")(a)
    step = _tf("where")(a > zero, one, zero)
    return _tf("where")(_tf("equal")(a, zero), b + zero, step)


def _gcd_body(a, b):
    a, b = _tf("math.abs")(a), _tf("math.abs")(b)

    def cond(a, b):
        return _tf("reduce_any")(_tf("not_equal")(b, _tf("zeros_like")(b)))

    def body(a, b):
        nonzero = _tf("not_equal")(b, _tf("zeros_like")(b))
        safe_b = _tf("where")(nonzero, b, _tf("ones_like")(b))
        return (_tf("where")(nonzero, b, a),
                _tf("where")(nonzero, _tf("math.floormod")(a, safe_b), b))
    return _tf("while_loop")(cond, body, [a, b])[0]


@_export("gcd")
def gcd(x1, x2):
    a, b = _promote(x1, x2)
    if not a.dtype.is_integer:
        raise ValueError(f"gcd takes integers, got {a.dtype.name}")
    shape = _tf("shape")(a + b)
    return _gcd_body(_tf("broadcast_to")(a, shape), _tf("broadcast_to")(b, shape))


@_export("lcm")
def lcm(x1, x2):
    a, b = _promote(x1, x2)
    g = gcd(a, b)
    safe = _tf("where")(_tf("equal")(g, _tf("zeros_like")(g)), _tf("ones_like")(g), g)
    return _tf("math.abs")(_tf("math.floordiv")(a, safe) * b)


for _n, _p in {"logical_and": "logical_and", "logical_or": "logical_or",
               "logical_xor": "math.logical_xor"}.items():
    def _logical(x1, x2, _p=_p):
        return _tf(_p)(asarray(x1, np.bool_), asarray(x2, np.bool_))
    _logical.__name__ = _n
    globals()[_n] = _export(_n)(_logical)


@_export("logical_not")
def logical_not(x):
    return _tf("logical_not")(asarray(x, np.bool_))


@_export("nextafter")
def nextafter(x1, x2):
    a, b = _promote(x1, x2)
    return _tf("math.nextafter")(a, b)


@_export("clip")
def clip(a, a_min, a_max):
    a = asarray(a)
    if a_min is not None:
        a, lo = _promote(a, a_min)
        a = _tf("math.maximum")(a, lo)
    if a_max is not None:
        a, hi = _promote(a, a_max)
        a = _tf("math.minimum")(a, hi)
    return a


@_export("where")
def where(condition, x=None, y=None):
    condition = asarray(condition, np.bool_)
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("Both x and y must be ndarrays, or both must be None.")
    a, b = _promote(x, y)
    return _tf("where")(condition, a, b)


@_export("select")
def select(condlist, choicelist, default=0):
    out = asarray(default, result_type(*choicelist, default))
    for cond, choice in reversed(list(zip(condlist, choicelist))):
        out = where(cond, choice, out)
    return out


# --- reductions ------------------------------------------------------------------

def _axis(axis):
    return list(axis) if isinstance(axis, tuple) else axis


def _accumulator(a):
    """NumPy's dtype for sums and products of `a`: bools and narrow integers widen to the
    64-bit integer of their signedness."""
    if a.dtype.is_bool or (a.dtype.is_integer and not a.dtype.is_unsigned):
        return np.dtype(np.int64)
    if a.dtype.is_integer:
        return np.dtype(np.uint64)
    return a.dtype.np


def _no_out(out):
    if out is not None:
        raise ValueError("Setting out is not supported.")   # TF's tnp refuses it too


def _reduction(public, path, accumulate=False, integer_to=None):
    def fn(a, axis=None, dtype=None, keepdims=None):
        keepdims = bool(keepdims)
        a = asarray(a)
        if dtype is not None:
            a = asarray(a, dtype)
        elif integer_to is not None and (a.dtype.is_integer or a.dtype.is_bool):
            a = asarray(a, integer_to)
        elif accumulate:
            a = asarray(a, _accumulator(a))
        return _tf(path)(a, axis=_axis(axis), keepdims=keepdims)
    fn.__name__ = public
    fn.__doc__ = f"NumPy's `{public}`."
    return fn


sum = _export("sum")(_reduction("sum", "reduce_sum", accumulate=True))   # noqa: A001
prod = _export("prod")(_reduction("prod", "reduce_prod", accumulate=True))
_mean = _reduction("mean", "reduce_mean", integer_to=np.float64)


@_export("mean")
def mean(a, axis=None, dtype=None, out=None, keepdims=None):
    _no_out(out)
    return _mean(a, axis=axis, dtype=dtype, keepdims=keepdims)


def _extreme(public, path):
    def fn(a, axis=None, out=None, keepdims=None):
        _no_out(out)
        return _tf(path)(asarray(a), axis=_axis(axis), keepdims=bool(keepdims))
    fn.__name__ = public
    return fn


amax = _export("amax")(_extreme("amax", "reduce_max"))
amin = _export("amin")(_extreme("amin", "reduce_min"))


@_export("max")
def max_(a, axis=None, keepdims=None):
    return amax(a, axis=axis, keepdims=keepdims)


@_export("min")
def min_(a, axis=None, keepdims=None):
    return amin(a, axis=axis, keepdims=keepdims)


@_export("all")
def all(a, axis=None, keepdims=False):   # noqa: A001
    return _tf("reduce_all")(asarray(a, np.bool_), axis=_axis(axis), keepdims=keepdims)


@_export("any")
def any(a, axis=None, keepdims=False):   # noqa: A001
    return _tf("reduce_any")(asarray(a, np.bool_), axis=_axis(axis), keepdims=keepdims)


@_export("var")
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    a = asarray(a)
    a = asarray(a, dtype if dtype is not None else _float_type(a))
    centered = a - _tf("reduce_mean")(a, axis=_axis(axis), keepdims=True)
    squares = _tf("math.real")(centered * _tf("math.conj")(centered)) \
        if a.dtype.is_complex else centered * centered
    total = _tf("reduce_sum")(squares, axis=_axis(axis), keepdims=keepdims)
    # the number of elements each result reduced over
    count = _tf("cast")(_tf("size")(a), total.dtype) / _tf("cast")(_tf("size")(total),
                                                                   total.dtype)
    return total / (count - asarray(ddof, total.dtype.np))


@_export("std")
def std(a, axis=None, keepdims=False):
    return _tf("math.sqrt")(var(a, axis=axis, keepdims=keepdims))


@_export("ptp")
def ptp(a, axis=None, keepdims=None):
    keep = bool(keepdims)
    return amax(a, axis=axis, keepdims=keep) - amin(a, axis=axis, keepdims=keep)


@_export("average")
def average(a, axis=None, weights=None, returned=False):
    a = asarray(a)
    if weights is None:
        avg = mean(a, axis=axis)
        scale = asarray(np.prod([int(d) for d in a.shape]) / max(int(np.prod(
            [int(d) for d in avg.shape])), 1), avg.dtype.np)
        return (avg, _tf("broadcast_to")(scale, _tf("shape")(avg))) if returned else avg
    dtype = result_type(a, weights, np.float64 if a.dtype.is_integer else a.dtype.np)
    a, w = _promote(a, weights, to=dtype)
    if w.shape.rank != a.shape.rank:
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        shape = [1] * a.shape.rank
        shape[axis] = -1
        w = _tf("reshape")(w, shape)
    total = _tf("reduce_sum")(a * w, axis=axis)
    norm = _tf("reduce_sum")(w * _tf("ones_like")(a), axis=axis)
    return (total / norm, norm) if returned else total / norm


def _nan_reduction(public, reduce, fill):
    def fn(a, axis=None, dtype=None, keepdims=False):
        a = asarray(a, dtype)
        if a.dtype.is_floating:
            a = _tf("where")(_tf("math.is_nan")(a), _tf("fill")(_tf("shape")(a),
                                                                 asarray(fill, a.dtype.np)), a)
        return reduce(a, axis=axis, keepdims=keepdims)
    fn.__name__ = public
    return _export(public)(fn)


nansum = _nan_reduction("nansum", sum, 0)
nanprod = _nan_reduction("nanprod", prod, 1)


@_export("nanmean")
def nanmean(a, axis=None, dtype=None, keepdims=None):
    a = asarray(a, dtype)
    keep = bool(keepdims)
    if not a.dtype.is_floating:
        return mean(a, axis=axis, keepdims=keep)
    valid = _tf("logical_not")(_tf("math.is_nan")(a))
    total = nansum(a, axis=axis, keepdims=keep)
    return total / sum(asarray(valid, a.dtype.np), axis=axis, keepdims=keep)


@_export("count_nonzero")
def count_nonzero(a, axis=None):
    a = asarray(a)
    return _tf("reduce_sum")(asarray(_tf("not_equal")(a, _tf("zeros_like")(a)), np.int64),
                             axis=_axis(axis))


@_export("argmax")
def argmax(a, axis=None):
    a = asarray(a)
    if axis is None:
        a, axis = _tf("reshape")(a, [-1]), 0
    return _tf("argmax")(a, axis=axis)


@_export("argmin")
def argmin(a, axis=None):
    a = asarray(a)
    if axis is None:
        a, axis = _tf("reshape")(a, [-1]), 0
    return _tf("argmin")(a, axis=axis)


def _cumulative(public, path):
    def fn(a, axis=None, dtype=None):
        a = asarray(a, dtype)
        if dtype is None:
            a = asarray(a, _accumulator(a))
        if axis is None:
            a, axis = _tf("reshape")(a, [-1]), 0
        return _tf(path)(a, axis=axis)
    fn.__name__ = public
    return _export(public)(fn)


cumsum = _cumulative("cumsum", "math.cumsum")
cumprod = _cumulative("cumprod", "math.cumprod")


@_export("allclose")
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


@_export("isclose")
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    a, b = _promote_float(a, b)
    close = _tf("less_equal")(_tf("math.abs")(a - b),
                              asarray(atol, a.dtype.np) + asarray(rtol, a.dtype.np)
                              * _tf("math.abs")(b))
    close = _tf("logical_or")(close, _tf("equal")(a, b))    # equal infinities
    if equal_nan:
        close = _tf("logical_or")(close, _tf("logical_and")(isnan(a), isnan(b)))
    return close


@_export("array_equal")
def array_equal(a1, a2):
    a1, a2 = asarray(a1), asarray(a2)
    if a1.shape.as_list() != a2.shape.as_list():
        return asarray(False)
    return all(equal(a1, a2))   # noqa: F821 (made from _BINARY)


# --- creation ----------------------------------------------------------------------

def _shape_list(shape):
    return [shape] if isinstance(shape, int) else list(shape)


@_export("zeros")
def zeros(shape, dtype=float):
    return _tf("zeros")(_shape_list(shape), D.as_dtype(np.dtype(dtype)))


@_export("ones")
def ones(shape, dtype=float):
    return _tf("ones")(_shape_list(shape), D.as_dtype(np.dtype(dtype)))


@_export("empty")
def empty(shape, dtype=float):
    return zeros(shape, dtype)


@_export("full")
def full(shape, fill_value, dtype=None):
    value = asarray(fill_value, dtype)
    return _tf("broadcast_to")(value, _shape_list(shape))


def _like(public, value):
    def fn(a, dtype=None):
        a = asarray(a)
        dt = a.dtype.np if dtype is None else np.dtype(dtype)
        return _tf("fill")(_tf("shape")(a), asarray(value, dt))
    fn.__name__ = public
    return _export(public)(fn)


zeros_like = _like("zeros_like", 0)
ones_like = _like("ones_like", 1)
empty_like = _like("empty_like", 0)


@_export("full_like")
def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None):
    a = asarray(a)
    if shape is not None:
        a = zeros(shape, a.dtype.np)
    dt = a.dtype.np if dtype is None else np.dtype(dtype)
    return _tf("broadcast_to")(asarray(fill_value, dt), _tf("shape")(a))


@_export("arange")
def arange(start, stop=None, step=1, dtype=None):
    if stop is None:
        start, stop = 0, start
    dt = np.dtype(dtype) if dtype is not None else result_type(start, stop, step)
    if dt.kind in "iu" and not _builtins.all(isinstance(v, (int, np.integer))
                                             for v in (start, stop, step)):
        dt = np.dtype(np.float64)
    if _is_tensor(start) or _is_tensor(stop) or _is_tensor(step):
        s, e, d = (asarray(v, dt) for v in (start, stop, step))
        return _tf("range")(s, e, d)
    return _tf("constant")(np.arange(start, stop, step, dtype=dt))


@_export("linspace")
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=float, axis=0):
    dt = np.dtype(dtype) if dtype is not None else np.dtype(np.float64)
    compute = dt if np.issubdtype(dt, np.inexact) else np.dtype(np.float64)
    s, e = _promote(start, stop, to=compute)
    div = (num - 1) if endpoint else num
    step = (e - s) / asarray(max(div, 1), compute)
    count = asarray(np.arange(num), compute)
    shape = [num] + [1] * (s.shape.rank or 0)
    out = _tf("reshape")(count, shape) * step + s
    if endpoint and num > 1:
        out = _tf("concat")([out[:-1], _tf("expand_dims")(e, 0)], 0)
    if axis != 0:
        out = moveaxis(out, 0, axis)
    out = asarray(out, dt)
    return (out, step) if retstep else out


@_export("logspace")
def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=float, axis=0):
    exponents = linspace(start, stop, num, endpoint, dtype=np.float64, axis=axis)
    return asarray(_tf("math.pow")(asarray(base, np.float64), exponents), dtype)


@_export("geomspace")
def geomspace(start, stop, num=50, endpoint=True, dtype=float, axis=0):
    start, stop = float(start), float(stop)
    if start == 0 or stop == 0:
        raise ValueError("Geometric sequence cannot include zero")
    sign = -1.0 if start < 0 and stop < 0 else 1.0
    out = logspace(np.log10(_builtins.abs(start)), np.log10(_builtins.abs(stop)), num, endpoint,
                   dtype=np.float64, axis=axis) * asarray(sign)
    return asarray(out, dtype)


@_export("eye")
def eye(N, M=None, k=0, dtype=float):
    M = N if M is None else M
    return _tf("constant")(np.eye(N, M, k, dtype=np.dtype(dtype)))


@_export("identity")
def identity(n, dtype=float):
    return eye(n, dtype=dtype)


@_export("tri")
def tri(N, M=None, k=0, dtype=None):
    M = N if M is None else M
    return _tf("constant")(np.tri(N, M, k, dtype=np.dtype(dtype or np.float64)))


def _tri_mask(m, k, lower):
    m = asarray(m)
    rows, cols = int(m.shape[-2]), int(m.shape[-1])
    keep = np.tri(rows, cols, k, dtype=bool) if lower else ~np.tri(rows, cols, k - 1,
                                                                      dtype=bool)
    return _tf("where")(_tf("constant")(keep), m, _tf("zeros_like")(m))


@_export("tril")
def tril(m, k=0):
    return _tri_mask(m, k, True)


@_export("triu")
def triu(m, k=0):
    return _tri_mask(m, k, False)


@_export("vander")
def vander(x, N=None, increasing=False):
    x = asarray(x)
    n = int(x.shape[0]) if N is None else N
    powers = np.arange(n) if increasing else np.arange(n)[::-1]
    return _tf("math.pow")(_tf("expand_dims")(x, 1), asarray(powers, x.dtype.np))


@_export("diag")
def diag(v, k=0):
    v = asarray(v)
    if v.shape.rank == 1:
        n = int(v.shape[0]) + _builtins.abs(k)
        idx = np.arange(int(v.shape[0]))
        rows, cols = (idx, idx + k) if k >= 0 else (idx - k, idx)
        return _tf("scatter_nd")(_tf("constant")(np.stack([rows, cols], 1)), v, [n, n])
    return diagonal(v, offset=k)


@_export("diagflat")
def diagflat(v, k=0):
    return diag(_tf("reshape")(asarray(v), [-1]), k)


@_export("diagonal")
def diagonal(a, offset=0, axis1=0, axis2=1):
    a = asarray(a)
    rank = a.shape.rank
    axis1, axis2 = axis1 % rank, axis2 % rank
    a = _tf("transpose")(a, perm=[i for i in range(rank) if i not in (axis1, axis2)]
                         + [axis1, axis2])
    rows, cols = int(a.shape[-2]), int(a.shape[-1])
    count = min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols)
    idx = np.arange(max(0, count))
    r, c = (idx, idx + offset) if offset >= 0 else (idx - offset, idx)
    flat = _tf("reshape")(a, a.shape.as_list()[:-2] + [rows * cols])
    return _tf("gather")(flat, _tf("constant")(r * cols + c), axis=-1)


@_export("trace")
def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    d = diagonal(a, offset, axis1, axis2)
    return sum(d, axis=-1, dtype=dtype)


@_export("diag_indices")
def diag_indices(n, ndim=2):
    return tuple(_tf("constant")(np.arange(n)) for _ in range(ndim))


# --- shapes and manipulation --------------------------------------------------------

@_export("ndim")
def ndim(a):
    return asarray(a).shape.rank


@_export("shape")
def shape(a):
    return tuple(asarray(a).shape.as_list())


@_export("size")
def size(x, axis=None):
    s = asarray(x).shape.as_list()
    return int(np.prod(s)) if axis is None else s[axis]


@_export("reshape")
def reshape(a, newshape, order="C"):
    if order != "C":
        raise ValueError(f"Unsupported order argument {order}")
    return _tf("reshape")(asarray(a), _shape_list(newshape))


@_export("ravel")
def ravel(a):
    return _tf("reshape")(asarray(a), [-1])


@_export("flatten")
def flatten(a, order="C"):
    return reshape(a, [-1], order)


@_export("transpose")
def transpose(a, axes=None):
    return _tf("transpose")(asarray(a), perm=None if axes is None else list(axes))


@_export("swapaxes")
def swapaxes(a, axis1, axis2):
    a = asarray(a)
    perm = list(range(a.shape.rank))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return _tf("transpose")(a, perm=perm)


@_export("moveaxis")
def moveaxis(a, source, destination):
    a = asarray(a)
    rank = a.shape.rank
    src = [s % rank for s in ([source] if isinstance(source, int) else source)]
    dst = [d % rank for d in ([destination] if isinstance(destination, int) else destination)]
    perm = [i for i in range(rank) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return _tf("transpose")(a, perm=perm)


@_export("expand_dims")
def expand_dims(a, axis):
    return _tf("expand_dims")(asarray(a), axis)


@_export("squeeze")
def squeeze(a, axis=None):
    return _tf("squeeze")(asarray(a), axis=axis if axis is None or isinstance(axis, (list, tuple))
                          else [axis])


@_export("atleast_1d")
def atleast_1d(*arys):
    out = [_tf("reshape")(asarray(a), [1]) if asarray(a).shape.rank == 0 else asarray(a)
           for a in arys]
    return out[0] if len(out) == 1 else out


@_export("atleast_2d")
def atleast_2d(*arys):
    def lift(a):
        a = asarray(a)
        return _tf("reshape")(a, [1, -1]) if a.shape.rank < 2 else a
    out = [lift(a) for a in arys]
    return out[0] if len(out) == 1 else out


@_export("atleast_3d")
def atleast_3d(*arys):
    def lift(a):
        a = asarray(a)
        rank = a.shape.rank
        if rank == 0:
            return _tf("reshape")(a, [1, 1, 1])
        if rank == 1:
            return _tf("reshape")(a, [1, -1, 1])
        if rank == 2:
            return _tf("expand_dims")(a, -1)
        return a
    out = [lift(a) for a in arys]
    return out[0] if len(out) == 1 else out


@_export("concatenate")
def concatenate(arys, axis=0):
    parts = _promote(*arys)
    if axis is None:
        parts, axis = [ravel(p) for p in parts], 0
    return _tf("concat")(parts, axis)


@_export("append")
def append(arr, values, axis=None):
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis)


@_export("stack")
def stack(arrays, axis=0):
    return _tf("stack")(_promote(*arrays), axis=axis)


@_export("hstack")
def hstack(tup):
    parts = atleast_1d(*tup)
    parts = parts if isinstance(parts, list) else [parts]
    return concatenate(parts, 0 if parts[0].shape.rank == 1 else 1)


@_export("vstack")
def vstack(tup):
    parts = atleast_2d(*tup)
    return concatenate(parts if isinstance(parts, list) else [parts], 0)


@_export("dstack")
def dstack(tup):
    parts = atleast_3d(*tup)
    return concatenate(parts if isinstance(parts, list) else [parts], 2)


@_export("split")
def split(ary, indices_or_sections, axis=0):
    ary = asarray(ary)
    n = int(ary.shape[axis])
    if isinstance(indices_or_sections, int):
        if n % indices_or_sections:
            raise ValueError("array split does not result in an equal division")
        return _tf("split")(ary, indices_or_sections, axis=axis)
    bounds = [0] + [min(int(i), n) for i in indices_or_sections] + [n]
    sizes = [max(b - a, 0) for a, b in zip(bounds[:-1], bounds[1:])]
    return _tf("split")(ary, sizes, axis=axis)


@_export("hsplit")
def hsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, axis=1 if asarray(ary).shape.rank > 1 else 0)


@_export("vsplit")
def vsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, axis=0)


@_export("dsplit")
def dsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, axis=2)


@_export("tile")
def tile(a, reps):
    a = asarray(a)
    reps = _shape_list(reps)
    rank = _builtins.max(a.shape.rank, len(reps))
    a = _tf("reshape")(a, [1] * (rank - a.shape.rank) + a.shape.as_list())
    return _tf("tile")(a, [1] * (rank - len(reps)) + reps)


@_export("repeat")
def repeat(a, repeats, axis=None):
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    counts = np.broadcast_to(np.asarray(repeats), (int(a.shape[axis]),))
    index = np.repeat(np.arange(int(a.shape[axis])), counts)
    return _tf("gather")(a, _tf("constant")(index), axis=axis)


@_export("flip")
def flip(m, axis=None):
    m = asarray(m)
    axes = list(range(m.shape.rank)) if axis is None else _shape_list(axis)
    return _tf("reverse")(m, axes)


@_export("fliplr")
def fliplr(m):
    return flip(m, 1)


@_export("flipud")
def flipud(m):
    return flip(m, 0)


@_export("roll")
def roll(a, shift, axis=None):
    a = asarray(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), a.shape.as_list())
    out = a
    for s, ax in zip(_shape_list(shift), _shape_list(axis)):
        n = int(out.shape[ax])
        if n == 0:
            continue
        index = (np.arange(n) - s) % n
        out = _tf("gather")(out, _tf("constant")(index), axis=ax)
    return out


@_export("rot90")
def rot90(m, k=1, axes=(0, 1)):
    m = asarray(m)
    k %= 4
    a0, a1 = axes
    for _ in range(k):
        m = swapaxes(flip(m, a1), a0, a1)
    return m


@_export("pad")
def pad(array, pad_width, mode="constant", constant_values=0):
    array = asarray(array)
    widths = np.broadcast_to(np.asarray(pad_width), (array.shape.rank, 2)).tolist()
    modes = {"constant": "CONSTANT", "reflect": "REFLECT", "symmetric": "SYMMETRIC"}
    if mode not in modes:
        raise ValueError(f"Unsupported padding mode: {mode}")
    return _tf("pad")(array, widths, mode=modes[mode],
                      constant_values=constant_values)


@_export("take")
def take(a, indices, axis=None, out=None, mode="clip"):
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    idx = asarray(indices, np.int64)
    n = int(a.shape[axis])
    if mode == "clip":
        idx = _tf("clip_by_value")(idx, 0, n - 1)
    elif mode == "wrap":
        idx = _tf("math.floormod")(idx, asarray(n, np.int64))
    elif mode != "raise":
        raise ValueError(f"Invalid mode '{mode}' for take")
    return _tf("gather")(a, idx, axis=axis)


@_export("take_along_axis")
def take_along_axis(arr, indices, axis):
    arr, indices = asarray(arr), asarray(indices, np.int64)
    if axis is None:
        arr, axis = ravel(arr), 0
    axis %= arr.shape.rank
    grids = np.meshgrid(*[np.arange(int(d)) for d in indices.shape], indexing="ij")
    coords = [_tf("constant")(g) if i != axis else indices for i, g in enumerate(grids)]
    return _tf("gather_nd")(arr, _tf("stack")(coords, axis=-1))


@_export("compress")
def compress(condition, a, axis=None):
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    cond = asarray(condition, np.bool_)
    return _tf("boolean_mask")(a, cond[:int(a.shape[axis])], axis=axis)


@_export("nonzero")
def nonzero(a):
    a = asarray(a)
    indices = _tf("where")(_tf("not_equal")(a, _tf("zeros_like")(a)))
    return tuple(_tf("unstack")(_tf("transpose")(indices), num=a.shape.rank))


@_export("broadcast_to")
def broadcast_to(array, shape):
    return _tf("broadcast_to")(asarray(array), _shape_list(shape))


@_export("broadcast_arrays")
def broadcast_arrays(*args):
    arrays = [asarray(a) for a in args]
    shape = np.broadcast_shapes(*[tuple(a.shape.as_list()) for a in arrays])
    return [_tf("broadcast_to")(a, list(shape)) for a in arrays]


@_export("ix_")
def ix_(*args):
    n = len(args)
    out = []
    for i, a in enumerate(args):
        a = asarray(a)
        if a.dtype.is_bool:
            a = nonzero(a)[0]
        out.append(_tf("reshape")(a, [1] * i + [-1] + [1] * (n - i - 1)))
    return out


@_export("meshgrid")
def meshgrid(*xi, **kwargs):
    indexing = kwargs.get("indexing", "xy")
    arrays = [ravel(x) for x in xi]
    shape = [int(a.shape[0]) for a in arrays]
    if indexing == "xy" and len(arrays) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, a in enumerate(arrays):
        axis = i
        if indexing == "xy" and len(arrays) > 1 and i < 2:
            axis = 1 - i
        view = [1] * len(arrays)
        view[axis] = -1
        out.append(_tf("broadcast_to")(_tf("reshape")(a, view), shape))
    return out


@_export("sort")
def sort(a, axis=-1, kind="quicksort", order=None):
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    return _tf("sort")(a, axis=axis)


@_export("argsort")
def argsort(a, axis=-1, kind="quicksort", order=None):
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    # NumPy's default is not stable, but every stable order is a valid NumPy answer
    return asarray(_tf("argsort")(a, axis=axis, stable=True), np.int64)


@_export("diff")
def diff(a, n=1, axis=-1):
    a = asarray(a)
    for _ in range(n):
        rank = a.shape.rank
        ax = axis % rank
        hi = [slice(None)] * rank
        lo = [slice(None)] * rank
        hi[ax], lo[ax] = slice(1, None), slice(None, -1)
        a = a[tuple(hi)] - a[tuple(lo)] if not a.dtype.is_bool else _tf("not_equal")(
            a[tuple(hi)], a[tuple(lo)])
    return a


# --- linear algebra ---------------------------------------------------------------

@_export("matmul")
def matmul(x1, x2):
    a, b = _promote(x1, x2)
    if a.shape.rank == 1 and b.shape.rank == 1:
        return _tf("reduce_sum")(a * b)
    if a.shape.rank == 1:
        return _tf("squeeze")(_tf("matmul")(_tf("expand_dims")(a, 0), b), [-2])
    if b.shape.rank == 1:
        return _tf("squeeze")(_tf("matmul")(a, _tf("expand_dims")(b, -1)), [-1])
    return _tf("matmul")(a, b)


@_export("dot")
def dot(a, b):
    a, b = _promote(a, b)
    if a.shape.rank == 0 or b.shape.rank == 0:
        return a * b
    if b.shape.rank == 1:
        return _tf("tensordot")(a, b, [[a.shape.rank - 1], [0]])
    return _tf("tensordot")(a, b, [[a.shape.rank - 1], [b.shape.rank - 2]])


@_export("vdot")
def vdot(a, b):
    a, b = (ravel(v) for v in _promote(a, b))
    if a.dtype.is_complex:
        a = _tf("math.conj")(a)
    return _tf("reduce_sum")(a * b)


@_export("inner")
def inner(a, b):
    a, b = _promote(a, b)
    if a.shape.rank == 0 or b.shape.rank == 0:
        return a * b
    return _tf("tensordot")(a, b, [[-1], [-1]])


@_export("outer")
def outer(a, b):
    a, b = (ravel(v) for v in _promote(a, b))
    return _tf("expand_dims")(a, 1) * _tf("expand_dims")(b, 0)


@_export("kron")
def kron(a, b):
    a, b = _promote(a, b)
    if a.shape.rank != b.shape.rank:
        rank = _builtins.max(a.shape.rank, b.shape.rank)
        a = _tf("reshape")(a, [1] * (rank - a.shape.rank) + a.shape.as_list())
        b = _tf("reshape")(b, [1] * (rank - b.shape.rank) + b.shape.as_list())
    rank = a.shape.rank
    a_exp = _tf("reshape")(a, [d for s in a.shape.as_list() for d in (s, 1)])
    b_exp = _tf("reshape")(b, [d for s in b.shape.as_list() for d in (1, s)])
    out_shape = [x * y for x, y in zip(a.shape.as_list(), b.shape.as_list())]
    del rank
    return _tf("reshape")(a_exp * b_exp, out_shape)


@_export("cross")
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = _promote(a, b)
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    if int(a.shape[-1]) == 2:
        a = _tf("concat")([a, _tf("zeros_like")(a[..., :1])], -1)
    if int(b.shape[-1]) == 2:
        b = _tf("concat")([b, _tf("zeros_like")(b[..., :1])], -1)
    a0, a1, a2 = _tf("unstack")(a, axis=-1)
    b0, b1, b2 = _tf("unstack")(b, axis=-1)
    out = _tf("stack")([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return moveaxis(out, -1, axisc)


@_export("tensordot")
def tensordot(a, b, axes=2):
    a, b = _promote(a, b)
    return _tf("tensordot")(a, b, axes)


@_export("einsum")
def einsum(subscripts, *operands, **kwargs):
    return _tf("einsum")(subscripts, *_promote(*operands))


@_export("polyval")
def polyval(p, x):
    coeffs = p if isinstance(p, (list, tuple)) else _tf("unstack")(asarray(p))
    dtype = result_type(*coeffs, x)
    x = asarray(x, dtype)
    out = _tf("zeros_like")(x)
    for c in coeffs:
        out = out * x + asarray(c, dtype)
    return out


# --- random ------------------------------------------------------------------------

class _Random:
    """`tnp.random`: NumPy's global-seed API over flowjit's random ops."""

    def seed(self, s):
        _tf("random.set_seed")(int(s))

    def rand(self, *size):
        return self.uniform(0.0, 1.0, size)

    def uniform(self, low=0.0, high=1.0, size=None):
        dtype = np.float64
        return _tf("random.uniform")(_shape_list(size or ()), asarray(low, dtype),
                                     asarray(high, dtype), dtype=D.float64)

    def random(self, size=None):
        return self.uniform(0.0, 1.0, size)

    def randn(self, *size):
        return self.standard_normal(size)

    def standard_normal(self, size=None):
        return _tf("random.normal")(_shape_list(size or ()), dtype=D.float64)

    def randint(self, low, high=None, size=None, dtype=np.int64):
        if high is None:
            low, high = 0, low
        return _tf("random.uniform")(_shape_list(size or ()), low, high,
                                     dtype=D.as_dtype(np.dtype(dtype)))


random = _export("random")(_Random())


# --- NumPy behaviour on tensors ------------------------------------------------------

_TENSOR_METHODS = {
    "reshape": lambda self, *shape, order="C": reshape(
        self, shape[0] if len(shape) == 1 else shape, order),
    "astype": lambda self, dtype: asarray(self, dtype),
    "ravel": ravel, "flatten": flatten, "transpose": lambda self, *axes: transpose(
        self, (axes[0] if len(axes) == 1 and not isinstance(axes[0], int) else axes) or None),
    "sum": sum, "prod": prod, "mean": mean, "std": std, "var": var, "max": amax, "min": amin,
    "all": all, "any": any, "argmax": argmax, "argmin": argmin, "cumsum": cumsum,
    "cumprod": cumprod, "clip": clip, "round": around, "squeeze": squeeze,
    "swapaxes": swapaxes, "diagonal": diagonal, "trace": trace, "ptp": ptp, "sort": sort,
    "argsort": argsort, "nonzero": nonzero, "tolist": lambda self: self.numpy().tolist(),
    "conj": conj, "repeat": repeat, "take": take,   # noqa: F821 (made from _UNARY_SAME)
}
_TENSOR_PROPERTIES = {"T": lambda self: transpose(self), "size": lambda self: size(self),
                      "real": real, "imag": imag, "data": lambda self: self}


@_export("experimental_enable_numpy_behavior")
def experimental_enable_numpy_behavior(prefer_float32=False, dtype_conversion_mode="legacy"):
    """Give tensors NumPy's methods and properties (`.T`, `.reshape((2, 3))`, `.astype`, ...),
    as TF's does. flowjit's own op dtype rules are not changed (see README)."""
    if prefer_float32:
        raise NotImplementedError("prefer_float32=True is not provided")
    from .state.variables import Variable
    for cls in (Tensor, Variable):     # graph tensors subclass Tensor
        for name, fn in _TENSOR_METHODS.items():
            setattr(cls, name, fn)
        for name, fn in _TENSOR_PROPERTIES.items():
            setattr(cls, name, property(fn))
