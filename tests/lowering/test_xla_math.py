"""Elementwise math under jit_compile=True (lowering/stablehlo/math.py): every op of
ir/ops/math.py's tables plus select, add_n, cast, clip_by_value, is_nan, is_finite, floordiv
and floormod, on every dtype each op supports, with broadcasting, zero-size shapes and
NaN/Inf/-0.0. Each XLA result is compared with the eager run (the NumPy kernels) and with a
reference written here from NumPy float64 / exact integer arithmetic.

To keep compiles few, one jit function computes every op for one dtype (or shape pair).

Tolerances: XLA CPU's transcendental functions differ from libm in the last ulps and flush
subnormals to zero, so float results use rtol = atol = 1e-5 (float32), 1e-12 (float64),
2e-3 (float16, two ulps) and 1.6e-2 (bfloat16, two ulps). Integer and bool results must be
equal.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import flowjit as tf
from flowjit.frontend.eager.dispatch import apply
from flowjit.ir import dtypes as D
from flowjit.ir.ops import math as M
from flowjit.lowering.stablehlo import RULES
from xla_helpers import TOL, is_float, run_xla, run_eager, check, wrap_int as _wrap

ALL_DTYPES = list(D.ALL)


# --- inputs --------------------------------------------------------------------------------
SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5]


def make(rng, shape, dt, kind="any"):
    """Random values of dtype `dt`: kind "any", "nonzero" (integer divisors), "exponent"
    (non-negative integer powers) or "small" (|x| < 1.4, away from tan's poles)."""
    dt = np.dtype(dt)
    n = int(np.prod(shape))
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = max(info.min, -100), min(info.max, 100)
        if dt.itemsize == 8:  # extremes that NumPy's int64 generator can draw
            lo, hi = (-(2 ** 31), 2 ** 31 - 1) if dt.kind == "i" else (0, 2 ** 32 - 1)
        if kind == "exponent":
            lo, hi = 0, 6
        vals = rng.integers(lo, hi, size=n, endpoint=True)
        if kind == "nonzero":
            vals[vals == 0] = 1
        elif kind == "any" and n >= 4:
            vals[:2] = [info.min, info.max] if dt.itemsize < 8 else [lo, hi]
        return vals.astype(dt).reshape(shape)
    scale = 1.4 if kind == "small" else 3.0
    vals = rng.uniform(-scale, scale, size=n)
    if n >= len(SPECIALS):
        vals[:len(SPECIALS)] = SPECIALS
        rng.shuffle(vals)
    # float64 inputs must be float32-exact to travel to XLA (see _to_wire)
    return vals.astype(np.float32).astype(dt).reshape(shape)


# --- references ----------------------------------------------------------------------------
def _f64(fn):
    """A float reference: computed in float64, rounded to the input's dtype."""
    def ref(x, *rest):
        with np.errstate(all="ignore"):
            out = fn(x.astype(np.float64), *[r.astype(np.float64) for r in rest])
        return np.asarray(out).astype(x.dtype)
    return ref


_erf = np.vectorize(math.erf, otypes=[np.float64])


def _trunc_div(x, y):
    """C division on Python ints, wrapped to the dtype."""
    q = [abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
         for a, b in zip(x.astype(object).ravel(), y.astype(object).ravel())]
    return _wrap(np.array(q, dtype=object).reshape(x.shape), x.dtype)


def _floor_mod_float(x, y):
    r = np.fmod(x, y)
    return np.where((r != 0) & ((r < 0) != (y < 0)), r + y, r)


FLOAT_UNARY = {
    "neg": np.negative, "abs": np.abs, "sign": np.sign, "square": np.square, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x), "exp": np.exp, "expm1": np.expm1, "log": np.log,
    "log1p": np.log1p, "sin": np.sin, "cos": np.cos, "tan": np.tan, "tanh": np.tanh,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "erf": _erf,
    "softplus": lambda x: np.logaddexp(0.0, x), "reciprocal": lambda x: 1 / x,
    "round": np.rint, "floor": np.floor, "ceil": np.ceil,
    "acos": np.arccos, "asin": np.arcsin, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
    "erfc": np.vectorize(math.erfc, otypes=[np.float64]),
}
INT_UNARY = {  # exact, in Python ints, then wrapped
    "neg": lambda v: -v, "abs": abs, "sign": lambda v: (v > 0) - (v < 0),
    "square": lambda v: v * v, "round": lambda v: v,
}
FLOAT_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "floordiv": lambda x, y: np.floor(x / y), "floormod": _floor_mod_float, "pow": np.power,
    "maximum": np.maximum, "minimum": np.minimum, "atan2": np.arctan2,
}
INT_BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": None, "floordiv": lambda a, b: a // b, "floormod": lambda a, b: a % b,
    "pow": lambda a, b: a ** b, "maximum": max, "minimum": min,
}
COMPARE_REF = {"equal": np.equal, "not_equal": np.not_equal, "less": np.less,
               "less_equal": np.less_equal, "greater": np.greater,
               "greater_equal": np.greater_equal}
DIVISORS = {"div", "floordiv", "floormod"}


def unary_ref(name, x):
    if name == "logical_not":
        return ~x
    if name == "is_nan":
        return x.astype(np.float64) != x.astype(np.float64)
    if name == "is_finite":
        return np.abs(x.astype(np.float64)) < np.inf
    if is_float(x.dtype):
        return _f64(FLOAT_UNARY[name])(x)
    fn = INT_UNARY[name]
    return _wrap(np.array([fn(int(v)) for v in x.ravel()], dtype=object).reshape(x.shape),
                 x.dtype)


def binary_ref(name, x, y):
    if name in COMPARE_REF:
        if is_float(x.dtype):
            x, y = x.astype(np.float64), y.astype(np.float64)
        return COMPARE_REF[name](x, y)
    if name == "logical_and":
        return x & y
    if name == "logical_or":
        return x | y
    if is_float(x.dtype):
        return _f64(FLOAT_BINARY[name])(x, y)
    xb, yb = np.broadcast_arrays(x, y)
    if name == "div":
        return _trunc_div(xb, yb)
    fn = INT_BINARY[name]
    out = [fn(int(a), int(b)) for a, b in zip(xb.ravel(), yb.ravel())]
    return _wrap(np.array(out, dtype=object).reshape(xb.shape), x.dtype)


# --- coverage ------------------------------------------------------------------------------
EXTRA_OPS = ["is_nan", "is_finite", "select", "add_n", "cast", "clip_by_value", "floordiv",
             "floormod"]
ALL_MATH_OPS = list(M.UNARY) + list(M.BINARY) + list(M.COMPARE) + EXTRA_OPS


def test_every_math_op_has_a_rule():
    missing = [n for n in ALL_MATH_OPS if f"df.{n}" not in RULES]
    assert not missing
    # every table op has a reference here, so a new op fails this file until it is tested
    for name in M.UNARY:
        assert name in FLOAT_UNARY or name in INT_UNARY or name == "logical_not", name
    for name in M.BINARY:
        assert name in FLOAT_BINARY or name in INT_BINARY or name.startswith("logical"), name
    assert set(M.COMPARE) == set(COMPARE_REF)


# --- unary ---------------------------------------------------------------------------------
def _unary_ops(dt):
    ops = [n for n, allowed in M.UNARY.items() if dt in allowed]
    if dt.is_floating:
        ops += ["is_nan", "is_finite"]
    return ops


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=[d.name for d in ALL_DTYPES])
def test_unary(dt):
    rng = np.random.default_rng(1)
    names = _unary_ops(dt)
    x = make(rng, (3, 7), dt.np)
    xs = make(rng, (3, 7), dt.np, "small")
    args = {n: (xs if n == "tan" else x) for n in names}

    def fn(a, b):
        return [apply(n, (b if n == "tan" else a,)) for n in names]
    got = run_xla(fn, x, xs)
    eager = run_eager(fn, x, xs)
    for n, g, e in zip(names, got, eager):
        check(g, e, dt.np, f"{n} vs eager")
        check(g, unary_ref(n, args[n]), dt.np, f"{n} vs reference")


def test_unary_scalar_and_empty():
    rng = np.random.default_rng(2)
    names = _unary_ops(D.float32)
    for shape in [(), (0, 3)]:
        x = make(rng, shape, np.float32, "small")

        def fn(a):
            return [apply(n, (a,)) for n in names]
        for n, g in zip(names, run_xla(fn, x)):
            check(g, unary_ref(n, x), np.float32, n)


# --- binary and comparisons ----------------------------------------------------------------
SHAPE_PAIRS = [((3, 1, 4), (5, 1)), ((), (2, 3)), ((0, 3), (1,))]


def _binary_ops(dt):
    ops = [n for n, allowed in M.BINARY.items() if dt in allowed]
    return ops + [n for n, allowed in M.COMPARE.items() if dt in allowed]


@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=[f"{a}-{b}" for a, b in SHAPE_PAIRS])
@pytest.mark.parametrize("dt", ALL_DTYPES, ids=[d.name for d in ALL_DTYPES])
def test_binary(dt, shapes):
    rng = np.random.default_rng(3)
    names = _binary_ops(dt)
    sa, sb = shapes
    x, y = make(rng, sa, dt.np), make(rng, sb, dt.np)
    y_div = make(rng, sb, dt.np, "nonzero")
    x_pow = make(rng, sa, dt.np, "small") if dt.is_integer else x
    y_pow = make(rng, sb, dt.np, "exponent")
    if dt.is_integer:  # small bases keep the exact reference cheap; wrapping still happens
        x_pow = np.clip(x_pow, -5, 5).astype(dt.np)

    def operands(n, a, b, bd, ap, bp):
        if n == "pow":
            return ap, bp
        if n in DIVISORS and dt.is_integer:  # the kernel raises on an integer divisor 0
            return a, bd
        return a, b

    def fn(a, b, bd, ap, bp):
        return [apply(n, operands(n, a, b, bd, ap, bp)) for n in names]
    arrays = (x, y, y_div, x_pow, y_pow)
    got = run_xla(fn, *arrays)
    eager = run_eager(fn, *arrays)
    for n, g, e in zip(names, got, eager):
        check(g, e, dt.np, f"{n} vs eager")
        check(g, binary_ref(n, *operands(n, *arrays)), dt.np, f"{n} vs reference")


def test_float_specials_all_pairs():
    """Every pair of NaN, +-Inf, +-0 and ordinary values through the binary float ops."""
    v = np.array(SPECIALS + [3.0, 0.25], np.float32)
    x, y = np.meshgrid(v, v)
    names = [n for n, allowed in M.BINARY.items() if D.float32 in allowed]

    def fn(a, b):
        return [apply(n, (a, b)) for n in names]
    for n, g, e in zip(names, run_xla(fn, x, y), run_eager(fn, x, y)):
        check(g, e, np.float32, f"{n} vs eager")
        check(g, binary_ref(n, x, y), np.float32, f"{n} vs reference")


@pytest.mark.parametrize("dt", [np.int8, np.uint8, np.int32], ids=["int8", "uint8", "int32"])
def test_integer_division_by_zero_and_negative_powers_follow_xla(dt):
    """The kernels raise on these values; XLA cannot, and defines them instead (as the
    module docstring of lowering/stablehlo/math.py documents)."""
    dt = np.dtype(dt)
    minus_one = np.array(-1).astype(dt)  # 255 for uint8
    x = np.array([5, 0, 7, 100], dt)
    if dt.kind == "i":
        x = np.array([5, -5, 0, 7], dt)
    zero = np.zeros_like(x)
    got = run_xla(lambda a, b: [apply("div", (a, b)), apply("floormod", (a, b)),
                                apply("floordiv", (a, b))], x, zero)
    np.testing.assert_array_equal(got[0], np.full_like(x, minus_one))
    np.testing.assert_array_equal(got[1], x)
    if dt.kind == "u":
        np.testing.assert_array_equal(got[2], np.full_like(x, minus_one))
    else:  # -1, stepped down once more where x < 0 (the remainder x is nonzero)
        np.testing.assert_array_equal(got[2], np.where(x < 0, -2, -1).astype(dt))
    if dt.kind == "i":
        base = np.array([1, -1, -1, 2, -3, 0], dt)
        exp = np.array([-3, -2, -3, -1, -2, -1], dt)
        np.testing.assert_array_equal(run_xla(lambda a, b: apply("pow", (a, b)), base, exp),
                                      np.array([1, 1, -1, 0, 0, 0], dt))


def test_integer_edge_values():
    """INT_MIN / -1 wraps, floordiv/floormod signs, as the kernels compute them."""
    x = np.array([-128, -128, -7, 7, -7, 7, 127, -1], np.int8)
    y = np.array([-1, 1, 2, -2, -2, 2, -128, 127], np.int8)
    names = ["div", "floordiv", "floormod", "mul", "add", "sub"]

    def fn(a, b):
        return [apply(n, (a, b)) for n in names]
    for n, g, e in zip(names, run_xla(fn, x, y), run_eager(fn, x, y)):
        check(g, e, np.int8, n)
        check(g, binary_ref(n, x, y), np.int8, f"{n} vs reference")


# --- select / add_n / clip_by_value --------------------------------------------------------
@pytest.mark.parametrize("dt", ALL_DTYPES, ids=[d.name for d in ALL_DTYPES])
def test_select_add_n_clip(dt):
    rng = np.random.default_rng(4)
    cond = rng.random((3, 1)) < 0.5
    x, y = make(rng, (1, 4), dt.np), make(rng, (), dt.np)
    a, b, c = (make(rng, (3, 4), dt.np) for _ in range(3))
    numeric = dt in M.BINARY["add"]
    lo, hi = make(rng, (4,), dt.np), make(rng, (), dt.np)

    def fn(cond, x, y, a, b, c, lo, hi):
        out = [apply("select", (cond, x, y)), apply("select", (cond, a, x))]
        if numeric:
            out += [apply("add_n", (a,)), apply("add_n", (a, b, c)),
                    apply("clip_by_value", (a, lo, hi))]
        return out
    arrays = (cond, x, y, a, b, c, lo, hi)
    got, eager = run_xla(fn, *arrays), run_eager(fn, *arrays)
    expected = [np.where(cond, x, y), np.where(cond, a, x)]
    if numeric:
        if is_float(dt.np):
            add3 = _f64(lambda p, q, r: p + q + r)(a, b, c)
            clip = _f64(lambda t, mn, mx: np.maximum(np.minimum(t, mx), mn))(a, lo, hi)  # TF's order
        else:
            add3 = _wrap(a.astype(object) + b.astype(object) + c.astype(object), dt.np)
            clip = np.maximum(np.minimum(a, hi), lo).astype(dt.np)
        expected += [a, add3, clip]
    assert len(got) == len(expected)
    for i, (g, e, r) in enumerate(zip(got, eager, expected)):
        check(g, e, dt.np, f"output {i} vs eager")
        check(g, np.asarray(r).astype(dt.np), dt.np, f"output {i} vs reference")


# --- cast ----------------------------------------------------------------------------------
def _cast_ref(x, dst: D.DType):
    """TF cast: float -> int truncates; a value out of the 32-bit range (64-bit for int64),
    NaN and Inf give that range's minimum (x86's conversion), then wrap to the target; to bool
    is x != 0."""
    if dst.is_bool:
        return x.astype(np.float64) != 0 if is_float(x.dtype) else x != 0
    if is_float(x.dtype) and dst in (D.uint32, D.uint64):
        # uint32/uint64: a negative value above the signed bound wraps, one in range is
        # exact, anything else (NaN, Inf, too large) is the indefinite 2**(bits-1)
        bits = 8 * dst.size
        out = []
        for v in x.astype(np.float64).ravel():
            t = int(v) if np.isfinite(v) else None
            ok = t is not None and -2 ** (bits - 1) <= t < 2 ** bits
            out.append(t % 2 ** bits if ok else 2 ** (bits - 1))
        return np.array(out, dtype=object).reshape(x.shape).astype(dst.np)
    if is_float(x.dtype) and dst.is_integer:
        bits = 64 if dst is D.int64 else 32
        out = []
        for v in x.astype(np.float64).ravel():
            if not np.isfinite(v):
                out.append(-2 ** (bits - 1))
                continue
            t = int(v)
            out.append(t if -2 ** (bits - 1) <= t < 2 ** (bits - 1) else -2 ** (bits - 1))
        return _wrap(np.array(out, dtype=object).reshape(x.shape), dst.np)
    if x.dtype.kind in "iub" and dst.is_integer:
        return _wrap(x.astype(object).astype(np.int64) if x.dtype.kind == "b" else x, dst.np)
    with np.errstate(over="ignore"):  # values beyond float16's range become inf
        return x.astype(np.float64).astype(dst.np) if is_float(x.dtype) else x.astype(dst.np)


@pytest.mark.parametrize("src", ALL_DTYPES, ids=[d.name for d in ALL_DTYPES])
def test_cast_to_every_dtype(src):
    rng = np.random.default_rng(5)
    x = make(rng, (4, 6), src.np)
    if src.is_floating:
        # out-of-range values for the integer targets (float16 tops out at 65504)
        big = [300.0, -300.0, 40000.0, -65504.0, 3e9, -1e10, 1e20, 2.0 ** 31 + 256]
        flat = x.ravel().copy()
        with np.errstate(over="ignore"):  # float16: the largest become inf
            flat[-len(big):] = np.array(big, np.float32).astype(src.np)
        x = flat.reshape(x.shape)

    def fn(a):
        return [tf.cast(a, dst) for dst in ALL_DTYPES]
    got, eager = run_xla(fn, x), run_eager(fn, x)
    finite = np.isfinite(x.astype(np.float64))
    for dst, g, e in zip(ALL_DTYPES, got, eager):
        what = f"{src.name} -> {dst.name}"
        # float -> float rounds in one step here and may round twice in XLA (f64 -> f16)
        tol = 2 * TOL[dst.np] if is_float(dst.np) else None
        check(g, _cast_ref(x, dst), dst.np, what + " vs reference", tol)
        if src is D.bfloat16 and dst.is_integer:
            # The kernel skips its NaN/Inf -> 0 rule for bfloat16 (NumPy kind "V"), so it
            # agrees with the rule only on finite values.
            g, e = g[finite], e[finite]
        check(g, e, dst.np, what + " vs eager", tol)


@pytest.mark.parametrize("value,target", [(np.array([1 + 2j], np.complex128), tf.complex64),
                                          (np.array([[1.5, -2.0]]), tf.complex128)])
def test_complex_bitcast_is_refused_under_xla_as_tf(value, target):
    """XLA has no bit-level view of complex numbers; TF's XLA bridge refuses likewise."""
    f = tf.function(lambda x: tf.bitcast(x, target), jit_compile=True)
    with pytest.raises(tf.errors.UnimplementedError, match="Complex types not supported"):
        f(tf.constant(value))
