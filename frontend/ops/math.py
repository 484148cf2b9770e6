"""TF-named elementwise math API (`tf.add`, `tf.math.sqrt`, ...)."""
from __future__ import annotations

import functools

import numpy as np

from ...ir import dtypes as D
from ..composite.base import CompositeTensor
from ..composite.indexed_slices import IndexedSlices
from ..eager.dispatch import apply, convert_pair, convert_to_tensor
from ..export import runs, tf_export
from .axes import axes_attr


def elementwise(fn):
    """`fn`, an elementwise function, dispatched as TF's to a RaggedTensor operand's flat
    values (the RaggedTensor maps `fn` over them and keeps its row partition)."""
    @functools.wraps(fn)
    def dispatched(*args, **kwargs):
        for a in args:
            if isinstance(a, CompositeTensor) and a._maps_elementwise:
                return a._elementwise(fn, args, kwargs)
        return fn(*args, **kwargs)
    return dispatched


def _unary(opname, doc):
    def fn(x, name=None):
        return apply(opname, (convert_to_tensor(x),))
    fn.__doc__ = doc
    return runs(opname)(elementwise(fn))


def _binary(opname, doc):
    def fn(x, y, name=None):
        return apply(opname, convert_pair(x, y))
    fn.__doc__ = doc
    return runs(opname)(elementwise(fn))


negative = tf_export("math.negative", "negative")(_unary("neg", "-x elementwise."))
abs = tf_export("math.abs", "abs")(_unary("abs", "|x| elementwise."))  # noqa: A001  (TF's name)
sign = tf_export("math.sign", "sign")(_unary("sign", "-1, 0 or 1 elementwise."))
square = tf_export("math.square", "square")(_unary("square", "x*x elementwise."))
sqrt = tf_export("math.sqrt", "sqrt")(_unary("sqrt", "Square root elementwise."))
rsqrt = tf_export("math.rsqrt")(_unary("rsqrt", "1/sqrt(x) elementwise."))
exp = tf_export("math.exp", "exp")(_unary("exp", "e**x elementwise."))
expm1 = tf_export("math.expm1")(_unary("expm1", "e**x - 1 elementwise, exact near 0."))
log = tf_export("math.log")(_unary("log", "Natural logarithm elementwise."))
log1p = tf_export("math.log1p")(_unary("log1p", "log(1 + x) elementwise, exact near 0."))
sin = tf_export("math.sin", "sin")(_unary("sin", "Sine elementwise."))
cos = tf_export("math.cos", "cos")(_unary("cos", "Cosine elementwise."))
tan = tf_export("math.tan", "tan")(_unary("tan", "Tangent elementwise."))
tanh = tf_export("math.tanh", "nn.tanh", "tanh")(_unary("tanh", "Hyperbolic tangent elementwise."))
sigmoid = tf_export("math.sigmoid", "nn.sigmoid", "sigmoid")(
    _unary("sigmoid", "1 / (1 + exp(-x)) elementwise."))
erf = tf_export("math.erf")(_unary("erf", "The Gauss error function elementwise."))
reciprocal = tf_export("math.reciprocal")(_unary("reciprocal", "1/x elementwise."))
round = tf_export("math.round", "round")(  # noqa: A001
    _unary("round", "Round half to even elementwise."))
floor = tf_export("math.floor", "floor")(_unary("floor", "Largest integer not greater than x."))
ceil = tf_export("math.ceil")(_unary("ceil", "Smallest integer not less than x."))
logical_not = tf_export("math.logical_not", "logical_not")(
    _unary("logical_not", "Boolean NOT elementwise."))
is_nan = tf_export("math.is_nan")(_unary("is_nan", "True where x is NaN."))
is_finite = tf_export("math.is_finite")(
    _unary("is_finite", "True where x is neither NaN nor infinite."))
neg = negative
acos = _unary("acos", "Inverse cosine elementwise (NaN outside [-1, 1]).")
asin = _unary("asin", "Inverse sine elementwise (NaN outside [-1, 1]).")
atan = _unary("atan", "Inverse tangent elementwise.")
sinh = _unary("sinh", "Hyperbolic sine elementwise.")
cosh = _unary("cosh", "Hyperbolic cosine elementwise.")
asinh = _unary("asinh", "Inverse hyperbolic sine elementwise.")
acosh = _unary("acosh", "Inverse hyperbolic cosine elementwise (NaN below 1).")
atanh = _unary("atanh", "Inverse hyperbolic tangent elementwise (+-inf at +-1).")
erfc = _unary("erfc", "1 - erf(x) elementwise, exact for large x.")
for _name in ("acos", "asin", "atan", "sinh", "cosh", "asinh", "acosh", "atanh"):
    tf_export(f"math.{_name}", _name)(globals()[_name])
tf_export("math.erfc")(erfc)


@tf_export("math.atan2", "atan2")
def atan2(y, x, name=None):
    """The angle of (x, y) elementwise, in [-pi, pi]; atan2(+-0, -0) is +-pi."""
    return apply("atan2", convert_pair(y, x))

@tf_export("math.add", "add")
@runs("add")
@elementwise
def add(x, y, name=None):
    """x + y with broadcasting; tf.string tensors concatenate (TF's Add on strings)."""
    a, b = convert_pair(x, y)
    if a.dtype is D.string and b.dtype is D.string:
        return apply("string_join", (a, b), {"separator": ""})
    return apply("add", (a, b))


subtract = tf_export("math.subtract", "subtract")(_binary("sub", "x - y with broadcasting."))
multiply = tf_export("math.multiply", "multiply")(_binary("mul", "x * y with broadcasting."))
divide_no_promote = _binary("div", "x / y: truncating for integers (TF's `Div`).")
floordiv = tf_export("math.floordiv", "floordiv")(
    _binary("floordiv", "floor(x / y) with broadcasting."))
floormod = tf_export("math.floormod", "floormod")(
    _binary("floormod", "x - floor(x / y) * y (sign of y)."))
mod = tf_export("math.mod")(floormod)
maximum = tf_export("math.maximum", "maximum")(_binary("maximum", "max(x, y) elementwise."))
minimum = tf_export("math.minimum", "minimum")(_binary("minimum", "min(x, y) elementwise."))
equal = tf_export("math.equal", "equal")(_binary("equal", "x == y elementwise."))
not_equal = tf_export("math.not_equal", "not_equal")(_binary("not_equal", "x != y elementwise."))
less = tf_export("math.less", "less")(_binary("less", "x < y elementwise."))
less_equal = tf_export("math.less_equal", "less_equal")(
    _binary("less_equal", "x <= y elementwise."))
greater = tf_export("math.greater", "greater")(_binary("greater", "x > y elementwise."))
greater_equal = tf_export("math.greater_equal", "greater_equal")(
    _binary("greater_equal", "x >= y elementwise."))
logical_and = tf_export("math.logical_and", "logical_and")(
    _binary("logical_and", "Boolean AND elementwise."))
logical_or = tf_export("math.logical_or", "logical_or")(
    _binary("logical_or", "Boolean OR elementwise."))


@tf_export("math.softplus", "nn.softplus")
@elementwise
def softplus(features, name=None):
    """log(exp(features) + 1) elementwise."""
    return apply("softplus", (convert_to_tensor(features),))


@tf_export("math.pow", "pow")
@elementwise
def pow(x, y, name=None):  # noqa: A001
    """x ** y elementwise."""
    return apply("pow", convert_pair(x, y))


@tf_export("math.logical_xor")
def logical_xor(x, y, name=None):
    """Boolean XOR: (x or y) and not (x and y), as TF composes it."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)))


_TRUEDIV_TARGET = {D.int8: D.float32, D.int16: D.float32, D.uint8: D.float32,
                   D.int32: D.float64, D.int64: D.float64}


@tf_export("math.truediv", "truediv")
@runs("div")
@elementwise
def truediv(x, y, name=None):
    """x / y; integers are first cast to float (int8/16 -> float32, int32/64 -> float64)."""
    x, y = convert_pair(x, y)
    # TF checks dtypes here, before choosing the cast, and so raises TypeError.
    if x.dtype != y.dtype:
        raise TypeError(f"truediv: `x` and `y` must have the same dtype, got {x.dtype.name} "
                        f"!= {y.dtype.name}.")
    if x.dtype.is_bool:
        raise TypeError("truediv: Invalid dtype bool; x / y needs a numeric dtype.")
    target = _TRUEDIV_TARGET.get(x.dtype)
    if target is not None:
        x, y = cast(x, target), cast(y, target)
    return apply("div", (x, y))


divide = tf_export("math.divide", "divide")(truediv)


@tf_export("dtypes.cast", "math.cast", "cast")
def cast(x, dtype, name=None):
    """Convert to `dtype`. Float -> int truncates toward zero; to bool is `x != 0`. A
    composite tensor (IndexedSlices, SparseTensor, RaggedTensor) casts its values, as TF's."""
    if getattr(x, "_tf_composite", False):
        return x._map_values(lambda v: cast(v, dtype))
    x = convert_to_tensor(x)
    dt = D.as_dtype(dtype)
    if x.dtype is dt:
        return x
    return apply("cast", (x,), {"dtype": dt})


def _py_number(v, dt: D.DType):
    return float(v) if dt.is_floating else int(v)


def _inner_bound(bound, src: D.DType, up: bool):
    """`bound` as a value of dtype `src`, rounded toward the inside of the range when `src`
    cannot hold it exactly (float32 has no 2**31 - 1: the clamp must use 2147483520, as
    2**31 would overflow the int32 cast)."""
    v = src.np.type(bound)
    if src.is_floating:
        step_to = src.np.type(np.inf if up else -np.inf)
        while (float(v) < bound) if up else (float(v) > bound):
            v = np.nextafter(v, step_to)
    return v


@tf_export("math.saturate_cast", "saturate_cast", "dtypes.saturate_cast")
def saturate_cast(value, dtype, name=None):
    """Cast that first clamps to the values both dtypes can hold (+-inf and out-of-range
    values saturate; NaN casts as `cast` does)."""
    value = convert_to_tensor(value)
    dt = D.as_dtype(dtype)
    src = value.dtype
    if src is dt or src.is_bool or dt.is_bool:
        return cast(value, dt)
    src_lo, src_hi = _py_number(src.min, src), _py_number(src.max, src)
    lo = max(src_lo, _py_number(dt.min, dt))
    hi = min(src_hi, _py_number(dt.max, dt))
    # Infinities have no integer value, so a float source always needs the clamp there.
    if lo > src_lo or hi < src_hi or (src.is_floating and dt.is_integer):
        value = clip_by_value(value, _inner_bound(lo, src, up=True),
                              _inner_bound(hi, src, up=False))
    return cast(value, dt)


@tf_export("math.add_n", "add_n")
def add_n(inputs, name=None):
    """Sum a list of same-shaped tensors."""
    ts = [convert_to_tensor(t) for t in inputs]
    if ts and any(not isinstance(t, type(ts[0])) for t in ts):
        ts = [convert_to_tensor(t, dtype=ts[0].dtype) for t in ts]
    return apply("add_n", tuple(ts))


@tf_export("math.where", "where")
@runs("select", "where_indices")
def where(condition, x=None, y=None, name=None):
    """With x and y: elements of x where condition, else y (broadcasting). Alone: the
    coordinates of true elements, int64 `[num_true, rank]`."""
    condition = convert_to_tensor(condition)
    if x is None and y is None:
        return apply("where_indices", (condition,))
    if x is None or y is None:
        raise ValueError("where: x and y must both be given, or neither")
    x, y = convert_pair(x, y)
    return apply("select", (condition, x, y))


@tf_export("math.clip_by_value", "clip_by_value")
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clamp `t` to [min, max]; the bounds broadcast to `t`'s shape."""
    t, lo = convert_pair(t, clip_value_min)
    _, hi = convert_pair(t, clip_value_max)
    return apply("clip_by_value", (t, lo, hi))


@tf_export("math.scalar_mul", "scalar_mul")
def scalar_mul(scalar, x, name=None):
    return multiply(scalar, x)


@tf_export("math.squared_difference")
def squared_difference(x, y, name=None):
    return square(subtract(x, y))


# --- clipping by norm: TF's compositions, gradients from the primitives -------------------
@tf_export("clip_by_norm")
def clip_by_norm(t, clip_norm, axes=None, name=None):
    """`t * clip_norm / max(l2norm(t), clip_norm)`, the L2 norm taken over `axes` (all when
    None). An all-zero `t` stays zero (no 0/0)."""
    if isinstance(t, IndexedSlices):   # TF measures the rows as they are, repeats unsummed
        return _like_slices(t, clip_by_norm(t.values, clip_norm, axes))
    t = convert_to_tensor(t)
    clip_norm = convert_to_tensor(clip_norm, dtype=t.dtype)
    l2sum = apply("reduce_sum", (square(t),), {"axis": axes_attr(axes, "clip_by_norm"),
                                               "keepdims": True})
    nonzero = greater(l2sum, convert_to_tensor(0, dtype=t.dtype))
    safe = where(nonzero, l2sum, convert_to_tensor(1, dtype=t.dtype))
    l2norm = where(nonzero, sqrt(safe), l2sum)
    return truediv(multiply(t, clip_norm), maximum(l2norm, clip_norm))


def _tensor_list(t_list, opname):
    if not isinstance(t_list, (list, tuple)):
        raise TypeError(f"{opname}: `t_list` should be a sequence of tensors. Received "
                        f"{type(t_list)}.")
    return [None if t is None else convert_to_tensor(
        t.values if isinstance(t, IndexedSlices) else t) for t in t_list]


def _like_slices(t, values):
    """`values` in place of the values of `t` when it is an IndexedSlices."""
    return IndexedSlices(values, t.indices, t.dense_shape) if isinstance(t, IndexedSlices) \
        else values


@tf_export("linalg.global_norm")
def global_norm(t_list, name=None):
    """sqrt(sum of squares of every element of every tensor in `t_list`; None skipped; an
    IndexedSlices counts its values, a repeated row each time, as TF's)."""
    ts = [t for t in _tensor_list(t_list, "global_norm") if t is not None]
    halves = [apply("l2_loss", (t,)) for t in ts]
    dt = halves[0].dtype if halves else D.float32
    # mixed dtypes fail in add_n with TF's classes (TF's own composition fails in its stack)
    total = add_n(halves) if halves else convert_to_tensor(0, dtype=dt)
    return sqrt(multiply(total, convert_to_tensor(2, dtype=dt)))


@tf_export("clip_by_global_norm")
def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scale every tensor by `clip_norm / max(global_norm, clip_norm)`; returns the clipped
    list (None entries kept) and the global norm. A NaN or Inf norm makes every value NaN,
    as TF's does."""
    given = list(t_list) if isinstance(t_list, (list, tuple)) else t_list
    ts = _tensor_list(given, "clip_by_global_norm")
    norm = global_norm(ts) if use_norm is None else convert_to_tensor(use_norm)
    one = convert_to_tensor(1, dtype=norm.dtype)
    clip_norm = convert_to_tensor(clip_norm, dtype=norm.dtype)
    scale = multiply(clip_norm, minimum(truediv(one, norm), truediv(one, clip_norm)))
    scale = add(scale, subtract(norm, norm))  # NaN where the norm is not finite
    return [None if t is None else _like_slices(g, multiply(t, cast(scale, t.dtype)))
            for t, g in zip(ts, given)], norm


@tf_export("math.real")
def real(input, name=None):  # noqa: A002  (TF's argument names)
    """The real part of a complex tensor; any other tensor is returned as it is."""
    x = convert_to_tensor(input)
    return apply("real", (x,)) if x.dtype.is_complex else x


@tf_export("math.imag")
def imag(input, name=None):  # noqa: A002
    """The imaginary part of a complex tensor; zeros for any other tensor."""
    x = convert_to_tensor(input)
    if x.dtype.is_complex:
        return apply("imag", (x,))
    return apply("fill_like", (x, convert_to_tensor(0, dtype=x.dtype)))


@tf_export("math.conj")
def conj(x, name=None):
    """The complex conjugate; any other tensor is returned as it is."""
    x = convert_to_tensor(x)
    return apply("conj", (x,)) if x.dtype.is_complex else x


@tf_export("complex", "dtypes.complex")
def complex(real, imag, name=None):  # noqa: A001  (TF's name)
    """real + imag * 1j: complex64 from float32 parts, complex128 from float64 parts."""
    re, im = convert_to_tensor(real), convert_to_tensor(imag)
    if re.dtype is not im.dtype or re.dtype not in (D.float32, D.float64):
        raise TypeError(f"complex: The `real` and `imag` components have incorrect types: "
                        f"{re.dtype.name} {im.dtype.name}. They must be consistent, and one "
                        f"of [tf.float32, tf.float64]")
    return apply("complex", (re, im))
