"""Elementwise math: unary, binary (broadcasting, no promotion), comparisons, logic, select,
add_n and cast. Tables keep one line per op; the op name is the `df` op name."""
from __future__ import annotations

from .. import dtypes as D
from ..infer import (COMPLEX, FLOATS, NUMERIC, SIGNED_NUMERIC, TT, WITH_STRING, binary,
                     broadcast, broadcast_all, check_dtype, compare, same_dtype, unary)
from ..errors import UnimplementedError
from ..registry import InferenceError, op

BOOL = (D.bool_,)

# name -> allowed dtypes; result has the input's type.
UNARY = {
    "neg": SIGNED_NUMERIC + COMPLEX, "sign": SIGNED_NUMERIC,
    "square": NUMERIC + COMPLEX, "sqrt": FLOATS + COMPLEX, "rsqrt": FLOATS,
    "exp": FLOATS + COMPLEX, "expm1": FLOATS, "log": FLOATS + COMPLEX, "log1p": FLOATS, "sin": FLOATS, "cos": FLOATS, "tan": FLOATS,
    "tanh": FLOATS, "sigmoid": FLOATS, "erf": FLOATS, "softplus": FLOATS,
    "reciprocal": FLOATS, "round": NUMERIC, "floor": FLOATS, "ceil": FLOATS,
    "logical_not": BOOL,
    "acos": FLOATS, "asin": FLOATS, "atan": FLOATS, "sinh": FLOATS, "cosh": FLOATS,
    "asinh": FLOATS, "acosh": FLOATS, "atanh": FLOATS, "erfc": FLOATS,
}
# Differentiable unless listed here (piecewise-constant or boolean results). floormod is
# piecewise linear (x - floor(x/y) y), with a gradient in TF; sign's gradient is zeros in TF.
NOT_DIFFERENTIABLE = {"round", "floor", "ceil", "logical_not", "is_nan", "is_finite",
                      "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
                      "logical_and", "logical_or", "floordiv"}

BINARY = {
    "add": NUMERIC + COMPLEX, "sub": NUMERIC + COMPLEX, "mul": NUMERIC + COMPLEX,
    "div": NUMERIC + COMPLEX, "floordiv": NUMERIC,
    "floormod": NUMERIC, "pow": SIGNED_NUMERIC, "maximum": NUMERIC, "minimum": NUMERIC,
    "logical_and": BOOL, "logical_or": BOOL, "atan2": FLOATS,
}
COMPARE = {
    "equal": WITH_STRING + COMPLEX, "not_equal": WITH_STRING + COMPLEX, "less": NUMERIC, "less_equal": NUMERIC,
    "greater": NUMERIC, "greater_equal": NUMERIC,
}


def _declare_unary(name, allowed):
    op(name, ("x",), differentiable=name not in NOT_DIFFERENTIABLE)(
        lambda types, attrs: unary(types, allowed))


def _declare_binary(name, allowed):
    op(name, ("x", "y"), differentiable=name not in NOT_DIFFERENTIABLE)(
        lambda types, attrs: binary(types, allowed))


def _declare_compare(name, allowed):
    op(name, ("x", "y"), differentiable=False)(lambda types, attrs: compare(types, allowed))


for _n, _a in UNARY.items():
    _declare_unary(_n, _a)
for _n, _a in BINARY.items():
    _declare_binary(_n, _a)
for _n, _a in COMPARE.items():
    _declare_compare(_n, _a)


@op("abs", ("x",))
def _abs(types, attrs):
    """|x|; the magnitude of a complex number is real."""
    check_dtype(types[0], SIGNED_NUMERIC + COMPLEX)
    return TT(types[0].dtype.real_dtype, types[0].shape)


@op("real", ("input",))
def _real(types, attrs):
    check_dtype(types[0], COMPLEX)
    return TT(types[0].dtype.real_dtype, types[0].shape)


@op("imag", ("input",))
def _imag(types, attrs):
    check_dtype(types[0], COMPLEX)
    return TT(types[0].dtype.real_dtype, types[0].shape)


@op("conj", ("input",))
def _conj(types, attrs):
    return unary(types, COMPLEX)


@op("complex", ("real", "imag"))
def _complex(types, attrs):
    """real + imag * 1j; float32 parts make complex64, float64 parts complex128."""
    dt = same_dtype(types, (D.float32, D.float64))
    return TT(D.complex64 if dt is D.float32 else D.complex128,
              broadcast(types[0].shape, types[1].shape))


@op("is_nan", ("x",), differentiable=False)
def _is_nan(types, attrs):
    check_dtype(types[0], FLOATS)
    return TT(D.bool_, types[0].shape)


@op("is_finite", ("x",), differentiable=False)
def _is_finite(types, attrs):
    check_dtype(types[0], FLOATS)
    return TT(D.bool_, types[0].shape)


@op("select", ("condition", "x", "y"))
def _select(types, attrs):
    """TF's SelectV2 (3-argument `where`): broadcasts all three operands."""
    check_dtype(types[0], BOOL, "condition")
    x, y = types[1:]
    if x.dtype is not y.dtype:  # same_dtype on types[1:] would misnumber the inputs
        raise InferenceError(f"x and y must have the same dtype, got {x.dtype.name} and "
                             f"{y.dtype.name}", dtype_error=True)
    return TT(x.dtype, broadcast_all([t.shape for t in types]))


@op("add_n", ("inputs*",))
def _add_n(types, attrs):
    if not types:
        raise InferenceError("add_n needs at least one input")
    dt = same_dtype(types, NUMERIC)
    shape = types[0].shape
    for t in types[1:]:
        if shape is not None and t.shape is not None and (
                len(shape) != len(t.shape) or any(
                    a is not None and b is not None and a != b for a, b in zip(shape, t.shape))):
            raise InferenceError("add_n inputs must all have the same shape")
        if shape is None:
            shape = t.shape
    return TT(dt, shape)


@op("cast", ("x",), attrs=(("dtype", "dtype"),))
def _cast(types, attrs):
    src, dst = types[0].dtype, D.as_dtype(attrs["dtype"])
    if (src is D.string) != (dst is D.string):  # TF: strings convert only through ops
        raise InferenceError(f"Cast {src.name} to {dst.name} is not supported",
                             UnimplementedError)
    return TT(dst, types[0].shape)


@op("clip_by_value", ("t", "clip_value_min", "clip_value_max"))
def _clip(types, attrs):
    dt = same_dtype(types, NUMERIC)
    shape = types[0].shape
    for t in types[1:]:
        out = broadcast(shape, t.shape)
        # Only a known dim (or the rank) growing to a known size is an error: an unknown dim
        # may turn out to match (the kernel checks at run time).
        if shape is not None and out is not None and (len(out) != len(shape) or any(
                None not in (d, o) and d != o for d, o in zip(shape, out))):
            raise InferenceError(f"clip bounds of shape {list(t.shape)} do not broadcast to the "
                                 f"input shape {list(shape)}")
    return TT(dt, shape)
