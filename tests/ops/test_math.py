"""Elementwise math family: every op in ir/ops/math.py's tables and every API function in
frontend/ops/math.py against references written here (float64 NumPy/`math` for floats, exact
Python integers wrapped to the dtype for integers), for each supported dtype, with
broadcasting, zero-size dims, NaN/Inf, TF's type rules and the Tensor operators.

Tolerances: helpers.RTOL per dtype (float32 1e-6); the reference is the float64 result rounded
to the dtype, so only the kernel's own rounding differs. bfloat16/float16 kernels that chain
several roundings (sigmoid, softplus, rsqrt) stay within helpers.RTOL's 1e-2/1e-3 + atol."""
from __future__ import annotations

import math
import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import flowjit as tf
from flowjit.frontend.ops import math as fmath
from flowjit.ir import dtypes as D
from flowjit.ir.errors import InvalidArgumentError
from flowjit.extend import api_for_op
from flowjit.ir.registry import OPS
from flowjit.ir.ops import math as imath
from helpers import (BF16, FLOAT_DTYPES, INT_DTYPES, assert_close, broadcastable_pair, is_float,
                     rand, shapes)
from helpers import dtype_ids as ids
from helpers import wrap_int as wrap

ALL_NP = FLOAT_DTYPES + INT_DTYPES + [np.bool_]


def np_dtypes(allowed):
    """The NumPy dtypes of a registry dtype tuple, in helpers' order."""
    names = {d.name for d in allowed}
    return [d for d in ALL_NP if tf.as_dtype(d).name in names]


def api(opname):
    """The public function of op `opname` (flowjit.extend.api_for_op names it)."""
    obj = tf
    for part in api_for_op(opname).split("."):
        obj = getattr(obj, part)
    return obj


def elementwise(fn, *arrays):
    """Apply a Python function to Python scalars, broadcasting NumPy-style."""
    arrays = np.broadcast_arrays(*[np.asarray(a).astype(object) for a in arrays])
    out = np.empty(arrays[0].shape, dtype=object)
    for idx in np.ndindex(out.shape):
        out[idx] = fn(*[a[idx] for a in arrays])
    return out


def f64(x):
    return np.asarray(x).astype(np.float64)


def with_specials(x, rng):
    """Overwrite a few entries of a float array with 0, -0, +-inf and NaN."""
    if not is_float(x.dtype) or x.size == 0:
        return x
    x = x.copy()
    flat = x.reshape(-1)
    for v in (0.0, -0.0, np.inf, -np.inf, np.nan):
        if rng.random() < 0.3:
            flat[rng.integers(flat.size)] = v
    return x


def _round_half_even(v):
    return v if not math.isfinite(v) else float(round(v))


def _fin(fn):
    return lambda v: v if not math.isfinite(v) else float(fn(v))


# --- unary ------------------------------------------------------------------------------------
# op -> (float64 reference on an ndarray, Python-int reference or None)
UNARY_REF = {
    "neg": (lambda x: -x, lambda v: -v),
    "abs": (np.abs, abs),
    "sign": (np.sign, lambda v: (v > 0) - (v < 0)),
    "square": (lambda x: x * x, lambda v: v * v),
    "sqrt": (np.sqrt, None),
    "rsqrt": (lambda x: 1.0 / np.sqrt(x), None),
    "exp": (np.exp, None),
    "expm1": (np.expm1, None),
    "log": (np.log, None),
    "log1p": (np.log1p, None),
    "sin": (np.sin, None),
    "cos": (np.cos, None),
    "tan": (np.tan, None),
    "tanh": (np.tanh, None),
    "sigmoid": (lambda x: 1.0 / (1.0 + np.exp(-x)), None),
    "erf": (np.vectorize(math.erf, otypes=[np.float64]), None),
    "softplus": (lambda x: np.logaddexp(0.0, x), None),
    "reciprocal": (lambda x: 1.0 / x, None),
    "round": (np.vectorize(_round_half_even, otypes=[np.float64]), lambda v: v),
    "floor": (np.vectorize(_fin(math.floor), otypes=[np.float64]), None),
    "ceil": (np.vectorize(_fin(math.ceil), otypes=[np.float64]), None),
    "logical_not": (None, lambda v: not v),
    "is_nan": (np.isnan, None),
    "is_finite": (np.isfinite, None),
    "acos": (np.arccos, None),
    "asin": (np.arcsin, None),
    "atan": (np.arctan, None),
    "sinh": (np.sinh, None),
    "cosh": (np.cosh, None),
    "asinh": (np.arcsinh, None),
    "acosh": (np.arccosh, None),
    "atanh": (np.arctanh, None),
    "erfc": (np.vectorize(math.erfc, otypes=[np.float64]), None),
}
# abs is declared apart from the table (a complex magnitude is real); its real dtypes here
UNARY_OPS = dict(imath.UNARY, abs=imath.SIGNED_NUMERIC, is_nan=imath.FLOATS,
                 is_finite=imath.FLOATS)
UNARY_CASES = [(name, dt) for name, allowed in UNARY_OPS.items() for dt in np_dtypes(allowed)]


def test_every_unary_op_has_a_reference():
    assert set(UNARY_REF) == set(UNARY_OPS)


def run_unary(name, x):
    got = api(name)(x)
    fref, iref = UNARY_REF[name]
    bool_out = name in ("is_nan", "is_finite")
    assert got.dtype == (tf.bool if bool_out else tf.as_dtype(x.dtype))
    assert got.shape == x.shape
    if x.dtype == np.bool_ or not is_float(x.dtype):
        expected = wrap(elementwise(iref, x), x.dtype)
    else:
        with np.errstate(all="ignore"):
            expected = np.asarray(fref(f64(x)))
        expected = expected if bool_out else expected.astype(x.dtype)
    assert_close(got.numpy(), expected, dtype=x.dtype if not bool_out else None)


@pytest.mark.parametrize("name,dtype", UNARY_CASES,
                         ids=[f"{n}-{np.dtype(d).name}" for n, d in UNARY_CASES])
@settings(max_examples=12)
@given(shape=shapes(), seed=st.integers(0, 2**32 - 1))
def test_unary(name, dtype, shape, seed):
    rng = np.random.default_rng(seed)
    x = with_specials(rand(rng, shape, dtype), rng)
    run_unary(name, x)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids(FLOAT_DTYPES))
@pytest.mark.parametrize("name", [n for n, a in UNARY_OPS.items() if D.float32 in a])
def test_unary_special_values(name, dtype):
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5,
                  20.0, -20.0, 1e-3], dtype)
    run_unary(name, x)


def test_unary_large_inputs_are_stable():
    c = tf.convert_to_tensor
    assert_close(tf.math.sigmoid(c([-1000.0, 1000.0])).numpy(), np.float32([0.0, 1.0]))
    assert_close(tf.math.softplus(c([-1000.0, 1000.0])).numpy(), np.float32([0.0, 1000.0]))
    assert tf.math.exp(c([1000.0])).numpy()[0] == np.inf
    assert tf.math.log(c([0.0])).numpy()[0] == -np.inf
    assert np.isnan(tf.math.sqrt(c([-1.0])).numpy()[0])
    # Integer abs/neg wrap on the most negative value, as in TF.
    assert tf.abs(c(np.array([-128], np.int8))).numpy()[0] == -128
    assert tf.negative(c(np.array([-128], np.int8))).numpy()[0] == -128
    assert tf.math.erf(c(0.5)).shape == ()


@pytest.mark.parametrize("name,dtype", [
    ("neg", np.uint8), ("abs", np.uint8), ("sign", np.uint8), ("sqrt", np.int32),
    ("exp", np.int64), ("floor", np.int32), ("logical_not", np.float32), ("neg", np.bool_),
    ("is_nan", np.int32), ("reciprocal", np.int32), ("square", np.bool_)])
def test_unary_rejects_dtype(name, dtype):
    with pytest.raises(InvalidArgumentError,
                       match=rf"\[Op:{name}\] with inputs x: {np.dtype(dtype).name}"):
        api(name)(np.zeros(2, dtype))


# --- binary -----------------------------------------------------------------------------------
def _trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _floordiv_f(x, y, dt):
    # TF floors the quotient rounded to the dtype (1.0 // 0.1 == 10.0).
    return np.floor(np.asarray(x / y).astype(dt).astype(np.float64))


def _floormod_f(x, y, dt):
    # TF: the C remainder (exact), moved into y's sign.
    r = np.fmod(x, y)
    return np.where((r != 0) & ((r < 0) != (y < 0)), r + y, r)


def _nan_or(fn):
    return lambda x, y, dt: np.where(np.isnan(x) | np.isnan(y), np.nan, fn(x, y))


# op -> (float64 reference (x, y, dtype), Python-int reference)
BINARY_REF = {
    "add": (lambda x, y, dt: x + y, operator.add),
    "sub": (lambda x, y, dt: x - y, operator.sub),
    "mul": (lambda x, y, dt: x * y, operator.mul),
    "div": (lambda x, y, dt: x / y, _trunc_div),
    "floordiv": (_floordiv_f, operator.floordiv),
    "floormod": (_floormod_f, operator.mod),
    "pow": (lambda x, y, dt: np.power(x, y), operator.pow),
    "maximum": (_nan_or(lambda x, y: np.where(x >= y, x, y)), max),
    "minimum": (_nan_or(lambda x, y: np.where(x <= y, x, y)), min),
    "logical_and": (None, lambda a, b: a and b),
    "logical_or": (None, lambda a, b: a or b),
    "equal": (lambda x, y, dt: x == y, operator.eq),
    "not_equal": (lambda x, y, dt: x != y, operator.ne),
    "less": (lambda x, y, dt: x < y, operator.lt),
    "less_equal": (lambda x, y, dt: x <= y, operator.le),
    "greater": (lambda x, y, dt: x > y, operator.gt),
    "greater_equal": (lambda x, y, dt: x >= y, operator.ge),
    "atan2": (lambda x, y, dt: np.arctan2(x, y), None),
}
BINARY_OPS = dict(imath.BINARY, **imath.COMPARE)
BINARY_CASES = [(name, dt) for name, allowed in BINARY_OPS.items() for dt in np_dtypes(allowed)]


def test_every_binary_op_has_a_reference():
    assert set(BINARY_REF) == set(BINARY_OPS)


def binary_api(name):
    # `tf.math.divide` is truediv (ints -> float); the raw truncating Div is reached this way.
    return fmath.divide_no_promote if name == "div" else api(name)


def run_binary(name, x, y):
    got = binary_api(name)(tf.convert_to_tensor(x), tf.convert_to_tensor(y))
    fref, iref = BINARY_REF[name]
    bool_out = name in imath.COMPARE
    assert got.dtype == (tf.bool if bool_out else tf.as_dtype(x.dtype))
    if is_float(x.dtype):
        with np.errstate(all="ignore"):
            expected = np.asarray(fref(f64(x), f64(y), x.dtype))
        expected = expected if bool_out else expected.astype(x.dtype)
        assert_close(got.numpy(), expected, dtype=None if bool_out else x.dtype)
    else:
        expected = elementwise(iref, x, y)
        assert_close(got.numpy(), wrap(expected, np.bool_ if bool_out else x.dtype))


@pytest.mark.parametrize("name,dtype", BINARY_CASES,
                         ids=[f"{n}-{np.dtype(d).name}" for n, d in BINARY_CASES])
@settings(max_examples=12)
@given(pair=broadcastable_pair(), seed=st.integers(0, 2**32 - 1))
def test_binary(name, dtype, pair, seed):
    rng = np.random.default_rng(seed)
    x, y = rand(rng, pair[0], dtype), rand(rng, pair[1], dtype)
    if not is_float(dtype) and np.dtype(dtype).kind != "b":
        if name in ("div", "floordiv", "floormod"):
            y = np.where(y == 0, np.ones_like(y), y)
        if name == "pow":
            y = np.abs(y)
    x, y = with_specials(x, rng), with_specials(y, rng)
    run_binary(name, x, y)
    assert binary_api(name)(x, y).shape == np.broadcast_shapes(x.shape, y.shape)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids(FLOAT_DTYPES))
@pytest.mark.parametrize("name", [n for n, a in BINARY_OPS.items() if D.float32 in a])
def test_binary_special_values(name, dtype):
    vals = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.5, -7.0, 0.1], dtype)
    x, y = np.meshgrid(vals, vals)
    run_binary(name, x, y)


def test_division_semantics():
    c = tf.convert_to_tensor
    x = np.array([7, -7, 7, -7, 0, -128], np.int8)
    y = np.array([2, 2, -2, -2, 3, 2], np.int8)
    assert tf.math.floordiv(x, y).numpy().tolist() == [3, -4, -4, 3, 0, -64]
    assert tf.math.floormod(x, y).numpy().tolist() == [1, 1, -1, -1, 0, 0]
    assert fmath.divide_no_promote(c(x), c(y)).numpy().tolist() == [3, -3, -3, 3, 0, -64]
    # Float floordiv floors the rounded quotient (TF), unlike Python's 1.0 // 0.1 == 9.0.
    assert tf.math.floordiv(c(1.0), c(0.1)).numpy() == 10.0
    assert tf.math.floordiv(c(-7.0), 2.0).numpy() == -4.0
    assert tf.math.floormod(c([-7.0, 7.0]), c([2.0, -2.0])).numpy().tolist() == [1.0, -1.0]
    assert tf.math.floordiv(c([1.0, -1.0]), 0.0).numpy().tolist() == [np.inf, -np.inf]
    assert np.isnan(tf.math.floormod(c(1.0), 0.0).numpy())
    assert tf.math.mod is tf.math.floormod


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=ids(INT_DTYPES))
def test_integer_division_by_zero_raises(dtype):
    x = tf.convert_to_tensor(np.array([1, 2], dtype))
    z = tf.convert_to_tensor(np.array([1, 0], dtype))
    for fn, name in ((tf.math.floordiv, "floordiv"), (tf.math.floormod, "floormod"),
                     (fmath.divide_no_promote, "div")):
        with pytest.raises(InvalidArgumentError, match=rf"[Dd]ivision by zero.*\[Op:{name}\]"):
            fn(x, z)
    with pytest.raises(InvalidArgumentError, match="floordiv"):
        x // 0
    with pytest.raises(InvalidArgumentError, match="floormod"):
        x % 0


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64], ids=str)
def test_integer_pow_negative_exponent_raises(dtype):
    x = tf.convert_to_tensor(np.array([2, 3], dtype))
    with pytest.raises(InvalidArgumentError, match=r"negative.*\[Op:pow\]"):
        tf.pow(x, tf.convert_to_tensor(np.array([1, -1], dtype)))
    with pytest.raises(InvalidArgumentError, match="pow"):
        x ** -1
    assert (x ** 0).numpy().tolist() == [1, 1]


@pytest.mark.parametrize("name", ["add", "sub", "pow", "less", "logical_and", "maximum"])
def test_binary_rejects_dtype(name):
    dt = np.float32 if name == "logical_and" else np.bool_
    if name == "pow":
        dt = np.uint8
    with pytest.raises(InvalidArgumentError,
                       match=rf"\[Op:{name}\] with inputs x: {np.dtype(dt).name}"):
        binary_api(name)(np.zeros(2, dt), np.zeros(2, dt))


@pytest.mark.parametrize("name", list(BINARY_OPS))
def test_binary_incompatible_shapes(name):
    dt = np.bool_ if name.startswith("logical") else np.float32
    with pytest.raises(InvalidArgumentError, match=rf"Incompatible shapes.*\[Op:{name}\]"):
        binary_api(name)(np.zeros((2, 3), dt), np.zeros((4,), dt))


# --- type rules -------------------------------------------------------------------------------
@pytest.mark.parametrize("fn,name", [(tf.add, "add"), (tf.subtract, "sub"),
                                     (tf.multiply, "mul"), (tf.maximum, "maximum"),
                                     (tf.less, "less"), (tf.equal, "equal"),
                                     (tf.math.floordiv, "floordiv"), (tf.pow, "pow")])
def test_no_implicit_promotion(fn, name):
    i = tf.convert_to_tensor([1, 2])
    f = tf.convert_to_tensor([1.0, 2.0])
    with pytest.raises(InvalidArgumentError,
                       match=rf"\[Op:{name}\] with inputs .*int32.*float32") as e:
        fn(i, f)
    assert "float32" in str(e.value) and "int32" in str(e.value)
    with pytest.raises(InvalidArgumentError, match=name):
        i + f if name == "add" else fn(f, i)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + INT_DTYPES, ids=ids(FLOAT_DTYPES + INT_DTYPES))
def test_python_scalars_take_tensor_dtype(dtype):
    t = tf.convert_to_tensor(np.array([1, 2], dtype))
    for r in (t + 1, 1 + t, t * 2, 2 * t, tf.add(t, 1), tf.maximum(1, t), t - 1, 3 - t):
        assert r.dtype == tf.as_dtype(dtype)
    assert_close((t + 1).numpy(), np.array([2, 3], dtype))
    assert_close((3 - t).numpy(), np.array([2, 1], dtype))
    if is_float(dtype):
        assert (t + 1.5).dtype == tf.as_dtype(dtype)
        assert_close((t + 1.5).numpy(), np.array([2.5, 3.5], dtype))
    else:
        with pytest.raises(TypeError):
            t + 1.5
        with pytest.raises(TypeError):
            1.5 + t
        with pytest.raises(TypeError):
            tf.add(t, 0.5)
        with pytest.raises(TypeError):
            t + 1000 if np.dtype(dtype).itemsize == 1 else t + 2**70
    assert tf.convert_to_tensor(1).dtype == tf.int32
    assert tf.convert_to_tensor(1.5).dtype == tf.float32


def test_numpy_operands():
    f = tf.convert_to_tensor(np.array([1.0, 2.0], np.float32))
    r = np.array([0.5, 1.5]) + f  # a NumPy array on the left defers to the Tensor
    assert isinstance(r, tf.Tensor) and r.dtype == tf.float32
    assert_close(r.numpy(), np.float32([1.5, 3.5]))
    r = np.float64(2.0) * f
    assert isinstance(r, tf.Tensor) and r.dtype == tf.float32
    assert_close(r.numpy(), np.float32([2.0, 4.0]))
    i = tf.convert_to_tensor([1, 2])
    assert (np.array([1, 2], np.int64) + i).dtype == tf.int32


# --- truediv / divide -------------------------------------------------------------------------
TRUEDIV = {np.int8: np.float32, np.int16: np.float32, np.uint8: np.float32,
           np.int32: np.float64, np.int64: np.float64, np.float16: np.float16,
           BF16.type: BF16.type, np.float32: np.float32, np.float64: np.float64}


@pytest.mark.parametrize("dtype", list(TRUEDIV), ids=ids(list(TRUEDIV)))
@settings(max_examples=10)
@given(pair=broadcastable_pair(), seed=st.integers(0, 2**32 - 1))
def test_truediv(dtype, pair, seed):
    rng = np.random.default_rng(seed)
    x, y = rand(rng, pair[0], dtype), rand(rng, pair[1], dtype)
    out_dt = TRUEDIV[dtype]
    for fn in (tf.math.truediv, tf.math.divide, tf.divide, operator.truediv):
        got = fn(tf.convert_to_tensor(x), tf.convert_to_tensor(y))
        assert got.dtype == tf.as_dtype(out_dt)
        with np.errstate(all="ignore"):
            expected = (f64(x) / f64(y)).astype(out_dt)
        assert_close(got.numpy(), expected)


def test_truediv_rules():
    c = tf.convert_to_tensor
    i = c([1, 2])
    assert (i / 0).numpy().tolist() == [np.inf, np.inf]
    assert (i / 0).dtype == tf.float64
    assert (7 / i).numpy().tolist() == [7.0, 3.5]
    assert (np.array([7, 8]) / i).dtype == tf.float64
    assert tf.math.divide(1, 2).numpy() == 0.5 and tf.math.divide(1, 2).dtype == tf.float64
    assert tf.math.divide(1.0, 2).dtype == tf.float32
    with pytest.raises(TypeError, match=r"truediv.*int32.*float32"):
        i / c([1.0, 2.0])
    with pytest.raises(TypeError, match="truediv.*bool"):
        c([True]) / c([True])
    with pytest.raises(TypeError):
        i / 1.5


# --- where / select ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL_NP, ids=ids(ALL_NP))
@settings(max_examples=10)
@given(shp=hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=4,
                                             max_side=4),
       seed=st.integers(0, 2**32 - 1))
def test_where(dtype, shp, seed):
    rng = np.random.default_rng(seed)
    sc, sx, sy = shp.input_shapes
    cond = rng.random(sc) < 0.5
    x, y = rand(rng, sx, dtype), rand(rng, sy, dtype)
    got = tf.where(cond, x, y)
    assert got.dtype == tf.as_dtype(dtype)
    expected = elementwise(lambda c_, a, b: a if c_ else b, cond, x, y)
    assert_close(got.numpy(), expected.astype(dtype).reshape(shp.result_shape))


def test_where_operands_and_errors():
    c = tf.convert_to_tensor
    f = c([1.0, 2.0])
    assert tf.where([True, False], f, 0).numpy().tolist() == [1.0, 0.0]
    assert tf.where([True, False], 5, f).dtype == tf.float32
    with pytest.raises(InvalidArgumentError, match=r"\[Op:select\] with inputs condition: float32"):
        tf.where(c([1.0, 0.0]), f, f)
    with pytest.raises(InvalidArgumentError, match=r"float32.*int32|select.*int32.*\[Op:select\]"):
        tf.where(c([True, False]), f, c([1, 2]))
    with pytest.raises(InvalidArgumentError, match=r"Incompatible.*\[Op:select\]"):
        tf.where(c([True, False, True]), f, f)
    with pytest.raises(ValueError, match="where"):
        tf.where(c([True]), f)


# --- add_n, clip_by_value, logical_xor, misc --------------------------------------------------
@pytest.mark.parametrize("dtype", FLOAT_DTYPES + INT_DTYPES, ids=ids(FLOAT_DTYPES + INT_DTYPES))
@settings(max_examples=10)
@given(shape=shapes(), n=st.integers(1, 4), seed=st.integers(0, 2**32 - 1))
def test_add_n(dtype, shape, n, seed):
    rng = np.random.default_rng(seed)
    xs = [rand(rng, shape, dtype) for _ in range(n)]
    got = tf.add_n([tf.convert_to_tensor(x) for x in xs])
    assert got.dtype == tf.as_dtype(dtype) and got.shape == shape
    if is_float(dtype):
        # Left-to-right sum, each step rounded to the dtype.
        acc = xs[0].astype(dtype)
        for x in xs[1:]:
            acc = (f64(acc) + f64(x)).astype(dtype)
        assert_close(got.numpy(), acc)
    else:
        total = elementwise(lambda *v: sum(v), *xs) if n > 1 else xs[0].astype(object)
        assert_close(got.numpy(), wrap(total, dtype))


def test_add_n_errors():
    c = tf.convert_to_tensor
    with pytest.raises(InvalidArgumentError, match=r"same shape.*\[Op:add_n\]"):
        tf.add_n([c([1.0, 2.0]), c([1.0])])
    with pytest.raises(InvalidArgumentError, match=r"float32.*int32|add_n.*int32.*\[Op:add_n\]"):
        tf.add_n([c([1.0]), c([1])])
    with pytest.raises(InvalidArgumentError, match="add_n"):
        tf.add_n([])
    with pytest.raises(InvalidArgumentError, match=r"bool.*\[Op:add_n\]"):
        tf.add_n([c([True])])
    assert tf.add_n([[1, 2], [3, 4]]).numpy().tolist() == [4, 6]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + INT_DTYPES, ids=ids(FLOAT_DTYPES + INT_DTYPES))
@settings(max_examples=10)
@given(shape=shapes(min_dims=1, max_dims=3), seed=st.integers(0, 2**32 - 1),
       data=st.data())
def test_clip_by_value(dtype, shape, seed, data):
    rng = np.random.default_rng(seed)
    x = with_specials(rand(rng, shape, dtype), rng)
    # Bounds: a scalar, or a shape that broadcasts to x's shape.
    lo_shape = data.draw(st.sampled_from([(), shape[-1:], (1,) * len(shape)]))
    lo = rand(rng, lo_shape, dtype, -2, 0)
    hi = rand(rng, (), dtype, 0, 2)
    got = tf.clip_by_value(x, lo, hi)
    assert got.dtype == tf.as_dtype(dtype) and got.shape == shape
    if is_float(dtype):
        xs, los = np.broadcast_arrays(f64(x), f64(lo))
        expected = np.where(np.isnan(xs), np.nan,
                            np.where(xs < los, los, np.where(xs > f64(hi), f64(hi), xs)))
        assert_close(got.numpy(), expected.astype(dtype))
    else:
        expected = elementwise(lambda v, a, b: min(max(v, a), b), x, lo, hi)
        assert_close(got.numpy(), wrap(expected, dtype))


def test_clip_by_value_errors_and_scalars():
    c = tf.convert_to_tensor
    assert tf.clip_by_value(c([1, 5, -3]), 0, 2).numpy().tolist() == [1, 2, 0]
    with pytest.raises(InvalidArgumentError, match="clip_by_value"):
        tf.clip_by_value(c([[1.0, 5.0]]), [[0.0], [1.0]], 2.0)  # bounds widen the result
    with pytest.raises(TypeError):
        tf.clip_by_value(c([1, 5]), 0.5, 2)
    with pytest.raises(InvalidArgumentError, match="clip_by_value"):
        tf.clip_by_value(c([True]), False, True)


def test_logical_xor():
    a = np.array([[True], [False]])
    b = np.array([True, False, True])
    got = tf.math.logical_xor(a, b)
    assert got.dtype == tf.bool
    assert got.numpy().tolist() == (a ^ b).tolist()
    assert tf.math.logical_xor(True, tf.convert_to_tensor(False)).numpy()
    with pytest.raises(InvalidArgumentError):
        tf.math.logical_xor(tf.convert_to_tensor([1]), tf.convert_to_tensor([0]))


def test_composed_helpers():
    x = np.array([1.0, -2.0, 3.0], np.float32)
    y = np.array([0.5, 2.0, -1.0], np.float32)
    assert_close(tf.math.squared_difference(x, y).numpy(), ((f64(x) - f64(y)) ** 2)
                 .astype(np.float32))
    assert_close(tf.math.scalar_mul(2.0, x).numpy(), x * 2)


# --- cast / saturate_cast ---------------------------------------------------------------------
CAST_DTYPES = FLOAT_DTYPES + INT_DTYPES + [np.bool_]


@pytest.mark.parametrize("src", CAST_DTYPES, ids=ids(CAST_DTYPES))
@pytest.mark.parametrize("dst", CAST_DTYPES, ids=ids(CAST_DTYPES))
def test_cast(src, dst):
    rng = np.random.default_rng(7)
    x = rand(rng, (3, 5), src, -100, 100)
    got = tf.cast(x, tf.as_dtype(dst))
    assert got.dtype == tf.as_dtype(dst) and got.shape == x.shape
    if np.dtype(dst) == np.bool_:
        expected = elementwise(lambda v: v != 0, x).astype(bool)
    elif is_float(dst):
        # NumPy/ml_dtypes conversion rounds to nearest even (an independent implementation).
        expected = x.astype(np.float64).astype(dst) if src != np.bool_ else x.astype(dst)
    else:
        # Float -> int truncates toward zero; ints wrap.
        expected = wrap(elementwise(lambda v: int(v), x), dst)
    assert_close(got.numpy(), expected)


def test_cast_special_values():
    c = tf.convert_to_tensor
    f = c([np.nan, np.inf, -np.inf, -1.7, 1.7, -0.0])
    assert tf.cast(f, tf.bool).numpy().tolist() == [True, True, True, True, True, False]
    # TF 2.21: NaN and +-inf convert as x86 does, to the minimum of int32
    assert tf.cast(f, tf.int32).numpy().tolist() == [-2**31] * 3 + [-1, 1, 0]
    assert tf.cast(c([300, -1]), tf.uint8).numpy().tolist() == [44, 255]
    assert tf.cast(c([70000.0]), tf.float16).numpy()[0] == np.inf
    t = c([1.0])
    assert tf.cast(t, tf.float32) is t
    assert tf.cast([1, 2], "float64").dtype == tf.float64
    assert tf.dtypes.cast is tf.cast


@pytest.mark.parametrize("src,dst,values,expected", [
    # TF's answers (float32 holds no 2**31 - 1: the clamp is the float just below 2**31).
    (np.float32, tf.int32, [np.inf, -np.inf, 3e9, -3e9, -1.7, 1.7],
     [2147483520, -2147483648, 2147483520, -2147483648, -1, 1]),
    (np.float32, tf.uint8, [np.inf, -np.inf, 3e9, -1.7, 1.7, 300, -5], [255, 0, 255, 0, 1, 255, 0]),
    (np.int32, tf.float16, [70000, -70000, 5], [65504, -65504, 5]),
    (np.int32, tf.uint8, [300, -1, 7], [255, 0, 7]),
    (np.int64, tf.int8, [300, -1, -300], [127, -1, -128]),
    (np.float64, tf.float32, [1e39, -1e39, 1.5], [3.4028234663852886e38, -3.4028234663852886e38,
                                                  1.5]),
    (np.float16, tf.int32, [np.inf, -np.inf, 3.5], [65504, -65504, 3]),
    (np.uint8, tf.int8, [200, 100], [127, 100]),
    (np.float32, tf.int64, [1e30, -1e30], [9223371487098961920, -2**63]),
    (np.float32, tf.float64, [np.inf, 1.5], [np.inf, 1.5]),
    (np.float32, tf.float16, [1e30, -1e30, 0.5], [65504, -65504, 0.5]),
])
def test_saturate_cast(src, dst, values, expected):
    with np.errstate(over="ignore"):
        x = np.array(values, src)
    got = tf.saturate_cast(x, dst)
    assert got.dtype == dst
    assert got.numpy().astype(np.float64).tolist() == np.array(expected, np.float64).tolist()


# --- operators --------------------------------------------------------------------------------
ARITH = [("+", operator.add), ("-", operator.sub), ("*", operator.mul),
         ("/", operator.truediv), ("//", operator.floordiv), ("%", operator.mod),
         ("**", operator.pow)]


def ref_op(sym, x, y, dt):
    """NumPy reference for a Python operator on arrays of dtype `dt` (TF semantics)."""
    dt = np.dtype(dt)
    with np.errstate(all="ignore"):
        if sym == "/":
            target = np.float64 if dt in (np.dtype(np.int32), np.dtype(np.int64)) else (
                np.float32 if dt.kind in "iu" else dt)
            return (f64(x) / f64(y)).astype(target)
        if dt.kind in "iu":
            fn = dict(ARITH)[sym]
            return wrap(elementwise(fn, x, y), dt)
        xs, ys = f64(x), f64(y)
        if sym == "//":
            return np.floor(np.asarray(xs / ys).astype(dt).astype(np.float64)).astype(dt)
        if sym == "%":
            return _floormod_f(xs, ys, dt).astype(dt)
        return np.asarray(dict(ARITH)[sym](xs, ys)).astype(dt)


OPERATOR_DTYPES = [np.float32, np.float64, np.float16, np.int32, np.int64, np.int8]


@pytest.mark.parametrize("dtype", OPERATOR_DTYPES, ids=ids(OPERATOR_DTYPES))
@pytest.mark.parametrize("sym,fn", ARITH, ids=[s for s, _ in ARITH])
@settings(max_examples=8)
@given(pair=broadcastable_pair(max_dims=3), seed=st.integers(0, 2**32 - 1))
def test_arithmetic_operators(sym, fn, dtype, pair, seed):
    rng = np.random.default_rng(seed)
    x, y = rand(rng, pair[0], dtype), rand(rng, pair[1], dtype)
    if np.dtype(dtype).kind == "i":
        if sym in ("//", "%"):
            y = np.where(y == 0, np.ones_like(y), y)
        if sym == "**":
            y = np.abs(y)
    tx, ty = tf.convert_to_tensor(x), tf.convert_to_tensor(y)
    expected = ref_op(sym, x, y, dtype)
    for got in (fn(tx, ty), fn(x, ty), fn(tx, y)):  # NumPy operands on either side
        assert isinstance(got, tf.Tensor)
        assert got.dtype == tf.as_dtype(expected.dtype)
        assert_close(got.numpy(), expected)
    # Python scalars on either side take the tensor's dtype.
    s = 2
    assert_close(fn(tx, s).numpy(), ref_op(sym, x, np.array(s, dtype), dtype))
    assert_close(fn(s, ty).numpy(), ref_op(sym, np.array(s, dtype), y, dtype))


@pytest.mark.parametrize("dtype", OPERATOR_DTYPES + [np.uint8],
                         ids=ids(OPERATOR_DTYPES + [np.uint8]))
@settings(max_examples=8)
@given(pair=broadcastable_pair(max_dims=3), seed=st.integers(0, 2**32 - 1))
def test_comparison_operators(dtype, pair, seed):
    rng = np.random.default_rng(seed)
    x, y = rand(rng, pair[0], dtype), rand(rng, pair[1], dtype)
    x, y = with_specials(x, rng), with_specials(y, rng)
    tx = tf.convert_to_tensor(x)
    for fn in (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne):
        expected = elementwise(lambda a, b: fn(float(a), float(b)), x, y).astype(bool)
        for got in (fn(tx, y), fn(x, tf.convert_to_tensor(y)), fn(tx, tf.convert_to_tensor(y))):
            assert isinstance(got, tf.Tensor) and got.dtype == tf.bool
            assert_close(got.numpy(), expected)
    assert_close((tx < 1).numpy(), x < 1)
    assert_close((1 < tx).numpy(), 1 < x)
    assert_close((tx == 1).numpy(), x == 1)


def test_unary_operators():
    x = np.array([[-1.5, 0.0, 2.0]], np.float32)
    t = tf.convert_to_tensor(x)
    assert_close((-t).numpy(), -x)
    assert_close(abs(t).numpy(), np.abs(x))
    assert (+t) is t
    i = tf.convert_to_tensor(np.array([-3, 4], np.int16))
    assert (-i).numpy().tolist() == [3, -4] and (-i).dtype == tf.int16
    assert abs(i).numpy().tolist() == [3, 4]
    with pytest.raises(InvalidArgumentError, match="neg"):
        -tf.convert_to_tensor(np.array([1], np.uint8))


def test_matmul_operator():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    ta, tb = tf.convert_to_tensor(a), tf.convert_to_tensor(b)
    expected = (f64(a) @ f64(b)).astype(np.float32)
    for got in (ta @ tb, a @ tb, ta @ b, ta @ b.tolist()):
        assert isinstance(got, tf.Tensor)
        assert_close(got.numpy(), expected)


def test_bool_operators():
    a = np.array([[True], [False]])
    b = np.array([True, False, True])
    ta, tb = tf.convert_to_tensor(a), tf.convert_to_tensor(b)
    for sym, fn in (("&", operator.and_), ("|", operator.or_), ("^", operator.xor)):
        expected = elementwise(lambda p, q: bool(fn(p, q)), a, b).astype(bool)
        for got in (fn(ta, tb), fn(a, tb), fn(ta, b)):
            assert isinstance(got, tf.Tensor) and got.dtype == tf.bool, sym
            assert_close(got.numpy(), expected)
        assert_close(fn(True, tb).numpy(), np.array([bool(fn(True, v)) for v in b]))
        assert_close(fn(tb, False).numpy(), np.array([bool(fn(v, False)) for v in b]))
    assert_close((~tb).numpy(), ~b)
    i = tf.convert_to_tensor([1, 2])
    for fn in (operator.and_, operator.or_, operator.xor):
        with pytest.raises(TypeError):
            fn(i, i)
    with pytest.raises(TypeError):
        ~i


def test_equality_operators_with_odd_operands():
    t = tf.convert_to_tensor([1, 2])
    assert (t == None) is False  # noqa: E711  (TF 2 semantics)
    assert (t != None) is True  # noqa: E711
    assert (t == tf.convert_to_tensor([1.0, 2.0])) is False  # dtype mismatch: not equal
    assert (t == tf.convert_to_tensor([1, 2, 3])) is False  # incompatible shapes
    assert (t != tf.convert_to_tensor([1, 2, 3])) is True
    assert (t == [1, 3]).numpy().tolist() == [True, False]
    assert (np.array([1, 3]) == t).numpy().tolist() == [True, False]


def test_operator_type_errors():
    # TF's kernel text: its kernel's name and C++ type names ("float"), then flowjit's op.
    i = tf.convert_to_tensor([1, 2])
    f = tf.convert_to_tensor([1.0, 2.0])
    with pytest.raises(InvalidArgumentError, match=r"^cannot compute AddV2 as input #1\(zero-"
                       r"based\) was expected to be a int32 tensor but is a float tensor "
                       r"\[Op:add\]"):
        i + f
    with pytest.raises(InvalidArgumentError,
                       match=r"^cannot compute Mul .* a float tensor but is a int32 tensor "
                             r"\[Op:mul\]"):
        f * i
    with pytest.raises(InvalidArgumentError, match=r"^cannot compute Less .* \[Op:less\]"):
        i < f
    with pytest.raises(TypeError):
        i + 1.5
    with pytest.raises(TypeError):
        1.5 + i
    with pytest.raises(TypeError):
        i * 0.5


def test_every_math_op_has_a_public_function():
    for opname in [name for name, opdef in OPS.items() if opdef.family == "math"]:
        assert callable(api(opname)), opname


# --- inference with unknown dims (what tracing will see) ---------------------------------------
def test_inference_with_unknown_dims():
    from flowjit.ir.registry import TT, InferenceError

    def infer(name, *types, **attrs):
        opdef = OPS[name]
        return opdef.infer(list(types), opdef.resolve_attrs(attrs))

    f, b = tf.float32, tf.bool
    assert infer("add", TT(f, (None, 3)), TT(f, (2, 1))) == TT(f, (2, 3))
    assert infer("less", TT(f, (None, 1)), TT(f, (None,))) == TT(b, (None, None))
    assert infer("mul", TT(f, None), TT(f, (2,))) == TT(f, None)
    assert infer("sqrt", TT(f, (None,))) == TT(f, (None,))
    assert infer("is_nan", TT(f, None)) == TT(b, None)
    assert infer("select", TT(b, (None, 1)), TT(f, (3,)), TT(f, ())) == TT(f, (None, 3))
    assert infer("add_n", TT(f, (None, 3)), TT(f, (2, 3))) == TT(f, (None, 3))
    assert infer("clip_by_value", TT(f, (None, 3)), TT(f, (2, 3)), TT(f, ())) == \
        TT(f, (None, 3))
    assert infer("cast", TT(f, (None,)), dtype=tf.int8) == TT(tf.int8, (None,))
    for name, types in [("add", (TT(f, (2, None)), TT(f, (3, 4)))),
                        ("add_n", (TT(f, (2, None)), TT(f, (3, 4)))),
                        ("clip_by_value", (TT(f, (1, 3)), TT(f, (2, 3)), TT(f, ()))),
                        ("select", (TT(f, (2,)), TT(f, (2,)), TT(f, (2,)))),
                        ("select", (TT(b, (2,)), TT(f, (2,)), TT(tf.int32, (2,))))]:
        with pytest.raises(InferenceError):
            infer(name, *types)
