"""One or more samples per registry op: a function that reaches the op through the public
TF-style API, an input generator, and what each execution mode is expected to do.

`SAMPLES[opname]` lists the samples that reach `opname` (compositions such as one_hot or
moments are filed under a primitive they reach). tests/test_every_op.py runs every sample
eagerly, traced (graph executor) and with jit_compile=True, and round-trips its `df` module.

Flags of a sample:
- `xla`: True, or "unimplemented" when jit_compile must raise UnimplementedError naming the
  op (data-dependent shapes, stateful random streams, print, assert).
- `deterministic`: False for stateful random ops: only shapes and dtypes are compared, plus
  the sample's `check` (a property of the values, e.g. the range of a uniform).
- `rtol`/`atol`: float tolerance (None: the output dtype's default in test_every_op.py).
  Transcendental ops get `LOOSE` tolerances: XLA's polynomial approximations are a few ulp
  away from NumPy's libm.
- `reset`: restores the state (Variables) a sample changes, called before every run.
- `log`: a stream the sample prints to; the text must be the same in every mode.
- `raises`: the error class every mode must raise (a failing assert).
- `static`: what the sample's API needs to know while tracing: "shape" (every dim) or
  "rank"; None when it also traces with unknown dims and with unknown rank.
"""
from __future__ import annotations

import io
import operator
import zlib
from dataclasses import dataclass
from typing import Callable

import ml_dtypes
import numpy as np

import flowjit as tf
from helpers import rand

F16, BF16, F32, F64 = np.float16, ml_dtypes.bfloat16, np.float32, np.float64
I8, I16, I32, I64, U8, B = np.int8, np.int16, np.int32, np.int64, np.uint8, np.bool_
SHORT = {np.dtype(d): s for d, s in ((F16, "f16"), (BF16, "bf16"), (F32, "f32"), (F64, "f64"),
                                     (I8, "i8"), (I16, "i16"), (I32, "i32"), (I64, "i64"),
                                     (U8, "u8"), (B, "bool"), (object, "str"),
                                     (np.complex64, "c64"), (np.complex128, "c128"))}

# Tolerances for ops whose XLA lowering uses its own approximations (exp, log, erf, ...).
LOOSE = {np.dtype(F16): 4e-3, np.dtype(BF16): 3e-2, np.dtype(F32): 2e-5, np.dtype(F64): 1e-10}


def is_float(dt) -> bool:
    return np.dtype(dt) in LOOSE


@dataclass
class Sample:
    op: str
    fn: Callable
    make_args: Callable
    xla: object = True
    deterministic: bool = True
    rtol: float | None = None
    atol: float | None = None
    tag: str = ""
    reset: Callable | None = None
    check: Callable | None = None
    log: io.StringIO | None = None
    raises: type | None = None
    static: str | None = None
    id: str = ""

    def args(self) -> tuple:
        """The sample's NumPy inputs (the same every time: the seed is the sample's id)."""
        return tuple(self.make_args(np.random.default_rng(zlib.crc32(self.id.encode()))))

    def __repr__(self):
        return f"<Sample {self.id}>"


SAMPLES: dict[str, list[Sample]] = {}


# --- input generators ---------------------------------------------------------------------
class Arg:
    """A generator `rng -> np.ndarray` that knows its dtype (for the sample's id)."""

    def __init__(self, gen, dtype):
        self.gen, self.dtype = gen, np.dtype(dtype)

    def __call__(self, rng):
        return self.gen(rng)


def R(shape, dtype, lo=-3.0, hi=3.0):
    """Uniform random values (ints: in [lo, hi]; bools: fair coin)."""
    return Arg(lambda rng: rand(rng, shape, dtype, lo, hi), dtype)


def nonzero(shape, dtype, lo=0.5, hi=3.0):
    """Magnitudes in [lo, hi] with random signs (unsigned: positive): safe divisors."""
    dt = np.dtype(dtype)

    def gen(rng):
        mag = rng.uniform(lo, hi, shape) if is_float(dt) else \
            rng.integers(max(int(lo), 1), int(hi) + 1, shape)
        sign = 1 if dt.kind == "u" else rng.choice([-1, 1], shape)
        return np.asarray(mag * sign).astype(dt)
    return Arg(gen, dt)


def halves(shape, dtype):
    """Multiples of 0.5 in [-4, 4]: exact ties for round, equal elements for comparisons."""
    return Arg(lambda rng: (rng.integers(-8, 9, shape) / 2).astype(dtype), dtype)


def specials(shape, dtype):
    """Random values with NaN, +inf and -inf sprinkled in."""
    def gen(rng):
        a = rng.uniform(-3, 3, shape)
        a.flat[::5] = np.nan
        a.flat[1::7] = np.inf
        a.flat[2::7] = -np.inf
        return a.astype(dtype)
    return Arg(gen, dtype)


def index(shape, hi, dtype=I32, lo=0):
    """Integer indices in [lo, hi)."""
    return Arg(lambda rng: rng.integers(lo, hi, shape).astype(dtype), dtype)


def distinct(n, hi, dtype=I32, cols=1):
    """`n` distinct index rows of width `cols`, each entry in [0, hi) (for scatter updates,
    where the order of duplicate writes is unspecified)."""
    def gen(rng):
        flat = rng.choice(hi ** cols, n, replace=False)
        return np.stack(np.unravel_index(flat, (hi,) * cols), axis=-1).astype(dtype)
    return Arg(gen, dtype)


def const(value, dtype):
    return Arg(lambda rng: np.asarray(value, dtype), dtype)


def probs(shape, dtype=F32):
    """Rows (last axis) that sum to 1."""
    def gen(rng):
        p = rng.uniform(0.1, 1.0, shape)
        return (p / p.sum(-1, keepdims=True)).astype(dtype)
    return Arg(gen, dtype)


def seed(dtype=I32):
    return Arg(lambda rng: rng.integers(0, 2**31 - 1, (2,)).astype(dtype), dtype)


# --- registration -------------------------------------------------------------------------
def add(op, fn, *args, tag=None, **flags):
    """Register a sample of `op`; its id is `op[tag]`, tag defaulting to the input dtypes."""
    tag = tag or "-".join(dict.fromkeys(SHORT[a.dtype] for a in args)) or "noargs"
    lst = SAMPLES.setdefault(op, [])
    s = Sample(op, fn, lambda rng: tuple(a(rng) for a in args), tag=tag, **flags)
    s.id = f"{op}[{tag}]"
    n = 2
    while any(o.id == s.id for o in lst):
        s.id = f"{op}[{tag}-{n}]"
        n += 1
    lst.append(s)
    return s


def loose(dtype) -> dict:
    return {"rtol": LOOSE[np.dtype(dtype)]}


# --- math: unary --------------------------------------------------------------------------
# op -> (API, [(dtype, generator kind)], transcendental). Generator kinds keep each op in its
# domain: "wide" (-3..3), "big" (-20..20), "pos" (0.1..4), "gt-1" (-0.9..3), "small"
# (-1.2..1.2), "nz" (no zeros), "half" (ties), "spec" (NaN/inf). Shapes cycle through
# (3, 4), (2, 3, 2), (5,) and ().
_GEN = {
    "wide": lambda s, d: R(s, d), "pos": lambda s, d: R(s, d, 0.1, 4.0),
    "gt-1": lambda s, d: R(s, d, -0.9, 3.0), "small": lambda s, d: R(s, d, -1.2, 1.2),
    "nz": lambda s, d: nonzero(s, d), "half": halves, "spec": specials,
    "big": lambda s, d: R(s, d, -20.0, 20.0),
    "unit": lambda s, d: R(s, d, -0.9, 0.9), "gt1": lambda s, d: R(s, d, 1.1, 4.0),
}
UNARY = {
    "neg": (tf.math.negative, [(F32, "wide"), (I32, "wide"), (I64, "wide"), (BF16, "wide")], 0),
    "abs": (tf.math.abs, [(F32, "wide"), (I8, "wide"), (I64, "wide"), (F16, "wide")], 0),
    "sign": (tf.math.sign, [(F64, "half"), (I32, "wide"), (F32, "spec")], 0),
    "square": (tf.math.square, [(F32, "wide"), (I32, "wide"), (U8, "pos"), (BF16, "wide")], 0),
    "sqrt": (tf.math.sqrt, [(F32, "pos"), (F64, "pos"), (F16, "pos")], 1),
    "rsqrt": (tf.math.rsqrt, [(F32, "pos"), (F64, "pos"), (BF16, "pos")], 1),
    "exp": (tf.math.exp, [(F32, "wide"), (F64, "wide"), (F16, "wide")], 1),
    "expm1": (tf.math.expm1, [(F32, "small"), (F64, "wide")], 1),
    "log": (tf.math.log, [(F32, "pos"), (F64, "pos"), (BF16, "pos")], 1),
    "log1p": (tf.math.log1p, [(F32, "gt-1"), (F64, "gt-1")], 1),
    "sin": (tf.math.sin, [(F32, "wide"), (F64, "wide")], 1),
    "cos": (tf.math.cos, [(F32, "wide"), (F16, "wide")], 1),
    "tan": (tf.math.tan, [(F32, "small"), (F64, "small")], 1),
    "tanh": (tf.math.tanh, [(F32, "wide"), (F64, "wide"), (BF16, "wide")], 1),
    "sigmoid": (tf.math.sigmoid, [(F32, "big"), (F64, "wide"), (F16, "wide")], 1),
    "erf": (tf.math.erf, [(F32, "wide"), (F64, "wide")], 1),
    "softplus": (tf.math.softplus, [(F32, "big"), (F64, "wide")], 1),
    "reciprocal": (tf.math.reciprocal, [(F32, "nz"), (F64, "nz")], 1),
    "round": (tf.math.round, [(F32, "half"), (F64, "wide"), (I32, "wide")], 0),
    "floor": (tf.math.floor, [(F32, "wide"), (F64, "half"), (BF16, "wide")], 0),
    "ceil": (tf.math.ceil, [(F32, "wide"), (F16, "half")], 0),
    "logical_not": (tf.math.logical_not, [(B, "wide")], 0),
    "is_nan": (tf.math.is_nan, [(F32, "spec"), (F64, "spec"), (F16, "spec")], 0),
    "is_finite": (tf.math.is_finite, [(F32, "spec"), (BF16, "spec")], 0),
    "acos": (tf.math.acos, [(F32, "unit"), (F64, "unit")], 1),
    "asin": (tf.math.asin, [(F32, "unit"), (F64, "unit")], 1),
    "atan": (tf.math.atan, [(F32, "wide"), (F64, "big")], 1),
    "sinh": (tf.math.sinh, [(F32, "wide"), (F64, "wide")], 1),
    "cosh": (tf.math.cosh, [(F32, "wide"), (F64, "wide")], 1),
    "asinh": (tf.math.asinh, [(F32, "big"), (F64, "wide")], 1),
    "acosh": (tf.math.acosh, [(F32, "gt1"), (F64, "gt1")], 1),
    "atanh": (tf.math.atanh, [(F32, "unit"), (F64, "unit")], 1),
    "erfc": (tf.math.erfc, [(F32, "wide"), (F64, "wide")], 1),
}
for _op, (_api, _cases, _transcendental) in UNARY.items():
    for _i, (_dt, _kind) in enumerate(_cases):
        _shape = ((3, 4), (2, 3, 2), (5,), ())[_i % 4]
        add(_op, lambda x, _f=_api: _f(x), _GEN[_kind](_shape, _dt),
            **(loose(_dt) if _transcendental else {}))
# Operators reach the same ops.
add("neg", lambda x: -x, R((2, 3), F64), tag="operator")
add("abs", lambda x: abs(x), R((2, 3), I16), tag="operator")
add("logical_not", lambda x: ~x, R((2, 0, 3), B), tag="operator-empty")

# --- math: binary -------------------------------------------------------------------------
# Python operators that reach the op (one extra sample each, broadcasting).
_OPERATOR = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
             "div": operator.truediv, "floordiv": operator.floordiv, "floormod": operator.mod,
             "pow": operator.pow, "logical_and": operator.and_, "logical_or": operator.or_,
             "less": operator.lt, "less_equal": operator.le, "greater": operator.gt,
             "greater_equal": operator.ge}


def _pow_args(shape, dt):
    if is_float(dt):
        return R(shape, dt, 0.5, 2.0)
    return R(shape, dt, -3, 3)


def _pow_exps(shape, dt):
    if is_float(dt):
        return R(shape, dt, -2.0, 2.0)
    return R(shape, dt, 0, 3)


BINARY = {
    # op: (API, dtypes, x generator, y generator, transcendental)
    "add": (tf.math.add, (F32, I32, I64, U8, F16), R, R, 0),
    "sub": (tf.math.subtract, (F32, I64, I8, BF16), R, R, 0),
    "mul": (tf.math.multiply, (F32, I32, F64, I16), R, R, 0),
    "div": (tf.math.divide, (F32, F64, F16), R, nonzero, 0),
    "floordiv": (tf.math.floordiv, (I32, F32, I64, I8), R, nonzero, 0),
    "floormod": (tf.math.floormod, (I32, F32, I64, F64), R, nonzero, 0),
    "atan2": (tf.math.atan2, (F32, F64), R, nonzero, 1),
    "pow": (tf.math.pow, (F32, I32, F64, I64), _pow_args, _pow_exps, 1),
    "maximum": (tf.math.maximum, (F32, I32, U8, BF16), halves, halves, 0),
    "minimum": (tf.math.minimum, (F64, I64, I8, F32), halves, halves, 0),
    "logical_and": (tf.math.logical_and, (B, B), R, R, 0),
    "logical_or": (tf.math.logical_or, (B, B), R, R, 0),
    "equal": (tf.math.equal, (I32, F32, B, I64), halves, halves, 0),
    "not_equal": (tf.math.not_equal, (F64, I32, B), halves, halves, 0),
    "less": (tf.math.less, (F32, I32, U8), halves, halves, 0),
    "less_equal": (tf.math.less_equal, (I64, F64, F16), halves, halves, 0),
    "greater": (tf.math.greater, (F32, I8, BF16), halves, halves, 0),
    "greater_equal": (tf.math.greater_equal, (I32, F32), halves, halves, 0),
}
# (x shape, y shape, tag): same shape, a broadcasting pair, a scalar, a zero-size dim.
_BIN_SHAPES = [((3, 4), (3, 4), ""), ((2, 1, 4), (3, 1), "bcast"), ((3, 4), (), "scalar"),
               ((0, 3), (1, 3), "empty")]


def _bin_gen(gen, shape, dt):
    """Integers get small ranges (ties for comparisons; unsigned values stay >= 0)."""
    kind = np.dtype(dt).kind
    if dt is B:
        return R(shape, B)
    if kind == "u" and gen is not nonzero:
        return R(shape, dt, 0, 9)
    if gen is halves and kind == "i":
        return R(shape, dt, -4, 4)
    return gen(shape, dt)


for _op, (_api, _dts, _gx, _gy, _transcendental) in BINARY.items():
    for _i, _dt in enumerate(_dts):
        _sx, _sy, _t = _BIN_SHAPES[_i % len(_BIN_SHAPES)]
        _x, _y = _bin_gen(_gx, _sx, _dt), _bin_gen(_gy, _sy, _dt)
        _tag = "-".join(filter(None, (SHORT[np.dtype(_dt)], _t)))
        add(_op, lambda x, y, _f=_api: _f(x, y), _x, _y, tag=_tag,
            **(loose(_dt) if _transcendental and is_float(_dt) else {}))
    if _op in _OPERATOR:
        _dt = _dts[0]
        _x, _y = _bin_gen(_gx, (2, 3), _dt), _bin_gen(_gy, (3,), _dt)
        add(_op, _OPERATOR[_op], _x, _y, tag="operator",
            **(loose(_dt) if _transcendental and is_float(_dt) else {}))

# Python scalars become constants of the tensor's dtype.
add("add", lambda x: x + 2, R((4,), I16), tag="python-scalar")
add("mul", lambda x: 0.5 * x, R((2, 2), F64), tag="python-scalar")
add("div", lambda x, y: tf.math.truediv(x, y), R((3, 2), I32), nonzero((3, 2), I32),
    tag="int-truediv")
add("maximum", tf.math.maximum, specials((3, 5), F32), R((3, 5), F32), tag="nan")
add("minimum", tf.math.minimum, R((2, 5), F64), specials((2, 5), F64), tag="nan")
add("logical_and", lambda x, y: tf.math.logical_xor(x, y), R((4, 3), B), R((3,), B),
    tag="xor-composition")
# tf.bitwise: negative values, broadcasting, every integer width; shifts within the width
add("bitwise_and", tf.bitwise.bitwise_and, R((4, 3), I32, -100, 100), R((3,), I32, -100, 100))
add("bitwise_or", tf.bitwise.bitwise_or, R((2, 5), I8, -100, 100), R((2, 5), I8, -100, 100))
add("bitwise_xor", tf.bitwise.bitwise_xor, R((3,), I64, -10**6, 10**6), R((2, 3), I64, 0, 99))
add("invert", tf.bitwise.invert, R((5,), I16, -300, 300))
# tf.bitcast: NaN/inf and -0.0 keep their bits; to a narrower type (a last axis appears) and
# to a wider one (the last axis is consumed)
add("bitcast", lambda x: tf.bitcast(x, tf.int32), specials((3, 4), F32), tag="specials")
add("bitcast", lambda x: tf.bitcast(x, tf.uint8), specials((2, 3), F32), tag="to-u8")
add("bitcast", lambda x: tf.bitcast(x, tf.float64), R((3, 2), I32, -10**6, 10**6),
    tag="i32-to-f64")
add("invert", tf.bitwise.invert, R((2, 3), U8, 0, 255), tag="unsigned")
add("left_shift", tf.bitwise.left_shift, R((4,), I32, -50, 50), R((4,), I32, 0, 20))
add("right_shift", tf.bitwise.right_shift, R((2, 4), I32, -5000, 5000), R((4,), I32, 0, 12))
add("right_shift", tf.bitwise.right_shift, R((6,), U8, 0, 255), R((6,), U8, 0, 7),
    tag="logical")
add("square", lambda x, y: tf.math.squared_difference(x, y), R((3, 4), F32), R((4,), F32),
    tag="squared_difference")

# --- math: the rest -----------------------------------------------------------------------
add("select", lambda c, x, y: tf.where(c, x, y), R((3, 4), B), R((3, 4), F32), R((3, 4), F32))
add("select", lambda c, x, y: tf.where(c, x, y), R((2, 1, 4), B), R((3, 1), I32),
    R((4,), I32), tag="bcast-i32")
add("select", lambda c, x: tf.where(c, x, 0.0), R((5,), B), R((5,), F64), tag="scalar-f64")
add("select", lambda i: tf.one_hot(i, 4, on_value=2.0, off_value=-1.0), index((3, 2), 5),
    tag="one_hot", static="rank")
add("add_n", lambda a, b, c: tf.math.add_n([a, b, c]), R((3, 4), F32), R((3, 4), F32),
    R((3, 4), F32))
add("add_n", lambda a, b: tf.math.add_n([a, b, a]), R((2, 5), I64), R((2, 5), I64))
add("add_n", lambda a: tf.math.add_n([a]), R((4,), F16), tag="single")

_CASTS = [(F32, I32, R((3, 4), F32, -100, 100)), (F64, F32, R((3, 4), F64)),
          (I32, F32, R((3, 4), I32, -1000, 1000)), (I64, I8, R((4, 5), I64, -300, 300)),
          (B, F32, R((3, 2), B)), (F32, B, halves((3, 4), F32)),
          (I32, U8, R((6,), I32, -300, 300)), (F32, BF16, R((3, 4), F32)),
          (F16, F64, R((3, 4), F16)), (F32, U8, R((3, 4), F32, 0, 250))]
for _src, _dst, _arg in _CASTS:
    add("cast", lambda x, _d=tf.as_dtype(_dst): tf.cast(x, _d), _arg,
        tag=f"{SHORT[np.dtype(_src)]}-to-{SHORT[np.dtype(_dst)]}")
add("cast", lambda x: tf.saturate_cast(x, tf.int8), specials((3, 5), F32),
    tag="saturate_cast")

add("clip_by_value", lambda x: tf.clip_by_value(x, -1.0, 1.5), R((3, 4), F32))
add("clip_by_value", lambda x, lo, hi: tf.clip_by_value(x, lo, hi), R((3, 4), I32, -5, 5),
    R((4,), I32, -3, 0), R((3, 1), I32, 0, 3), tag="bcast-i32")
add("clip_by_value", lambda x: tf.clip_by_value(x, 0.0, 1.0), R((2, 3), F64),
    tag="f64")

# --- reductions ---------------------------------------------------------------------------
_REDUCE = {
    "reduce_sum": (tf.reduce_sum, [(F32, (3, 4, 5)), (I32, (3, 4)), (F64, (2, 0, 3)),
                                  (I64, (4, 3))]),
    "reduce_mean": (tf.reduce_mean, [(F32, (3, 4, 5)), (I32, (3, 4)), (F64, (4, 3)),
                                    (I8, (3, 4))]),
    "reduce_prod": (tf.math.reduce_prod, [(F32, (3, 4)), (I32, (3, 4)), (F64, (2, 3, 2))]),
    "reduce_max": (tf.reduce_max, [(F32, (3, 4, 5)), (I32, (3, 4)), (F16, (4, 3)),
                                   (U8, (2, 3))]),
    "reduce_min": (tf.reduce_min, [(F64, (3, 4)), (I64, (3, 4)), (BF16, (4, 3))]),
    "reduce_any": (tf.reduce_any, [(B, (3, 4)), (B, (2, 3, 4))]),
    "reduce_all": (tf.reduce_all, [(B, (3, 4)), (B, (2, 3, 4))]),
}
# (axis, keepdims) cycled through the cases.
_AXES = [(1, False), (None, False), ((0, -1), True), (-1, True)]
for _op, (_api, _cases) in _REDUCE.items():
    for _i, (_dt, _shape) in enumerate(_cases):
        _axis, _keep = _AXES[_i % len(_AXES)]
        if _op == "reduce_prod" and is_float(_dt):
            _arg = R(_shape, _dt, 0.5, 1.5)
        elif _op == "reduce_prod":
            _arg = R(_shape, _dt, -2, 2)
        elif _dt is U8:
            _arg = R(_shape, _dt, 0, 200)
        else:
            _arg = R(_shape, _dt, -7, 7)
        add(_op, lambda x, _f=_api, _a=_axis, _k=_keep: _f(x, axis=_a, keepdims=_k), _arg,
            tag=f"{SHORT[np.dtype(_dt)]}-axis{_axis}-keep{int(_keep)}".replace(" ", ""))
# An empty axis reduces to the identity (NaN for a mean, -inf/+inf for a float max/min).
for _op in ("reduce_sum", "reduce_mean", "reduce_prod", "reduce_max", "reduce_min"):
    add(_op, lambda x, _f=_REDUCE[_op][0]: _f(x, axis=0), R((0, 3), F32), tag="empty-axis")
for _op in ("reduce_any", "reduce_all"):
    add(_op, lambda x, _f=_REDUCE[_op][0]: _f(x, axis=1), R((2, 0), B), tag="empty-axis")
add("reduce_max", lambda x: tf.reduce_max(x, axis=1), specials((3, 5), F32), tag="nan")
add("reduce_min", lambda x: tf.reduce_min(x, axis=0), specials((5, 3), F64), tag="nan")
add("reduce_max", lambda x: tf.reduce_logsumexp(x, axis=-1), R((3, 4), F32),
    tag="logsumexp", **loose(F32))
add("reduce_mean", lambda x: tf.nn.moments(x, axes=[0]), R((5, 3), F32), tag="moments")

for _op, _api in (("argmax", tf.math.argmax), ("argmin", tf.math.argmin)):
    add(_op, lambda x, _f=_api: _f(x, axis=1), R((3, 5), F32))
    add(_op, lambda x, _f=_api: _f(x, axis=0, output_type=tf.int32), R((4, 3), I32, -2, 2),
        tag="i32-ties")
    add(_op, lambda x, _f=_api: _f(x, axis=-1, output_type=tf.int16), R((2, 3, 4), F64),
        tag="f64-int16")
    add(_op, lambda x, _f=_api: _f(x, axis=1), specials((3, 5), F32), tag="nan")

for _op, _api in (("cumsum", tf.math.cumsum), ("cumprod", tf.math.cumprod)):
    _lo, _hi = (-3, 3) if _op == "cumsum" else (0.5, 1.5)
    add(_op, lambda x, _f=_api: _f(x, axis=1), R((3, 4), F32, _lo, _hi))
    add(_op, lambda x, _f=_api: _f(x, axis=0, exclusive=True), R((4, 3), I32, -2, 2),
        tag="i32-exclusive")
    add(_op, lambda x, _f=_api: _f(x, axis=-1, reverse=True), R((2, 5), F64, _lo, _hi),
        tag="f64-reverse")
    add(_op, lambda x, _f=_api: _f(x, exclusive=True, reverse=True), R((5,), I64, -2, 2),
        tag="i64-exclusive-reverse")

# --- linalg -------------------------------------------------------------------------------
add("matmul", tf.matmul, R((3, 4), F32), R((4, 5), F32), **loose(F32))
add("matmul", lambda a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True),
    R((2, 4, 3), F64), R((5, 4), F64), tag="f64-transposed-bcast")
add("matmul", lambda a, b: a @ b, R((2, 3), I32), R((3, 2), I32), tag="i32-operator")
add("matmul", lambda a, b: tf.matmul(a, b, output_type=tf.int32), R((2, 3), I8),
    R((3, 4), I8), tag="i8-to-i32")
add("matmul", lambda a, b: tf.linalg.matmul(a, b, adjoint_b=True), R((2, 1, 3, 4), F32),
    R((3, 5, 4), F32), tag="f32-adjoint-bcast", **loose(F32))
add("matmul", tf.matmul, R((3, 0), F32), R((0, 4), F32), tag="f32-empty-contraction")
add("tensordot", lambda a, b: tf.tensordot(a, b, axes=1), R((3, 4), F32), R((4, 2), F32),
    **loose(F32))
add("tensordot", lambda a, b: tf.tensordot(a, b, axes=[[0, 2], [2, 0]]), R((2, 3, 4), F64),
    R((4, 5, 2), F64), tag="f64-pairs")
add("tensordot", lambda a, b: tf.tensordot(a, b, axes=0), R((2,), I32), R((3,), I32),
    tag="i32-outer")
add("einsum", lambda a, b: tf.einsum("ij,jk->ik", a, b), R((3, 4), F32), R((4, 2), F32),
    **loose(F32))
add("einsum", lambda a, b: tf.einsum("bij,bkj->bik", a, b), R((2, 3, 4), F64),
    R((2, 5, 4), F64), tag="f64-batch")
add("einsum", lambda a: tf.einsum("...ij->...ji", a), R((2, 3, 4), I32), tag="i32-ellipsis")
add("einsum", lambda a, b: tf.einsum("ij,j", a, b), R((3, 4), I64), R((4,), I64),
    tag="i64-implicit")
add("einsum", lambda a: tf.einsum("ii->i", a), R((3, 3), F32), tag="f32-diagonal")
add("top_k", lambda x: tf.math.top_k(x, k=3), R((3, 6), F32))
add("top_k", lambda x: tf.math.top_k(x, k=2, index_type=tf.int64), R((2, 2, 5), I32, -2, 2),
    tag="i32-ties")
add("top_k", lambda x: tf.math.top_k(x, k=0), R((4,), F64), tag="f64-k0")

# --- array --------------------------------------------------------------------------------
add("const", lambda x: x + tf.constant([[1.5, -2.0, 3.25]], dtype=tf.float32), R((2, 3), F32))
add("const", lambda x: x * tf.constant(np.arange(6, dtype=np.int64).reshape(2, 3)),
    R((2, 3), I64))
add("const", lambda x: tf.logical_and(x, tf.constant([True, False, True])), R((3,), B))
add("const", lambda x: x - tf.constant(2.5, shape=[2, 3], dtype=tf.bfloat16), R((2, 3), BF16))
add("const", lambda: tf.constant([[1, 2], [3, 4]], dtype=tf.uint8), tag="no-args")
add("identity", tf.identity, R((3, 4), F32))
add("identity", tf.identity, R((2,), B))
add("stop_gradient", tf.stop_gradient, R((3, 4), F64))
add("stop_gradient", tf.stop_gradient, R((3,), I32))
add("reshape", lambda x: tf.reshape(x, [4, -1]), R((2, 3, 4), F32))
add("reshape", lambda x: tf.reshape(x, []), R((1, 1), I64))
add("reshape", lambda x: tf.reshape(x, [-1, 0]), R((0, 3), F64), tag="f64-empty")
add("transpose", lambda x: tf.transpose(x, perm=[1, 2, 0]), R((2, 3, 4), F32))
add("transpose", tf.transpose, R((3, 5), I32), tag="i32-default-perm",
    static="rank")
add("transpose", lambda x: tf.transpose(x, perm=[-1, 0]), R((2, 4), B))
add("expand_dims", lambda x: tf.expand_dims(x, -1), R((2, 3), F32))
add("expand_dims", lambda x: tf.expand_dims(x, 0), R((), I64))
add("strided_slice", lambda x: x[:, tf.newaxis], R((4,), F16), tag="newaxis")
add("squeeze", lambda x: tf.squeeze(x, axis=[1, -1]), R((2, 1, 3, 1), F32))
add("squeeze", tf.squeeze, R((1, 3, 1), I32))
add("broadcast_to", lambda x: tf.broadcast_to(x, [2, 3, 4]), R((3, 1), F32))
add("broadcast_to", lambda x: tf.broadcast_to(x, [4, 2]), R((), I8))
add("broadcast_to", lambda: tf.fill([2, 3], 7), tag="fill")
add("broadcast_to", lambda: tf.ones([3, 2], dtype=tf.bool), tag="ones-bool")
add("fill_like", tf.zeros_like, R((3, 4), F32))
add("fill_like", lambda x: tf.ones_like(x, dtype=tf.int64), R((2, 3), F64),
    tag="ones-like-i64")
add("fill_like", tf.ones_like, R((2, 2), B))
add("concat", lambda a, b: tf.concat([a, b], axis=0), R((2, 3), F32), R((4, 3), F32))
add("concat", lambda a, b, c: tf.concat([a, b, c], axis=-1), R((2, 1), I32), R((2, 3), I32),
    R((2, 0), I32), tag="i32-three")
add("concat", lambda a, b: tf.stack([a, b], axis=1), R((3, 2), F64), R((3, 2), F64),
    tag="stack", static="rank")
add("concat", lambda a: tf.linspace(a, a + 1.0, 5, axis=0), R((2,), F32), tag="linspace",
    static="rank")
add("split", lambda x: tf.split(x, 3, axis=1), R((2, 6), F32))
add("split", lambda x: tf.split(x, [1, -1, 2], axis=0), R((6, 2), I64), tag="i64-sizes")
add("split", lambda x: tf.unstack(x, axis=1), R((2, 3), B), tag="unstack",
    static="shape")
add("tile", lambda x: tf.tile(x, [2, 3]), R((2, 3), F32))
add("tile", lambda x: tf.tile(x, [1, 0, 2]), R((2, 1, 2), I32))
add("pad", lambda x: tf.pad(x, [[1, 2], [0, 1]]), R((2, 3), F32))
add("pad", lambda x: tf.pad(x, [[1, 1], [2, 2]], constant_values=-7), R((2, 3), I32),
    tag="i32-value")
add("pad", lambda x: tf.pad(x, [[2, 1], [1, 2]], mode="REFLECT"), R((3, 4), F64),
    tag="f64-reflect")
add("pad", lambda x: tf.pad(x, [[0, 2], [3, 1]], mode="SYMMETRIC"), R((2, 3), I64),
    tag="i64-symmetric")
add("reverse", lambda x: tf.reverse(x, axis=[0, -1]), R((2, 3, 4), F32))
add("reverse", lambda x: tf.reverse(x, axis=[1]), R((3, 4), B))
add("slice", lambda x: tf.slice(x, [1, 0], [2, -1]), R((4, 3), F32))
add("slice", lambda x: tf.slice(x, [0, 1, 1], [1, 2, 0]), R((2, 3, 4), I32))
add("strided_slice", lambda x: x[1:, ::-2, None, 0], R((3, 5, 2), F32))
add("strided_slice", lambda x: x[..., 1], R((2, 3, 4), I64), tag="i64-ellipsis")
add("strided_slice", lambda x: x[-1], R((4,), F64), tag="f64-negative")
add("strided_slice", lambda x: tf.strided_slice(x, [1, 0], [3, 0], [1, 2], end_mask=2),
    R((4, 6), I32), tag="i32-masks")
add("gather", lambda p, i: tf.gather(p, i), R((5, 4), F32), index((3,), 5))
add("gather", lambda p, i: tf.gather(p, i, axis=1), R((3, 5), I32), index((2, 2), 5, I64),
    tag="i32-axis1")
add("gather", lambda p, i: tf.gather(p, i, axis=1, batch_dims=1), R((3, 5, 2), F64),
    index((3, 4), 5), tag="f64-batch")
add("gather_nd", tf.gather_nd, R((4, 5, 3), F32), index((2, 2), 4))
add("gather_nd", lambda p, i: tf.gather_nd(p, i, batch_dims=1), R((3, 4, 5), I32),
    index((3, 2, 1), 4, I64), tag="i32-batch")
add("scatter_nd", lambda i, u: tf.scatter_nd(i, u, [6, 3]), index((4, 1), 6),
    R((4, 3), F32), tag="f32")
add("scatter_nd", lambda i, u: tf.scatter_nd(i, u, [3, 4]), index((6, 2), 3, I64),
    R((6,), I32), tag="i32-duplicates")
add("tensor_scatter_nd_update", tf.tensor_scatter_nd_update, R((5, 3), F32), distinct(2, 5),
    R((2, 3), F32))
add("tensor_scatter_nd_update", tf.tensor_scatter_nd_update, R((4, 4), B),
    distinct(3, 4, I64, cols=2), R((3,), B))
add("tensor_scatter_nd_add", tf.tensor_scatter_nd_add, R((5, 3), F32), index((4, 1), 5),
    R((4, 3), F32))
add("tensor_scatter_nd_add", tf.tensor_scatter_nd_add, R((4, 4), I32),
    index((5, 2), 4, I64), R((5,), I32), tag="i32-duplicates")
add("where_indices", lambda x: tf.where(x > 0), R((3, 4), F32), xla="unimplemented")
add("where_indices", lambda x: tf.where(x), R((2, 3, 2), B), xla="unimplemented")
add("where_indices", lambda x: tf.where(x), R((0, 3), B), tag="bool-empty",
    xla="unimplemented")
add("range", lambda: tf.range(2, 12, 3), tag="i32")
add("range", lambda x: x + tf.range(1.0, 0.0, -0.25, dtype=tf.float64), R((4,), F64))
add("range", lambda: tf.range(5, dtype=tf.int64), tag="i64")
add("equal", lambda: tf.eye(3, 4, dtype=tf.int32), tag="eye")
add("shape", lambda x: tf.shape(x), R((2, 0, 3), F32))
add("shape", lambda x: tf.shape(x, out_type=tf.int64), R((4,), B))
add("size", lambda x: tf.size(x), R((2, 3), I32))
add("size", lambda x: tf.size(x, out_type=tf.int64), R((3, 0), F64))
add("sort", tf.sort, R((3, 5), F32))
add("sort", lambda x: tf.sort(x, axis=0, direction="DESCENDING"), R((4, 3), I32))
add("sort", tf.sort, specials((2, 7), F32), tag="nan")
add("argsort", tf.argsort, R((3, 5), F32))
add("argsort", lambda x: tf.argsort(x, stable=True), R((2, 8), I32, -2, 2),
    tag="i32-ties-stable")
add("argsort", lambda x: tf.argsort(x, axis=0, direction="DESCENDING", stable=True),
    R((6, 2), I64, -1, 1), tag="i64-ties-descending")

# --- nn -----------------------------------------------------------------------------------
add("relu", tf.nn.relu, R((3, 4), F32))
add("relu", tf.nn.relu, R((3, 4), I32))
add("relu", tf.nn.relu, R((5,), BF16))
add("relu6", tf.nn.relu6, R((3, 4), F32, -3, 9))
add("relu6", tf.nn.relu6, R((3, 4), I64, -3, 9))
add("elu", tf.nn.elu, R((3, 4), F32), **loose(F32))
add("elu", tf.nn.elu, R((3, 4), F64), **loose(F64))
add("selu", tf.nn.selu, R((3, 4), F32), **loose(F32))
add("selu", tf.nn.selu, R((2, 2), F16), **loose(F16))
add("leaky_relu", tf.nn.leaky_relu, R((3, 4), F32))
add("leaky_relu", lambda x: tf.nn.leaky_relu(x, alpha=0.01), R((3, 4), F64))
add("leaky_relu", lambda x: tf.nn.leaky_relu(x, alpha=0.5), R((2, 3), I32),
    tag="i32-cast")
add("gelu", tf.nn.gelu, R((3, 4), F32), **loose(F32))
add("gelu", lambda x: tf.nn.gelu(x, approximate=True), R((3, 4), F64), **loose(F64))
add("sigmoid", tf.nn.silu, R((3, 4), F32), tag="silu", **loose(F32))
add("softmax", tf.nn.softmax, R((3, 5), F32), **loose(F32))
add("softmax", lambda x: tf.nn.softmax(x, axis=0), R((4, 3), F64), **loose(F64))
add("softmax", tf.nn.softmax, R((2, 6), BF16), **loose(BF16))
add("log_softmax", tf.nn.log_softmax, R((3, 5), F32), **loose(F32))
add("log_softmax", lambda x: tf.nn.log_softmax(x, axis=1), R((2, 3, 4), F64), **loose(F64))
add("sparse_softmax_cross_entropy_with_logits",
    lambda y, x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x),
    index((4,), 5), R((4, 5), F32), **loose(F32))
add("sparse_softmax_cross_entropy_with_logits",
    lambda y, x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x),
    index((2, 3), 4, I64), R((2, 3, 4), F64), **loose(F64))
add("softmax_cross_entropy_with_logits",
    lambda y, x: tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=x),
    probs((4, 5)), R((4, 5), F32), **loose(F32))
add("softmax_cross_entropy_with_logits",
    lambda y, x: tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=x, axis=0),
    probs((3, 1), F64), R((3, 4), F64), tag="f64-axis0-bcast", **loose(F64))
add("l2_loss", tf.nn.l2_loss, R((3, 4), F32), **loose(F32))
add("l2_loss", tf.nn.l2_loss, R((5,), F64))
add("rsqrt", lambda x: tf.math.l2_normalize(x, axis=-1), R((3, 4), F32), tag="l2_normalize",
    **loose(F32))
add("log1p", lambda x, z: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
    R((3, 4), F32), R((3, 4), F32, 0, 1), tag="sigmoid_xent", **loose(F32))
add("bias_add", tf.nn.bias_add, R((2, 3, 4), F32), R((4,), F32))
add("bias_add", lambda x, b: tf.nn.bias_add(x, b, data_format="NCHW"), R((2, 4, 3, 3), F64),
    R((4,), F64), tag="f64-nchw")
add("bias_add", tf.nn.bias_add, R((3, 2), I32), R((2,), I32))

_CONV = [
    # (tag, x shape, filter shape, kwargs, dtype)
    ("f32-same", (2, 5, 5, 3), (3, 3, 3, 4), dict(strides=1, padding="SAME"), F32),
    ("f64-valid-strided", (1, 7, 6, 2), (3, 2, 2, 3), dict(strides=[2, 1], padding="VALID"),
     F64),
    ("f32-dilated", (1, 6, 6, 2), (2, 2, 2, 2), dict(strides=1, padding="VALID", dilations=2),
     F32),
    ("f32-explicit", (1, 4, 5, 2), (3, 3, 2, 2),
     dict(strides=[1, 2, 1, 1], padding=[[0, 0], [1, 2], [2, 0], [0, 0]]), F32),
    ("f64-nchw", (2, 4, 5, 5), (2, 2, 4, 3),
     dict(strides=1, padding="SAME", data_format="NCHW"), F64),
    ("f32-groups", (1, 5, 5, 4), (3, 3, 2, 6), dict(strides=2, padding="SAME"), F32),
    ("i32", (1, 4, 4, 2), (2, 2, 2, 3), dict(strides=1, padding="VALID"), I32),
]
for _tag, _xs, _fs, _kw, _dt in _CONV:
    _lo, _hi = (-3, 3) if _dt is I32 else (-1.0, 1.0)
    add("conv2d", lambda x, f, _k=_kw: tf.nn.conv2d(x, f, **_k), R(_xs, _dt, _lo, _hi),
        R(_fs, _dt, _lo, _hi), tag=_tag, **({} if _dt is I32 else loose(_dt)))
add("depthwise_conv2d", lambda x, f: tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "SAME"),
    R((2, 5, 5, 3), F32), R((3, 3, 3, 2), F32), **loose(F32))
add("depthwise_conv2d", lambda x, f: tf.nn.depthwise_conv2d(x, f, [1, 2, 2, 1], "VALID"),
    R((1, 7, 6, 2), F64), R((2, 3, 2, 1), F64), **loose(F64))
add("depthwise_conv2d",
    lambda x, f: tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "VALID", dilations=[2, 2]),
    R((1, 6, 6, 2), F32), R((2, 2, 2, 3), F32), tag="f32-dilated", **loose(F32))
add("conv2d_transpose",
    lambda x, f: tf.nn.conv2d_transpose(x, f, [1, 6, 6, 2], strides=2, padding="SAME"),
    R((1, 3, 3, 4), F32), R((3, 3, 2, 4), F32), **loose(F32))
add("conv2d_transpose",
    lambda x, f: tf.nn.conv2d_transpose(x, f, [2, 7, 7, 3], strides=2, padding="VALID"),
    R((2, 3, 3, 2), F64), R((3, 3, 3, 2), F64), **loose(F64))
add("conv2d_transpose",
    lambda x, f: tf.nn.conv2d_transpose(x, f, [1, 5, 5, 1], strides=1, padding="SAME",
                                        dilations=2),
    R((1, 5, 5, 2), F32), R((2, 2, 1, 2), F32), tag="f32-dilated", **loose(F32))
add("max_pool", lambda x: tf.nn.max_pool2d(x, 2, 2, "VALID"), R((2, 6, 6, 3), F32))
add("max_pool", lambda x: tf.nn.max_pool2d(x, 3, 2, "SAME"), R((1, 5, 5, 2), I32),
    tag="i32-same")
add("max_pool", lambda x: tf.nn.max_pool1d(x, 3, 1, "SAME"), R((2, 7, 3), F64),
    tag="f64-1d")
add("max_pool", lambda x: tf.nn.max_pool3d(x, 2, 2, "VALID"), R((1, 4, 4, 4, 2), F32),
    tag="f32-3d")
add("max_pool", lambda x: tf.nn.max_pool2d(x, 3, 1, [[0, 0], [1, 1], [2, 0], [0, 0]]),
    R((1, 4, 5, 1), F32), tag="f32-explicit")
add("max_pool", lambda x: tf.nn.max_pool2d(x, 2, 1, "VALID", data_format="NCHW"),
    R((1, 2, 4, 4), F32), tag="f32-nchw")
add("avg_pool", lambda x: tf.nn.avg_pool2d(x, 2, 2, "VALID"), R((2, 6, 6, 3), F32))
add("avg_pool", lambda x: tf.nn.avg_pool2d(x, 3, 2, "SAME"), R((1, 5, 5, 2), F64),
    tag="f64-same")
add("avg_pool", lambda x: tf.nn.avg_pool1d(x, 2, 1, "SAME"), R((2, 5, 3), F32),
    tag="f32-1d")
add("avg_pool", lambda x: tf.nn.avg_pool3d(x, [1, 2, 2], 1, "VALID"), R((1, 3, 4, 4, 1), F32),
    tag="f32-3d")


# --- fused ops: created by the remapper pass from the traced product + bias + activation ----
add("fused_matmul", lambda a, b, c: tf.nn.relu(tf.nn.bias_add(tf.matmul(a, b), c)),
    R((3, 4), F32), R((4, 5), F32), R((5,), F32), tag="f32-relu", **loose(F32))
add("fused_matmul", lambda a, b, c: tf.matmul(a, b, transpose_b=True) + c, R((2, 3), F64),
    R((4, 3), F64), R((4,), F64), tag="f64-add")
add("fused_matmul", lambda a, b, c: tf.nn.leaky_relu(tf.matmul(a, b) + c, alpha=0.3),
    R((2, 3, 4), F32), R((4, 2), F32), R((2,), F32), tag="f32-leaky_relu", **loose(F32))
add("fused_matmul", lambda a, b, c: tf.nn.gelu(tf.matmul(a, b) + c, approximate=True),
    R((3, 4), F32), R((4, 5), F32), R((5,), F32), tag="f32-gelu", **loose(F32))
add("fused_conv2d",
    lambda x, f, c: tf.nn.relu6(tf.nn.bias_add(tf.nn.conv2d(x, f, 1, "SAME"), c)),
    R((2, 5, 5, 3), F32, -1, 1), R((3, 3, 3, 4), F32, -1, 1), R((4,), F32), tag="f32-relu6",
    **loose(F32))
add("fused_conv2d",
    lambda x, f, c: tf.sigmoid(tf.nn.bias_add(tf.nn.conv2d(x, f, 2, "VALID", data_format="NCHW"),
                                              c, data_format="NCHW")),
    R((1, 2, 6, 6), F64, -1, 1), R((2, 2, 2, 3), F64, -1, 1), R((3,), F64),
    tag="f64-nchw-sigmoid", **loose(F64))
# Inference batch norm after a constant filter: folded into the filter and bias. (The fold
# reassociates the scale, hence the loose tolerance.)
_W2 = np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 2, 2, 3)
_BN = [np.asarray(v, np.float32) for v in ([0.5, -1.0, 0.0], [2.0, 0.5, 1.0],
                                           [-0.25, 0.0, 1.0], [1.5, -2.0, 0.75])]
add("fused_conv2d",
    lambda x: tf.nn.batch_normalization(tf.nn.conv2d(x, tf.constant(_W2), 1, "VALID"),
                                        *(tf.constant(v) for v in _BN), 1e-3),
    R((1, 5, 5, 2), F32, -1, 1), tag="f32-batch-norm", rtol=1e-4, atol=1e-5)


# --- random -------------------------------------------------------------------------------
def _in_range(lo, hi, closed=False):
    def check(out):
        a = np.asarray(out, np.float64)
        assert np.all(a >= lo) and (np.all(a <= hi) if closed else np.all(a < hi)), \
            f"values outside [{lo}, {hi}{']' if closed else ')'}: {a.min()} .. {a.max()}"
    return check


def _finite(out):
    assert np.all(np.isfinite(np.asarray(out, np.float64)))


_STATEFUL = dict(deterministic=False)
add("random_uniform", lambda: tf.random.uniform([3, 4], seed=7), tag="f32",
    check=_in_range(0, 1), **_STATEFUL)
add("random_uniform", lambda: tf.random.uniform([5], -2.0, 3.0, dtype=tf.float64),
    tag="f64-unseeded", check=_in_range(-2, 3), **_STATEFUL)
add("random_uniform", lambda x: tf.nn.dropout(x, 0.5, seed=3), R((4, 5), F32), tag="dropout",
    static="shape", **_STATEFUL)
add("random_uniform_int", lambda: tf.random.uniform([4, 3], 2, 9, dtype=tf.int32, seed=1),
    tag="i32", check=_in_range(2, 9), **_STATEFUL)
add("random_uniform_int", lambda: tf.random.uniform([6], -5, 5, dtype=tf.int64), tag="i64",
    check=_in_range(-5, 5), **_STATEFUL)
add("random_standard_normal", lambda: tf.random.normal([3, 4], seed=5), tag="f32",
    check=_finite, **_STATEFUL)
add("random_standard_normal", lambda: tf.random.normal([6], 10.0, 0.5, dtype=tf.float16),
    tag="f16", check=_in_range(5, 15), **_STATEFUL)
add("random_truncated_normal", lambda: tf.random.truncated_normal([3, 4], seed=2), tag="f32",
    check=_in_range(-2, 2, closed=True), **_STATEFUL)
add("random_truncated_normal",
    lambda: tf.random.truncated_normal([7], 1.0, 3.0, dtype=tf.float64), tag="f64",
    check=_in_range(-5, 7, closed=True), **_STATEFUL)

add("stateless_random_uniform", lambda s: tf.random.stateless_uniform([3, 4], s), seed())
add("stateless_random_uniform",
    lambda s: tf.random.stateless_uniform([5], s, minval=-1.0, maxval=2.0, dtype=tf.float64),
    seed(I64))
add("stateless_random_uniform",
    lambda s: tf.random.stateless_uniform([2, 3], s, dtype=tf.bfloat16), seed(), tag="bf16")
add("stateless_random_uniform",
    lambda s: tf.random.stateless_uniform([4], s, dtype=tf.float16), seed(), tag="f16")
add("stateless_random_normal", lambda s: tf.random.stateless_normal([3, 4], s), seed(),
    **loose(F32))
add("stateless_random_normal",
    lambda s: tf.random.stateless_normal([5], s, mean=1.0, stddev=2.0, dtype=tf.float64),
    seed(I64), **loose(F64))
add("stateless_random_truncated_normal",
    lambda s: tf.random.stateless_truncated_normal([3, 4], s), seed(), **loose(F32))
add("stateless_random_truncated_normal",
    lambda s: tf.random.stateless_truncated_normal([6], s, dtype=tf.float64), seed(I64),
    **loose(F64))
add("stateless_random_uniform_int",
    lambda s: tf.random.stateless_uniform([3, 4], s, minval=-5, maxval=7, dtype=tf.int32),
    seed())
add("stateless_random_uniform_int",
    lambda s: tf.random.stateless_uniform([5], s, minval=0, maxval=2**40, dtype=tf.int64),
    seed(I64))
add("stateless_random_uniform_full_int",
    lambda s: tf.random.stateless_uniform([3, 4], s, minval=None, dtype=tf.int32), seed())
add("stateless_random_uniform_full_int",
    lambda s: tf.random.stateless_uniform([5], s, minval=None, dtype=tf.int64), seed(I64))


# --- state --------------------------------------------------------------------------------
def add_var(op, init, body, arg, **flags):
    """A sample `x -> body(v, x)` of a Variable `v` of initial value `init`, reset before
    every run so that each mode starts from the same state."""
    v = tf.Variable(np.asarray(init))
    return add(op, lambda x: body(v, x), arg, reset=lambda: v.assign(np.asarray(init)),
               **flags)


_W = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
add_var("read_variable", _W, lambda v, x: v.read_value() * x, R((3, 4), F32))
add_var("read_variable", np.arange(4, dtype=np.int32), lambda v, x: v + x, R((4,), I32),
        tag="i32-operator")
add_var("read_variable", _W, lambda v, x: tf.matmul(x, v), R((2, 3), F32), tag="f32-matmul",
        **loose(F32))
add_var("assign_variable", _W, lambda v, x: v.assign(x).read_value(), R((3, 4), F32))
add_var("assign_variable", np.zeros(3, np.int64),
        lambda v, x: (v.assign(x * 2, read_value=False), v.read_value())[1],
        R((3,), I64), tag="i64-no-read")
add_var("assign_variable", np.array([True, False]),
        lambda v, x: (v.assign(x), tf.logical_not(v.read_value()))[1], R((2,), B))
add_var("assign_add_variable", _W, lambda v, x: v.assign_add(x).read_value(), R((3, 4), F32))
add_var("assign_add_variable", np.int32(5),
        lambda v, x: (v.assign_add(x), v.assign_add(x), v.read_value())[2], R((), I32),
        tag="i32-twice")
add_var("assign_sub_variable", _W.astype(np.float64),
        lambda v, x: v.assign_sub(x).read_value(), R((3, 4), F64))
add_var("assign_sub_variable", np.arange(3, dtype=np.int64),
        lambda v, x: (v.assign_sub(x), v.read_value() * 2)[1], R((3,), I64))


# --- control flow: ops inside nested graphs -----------------------------------------------
def _loop_accumulate(v, x):
    def body(i, acc):
        v.assign_add(x)
        return i + 1, acc + v.read_value()
    return tf.while_loop(lambda i, acc: i < 3, body, (tf.constant(0), tf.zeros_like(x)))[1]


add_var("assign_add_variable", np.zeros(4, np.float32), _loop_accumulate, R((4,), F32),
        tag="in-while")
add("maximum", lambda x, y: tf.cond(tf.reduce_sum(x) > 0, lambda: tf.maximum(x, y),
                                    lambda: tf.minimum(x, y)),
    R((3, 4), F32), R((4,), F32), tag="in-cond")
add("square", lambda i, x: tf.switch_case(i, [lambda: tf.square(x), lambda: tf.sqrt(x),
                                              lambda: x]),
    const(0, I32), R((5,), F32, 0.5, 3.0), tag="in-switch_case")
add("mul", lambda x: tf.while_loop(lambda y: tf.reduce_max(y) < 100.0, lambda y: y * 2.0,
                                   [x])[0],
    R((3,), F32, 1.0, 2.0), tag="in-while")


# --- logging ------------------------------------------------------------------------------
_PRINTED = io.StringIO()
add("print", lambda x, y: tf.print("x:", x, "y =", y, output_stream=_PRINTED, summarize=2),
    R((3, 5), F32), R((4,), I32), log=_PRINTED)
add("print", lambda x: (tf.print(x, output_stream=_PRINTED, sep="|", end="!\n"), x + 1)[1],
    R((2, 2), I64, 0, 4),
    tag="i64-returns", log=_PRINTED)
add("assert", lambda x: (tf.debugging.Assert(tf.reduce_all(x > -10.0), [x]), x * 2)[1],
    R((3, 4), F32))
add("assert", lambda x, y: tf.debugging.assert_equal(x, y), nonzero((3,), I32),
    const(np.zeros(3), I32), tag="i32-fails",
    raises=tf.errors.InvalidArgumentError)
add("assert", lambda x: (tf.debugging.assert_less(x, 10.0), x)[1], R((4,), F64),
    tag="f64-holds")


# --- segment reductions, and the compositions users reach for ---------------------------
def sorted_ids(n, segments, dtype=I32):
    """`n` sorted segment ids in [0, segments), the last one always segments - 1."""
    def gen(rng):
        ids = np.sort(rng.integers(0, segments, n))
        ids[-1] = segments - 1
        return ids.astype(dtype)
    return Arg(gen, dtype)


for _op in ("segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod"):
    _api = getattr(tf.math, _op)
    add(_op, _api, R((6, 3), F32), sorted_ids(6, 4), xla="unimplemented")
    add(_op, _api, R((5,), F64), sorted_ids(5, 3, I64), tag="f64-i64", xla="unimplemented")
for _op in ("unsorted_segment_sum", "unsorted_segment_max", "unsorted_segment_min",
            "unsorted_segment_prod"):
    _api = getattr(tf.math, _op)
    add(_op, lambda d, i, _f=_api: _f(d, i, 5), R((6, 2), F32), index(6, 5, lo=-1))
    add(_op, lambda d, i, _f=_api: _f(d, i, 4), R((2, 3, 2), I32), index((2, 3), 4, I64),
        tag="i32-2d-ids")
    add(_op, lambda d, i, _f=_api: _f(d, i, 3), R((4,), BF16), index(4, 3), tag="bf16")

add("reduce_mean", lambda x: tf.math.reduce_variance(x, axis=1), R((3, 4), F32),
    tag="variance")
add("sqrt", lambda x: tf.math.reduce_std(x, axis=[0, 2], keepdims=True), R((2, 3, 4), F64),
    tag="reduce_std")
add("reduce_sum", lambda x: tf.math.reduce_euclidean_norm(x, axis=0), R((4, 3), I32),
    tag="euclidean_norm-i32")
add("reduce_sum", lambda x: tf.norm(x), R((3, 4), F32), tag="norm", **loose(F32))
add("reduce_max", lambda x: tf.norm(x, ord=np.inf, axis=[-2, -1]), R((2, 3, 4), F32),
    tag="norm-matrix-inf")
add("pow", lambda x: tf.norm(x, ord=3, axis=1, keepdims=True), R((3, 4), F64),
    tag="norm-ord3")
add("select", lambda x: tf.clip_by_norm(x, 2.0, axes=[1]), R((3, 4), F32), tag="clip_by_norm")
add("l2_loss", lambda x, y: tf.clip_by_global_norm([x, y], 1.5), R((3,), F32),
    R((2, 2), F32), tag="clip_by_global_norm")
add("gather", lambda p, i: tf.nn.embedding_lookup(p, i), R((5, 3), F32), index((2, 2), 5),
    tag="embedding_lookup")
add("where_indices", lambda x, m: tf.boolean_mask(x, m, axis=1), R((2, 4, 3), F32),
    R((4,), B), tag="boolean_mask", xla="unimplemented", static="shape")
add("assert", lambda x: tf.debugging.check_numerics(x, "checked") * 2, R((3,), F32),
    tag="check_numerics")
add("assert", lambda x: tf.debugging.check_numerics(x, "checked"), specials((4,), F64),
    tag="check_numerics-fails", raises=tf.errors.InvalidArgumentError)
add("assert", lambda x: (tf.debugging.assert_positive(x), x)[1], nonzero((4,), F32),
    tag="assert_positive-fails", raises=tf.errors.InvalidArgumentError)
add("assert", lambda x: (tf.debugging.assert_non_negative(x), x)[1], R((4,), I32, 0, 3),
    tag="assert_non_negative")
add("unique", tf.unique, index(8, 4), xla="unimplemented")
add("unique", lambda x: tf.unique(x, out_idx=tf.int64), R((6,), F32, -1, 1), tag="f32-i64",
    xla="unimplemented")
add("unique_with_counts", tf.unique_with_counts, index(8, 3, I64), xla="unimplemented")
add("bincount", tf.math.bincount, index((3, 4), 5), xla="unimplemented")
add("bincount", lambda x, w: tf.math.bincount(x, weights=w, minlength=6, maxlength=6),
    index(7, 8), R((7,), F32), tag="weights-fixed-length")
add("bincount", lambda x: tf.math.bincount(x, minlength=4, maxlength=4, axis=-1,
                                           binary_output=True),
    index((3, 5), 6, I64), tag="rows-binary")
add("searchsorted", lambda s, v: tf.searchsorted(tf.sort(s), v), R((2, 5), F32),
    R((2, 3), F32))
add("searchsorted", lambda s, v: tf.searchsorted(tf.sort(s), v, side="right",
                                                 out_type=tf.int64),
    index(6, 4), index(5, 5), tag="i32-right")
add("unsorted_segment_sum", lambda x: tf.histogram_fixed_width(x, [-2.0, 2.0], nbins=5),
    R((3, 4), F32), tag="histogram_fixed_width")
add("gather", lambda x: tf.image.resize(x, [5, 3]), R((2, 3, 4, 2), F32), tag="resize-bilinear",
    static="shape")
add("gather", lambda x: tf.image.resize(x, [2, 7], method="nearest"), R((4, 5, 1), I32),
    tag="resize-nearest", static="shape")
add("reduce_mean", lambda x: tf.image.adjust_contrast(x, 1.7), R((2, 3, 4, 3), F32),
    tag="adjust_contrast")
add("select", lambda x: tf.linalg.band_part(x, 1, 0), R((2, 4, 3), F64), tag="band_part",
    static="shape")


def well_conditioned(shape, dtype):
    """Random square matrices plus n on the diagonal (safely invertible)."""
    def gen(rng):
        n = shape[-1]
        return (rng.uniform(-1, 1, shape) + n * np.eye(n)).astype(dtype)
    return Arg(gen, dtype)


def spd(shape, dtype):
    """Symmetric positive definite matrices."""
    def gen(rng):
        a = rng.uniform(-1, 1, shape)
        return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)
    return Arg(gen, dtype)


add("matrix_inverse", tf.linalg.inv, well_conditioned((2, 4, 4), F64))
add("matrix_inverse", lambda x: tf.linalg.inv(x, adjoint=True), well_conditioned((3, 3), F32),
    tag="f32-adjoint", rtol=1e-5, atol=1e-6)
add("matrix_determinant", tf.linalg.det, well_conditioned((3, 3, 3), F64))
add("matrix_determinant", tf.linalg.det, well_conditioned((4, 4), F32), rtol=1e-5)
add("matrix_solve", tf.linalg.solve, well_conditioned((2, 3, 3), F64), R((2, 3, 2), F64))
add("matrix_solve", lambda a, b: tf.linalg.solve(a, b, adjoint=True),
    well_conditioned((4, 4), F32), R((4, 1), F32), tag="f32-adjoint", rtol=1e-5, atol=1e-6)
add("cholesky", tf.linalg.cholesky, spd((2, 4, 4), F64))
add("cholesky", tf.linalg.cholesky, spd((3, 3), F32), rtol=1e-5, atol=1e-6)


def triangular(shape, dtype, lower=True):
    """Well-conditioned matrices with NaN in the triangle triangular_solve must not read."""
    def gen(rng):
        n = shape[-1]
        a = rng.uniform(-1, 1, shape) + n * np.eye(n)
        tri = np.tri(n, dtype=bool)
        return np.where(tri if lower else tri.T, a, np.nan).astype(dtype)
    return Arg(gen, dtype)


add("matrix_triangular_solve", tf.linalg.triangular_solve, triangular((2, 1, 3, 3), F64),
    R((4, 3, 2), F64))
add("matrix_triangular_solve", lambda a, b: tf.linalg.triangular_solve(a, b, adjoint=True),
    triangular((4, 4), F32), R((4, 1), F32), tag="f32-adjoint", rtol=1e-5, atol=1e-6)
add("matrix_triangular_solve", lambda a, b: tf.linalg.triangular_solve(a, b, lower=False),
    triangular((3, 3), F64, lower=False), R((3, 2), F64), tag="upper")
add("log_matrix_determinant", lambda x: tf.linalg.slogdet(x), well_conditioned((2, 3, 3), F64))
add("log_matrix_determinant", lambda x: tf.linalg.slogdet(-x), well_conditioned((3, 3), F32),
    tag="f32-negative", rtol=1e-5, atol=1e-6)
# decompositions: LAPACK in every mode (XLA through jax's custom calls); sign-free outputs
# (|q|, |u|, ...) where the vectors' signs are a convention
add("qr", lambda x: [tf.abs(t) for t in tf.linalg.qr(x)], R((2, 4, 3), F64))
add("qr", lambda x: [tf.abs(t) for t in tf.linalg.qr(x, full_matrices=True)], R((3, 5), F32),
    tag="f32-wide-full", rtol=1e-4, atol=1e-5)
add("svd", lambda x: [tf.abs(t) for t in tf.linalg.svd(x)], R((2, 3, 5), F64))
add("svd", lambda x: tf.linalg.svd(x, compute_uv=False), R((4, 3), F32), tag="f32-values",
    rtol=1e-5, atol=1e-5)
add("self_adjoint_eig", lambda x: [tf.abs(t) for t in tf.linalg.eigh(x)], spd((2, 4, 4), F64))
add("self_adjoint_eig", tf.linalg.eigvalsh, R((3, 3), F32), tag="f32-values", rtol=1e-5,
    atol=1e-5)
add("eig", lambda x: tf.math.real(tf.linalg.eigvals(x)), spd((3, 3), F64), tag="f64-values")
add("lu", tf.linalg.lu, well_conditioned((2, 4, 4), F64))
add("lu", lambda x: tf.linalg.lu(x, output_idx_type=tf.int64), well_conditioned((3, 3), F32),
    tag="f32-i64", rtol=1e-5, atol=1e-6)
# --- strings: eager and the executor; XLA refuses string tensors with TF's error class -------
_WORDS = np.array([b"", b"a", b" Ab c ", b"h\xc3\xa9llo", b"x,y,,z", b"42", b"-7", b"0.5"],
                  dtype=object)
_NO_XLA = dict(xla=tf.errors.InvalidArgumentError)


def words(shape, vocab=_WORDS):
    """Strings drawn from a small vocabulary (empty, spaces, UTF-8, numbers, separators)."""
    return Arg(lambda rng: np.asarray(vocab[rng.integers(0, len(vocab), shape)], object),
               object)


_NUMBERS = np.array([b"42", b"-7", b" 3 ", b"0"], dtype=object)
add("equal", lambda x, y: (tf.equal(x, y), x != y), words((3, 4)), words((4,)), **_NO_XLA)
add("not_equal", lambda x: tf.not_equal(x, "a"), words((5,)), **_NO_XLA)
add("concat", lambda a, b: tf.concat([a, b], 0), words((2, 2)), words((3, 2)), **_NO_XLA)
add("string_length", lambda x: (tf.strings.length(x), tf.strings.length(x, "UTF8_CHAR")),
    words((2, 3)), **_NO_XLA)
add("string_upper", lambda x: tf.strings.upper(x), words((4,)), **_NO_XLA)
add("string_upper", lambda x: tf.strings.upper(x, encoding="utf-8"), words((3,)), **_NO_XLA)
add("string_lower", lambda x: tf.strings.lower(x), words((2, 2)), **_NO_XLA)
add("string_strip", lambda x: tf.strings.strip(x), words((5,)), **_NO_XLA)
add("regex_full_match", lambda x: tf.strings.regex_full_match(x, r"-?[0-9]+"), words((6,)),
    **_NO_XLA)
add("string_join", lambda x, y: tf.strings.join([x, "-", y], separator="|"), words((2, 3)),
    words((2, 3)), **_NO_XLA)
add("string_split", lambda x: tf.strings.split(x), words(()), static="rank", **_NO_XLA)
add("string_split", lambda x: tf.strings.split(x, sep=",", maxsplit=2),
    words((), _WORDS[4:5]), static="rank", **_NO_XLA)
add("string_format", lambda x, y: tf.strings.format("x={} y={}!", (x, y), summarize=2),
    R((2, 5), I32), words((3,)), **_NO_XLA)
add("as_string", lambda x: tf.strings.as_string(x, precision=3), R((2, 3), F32), **_NO_XLA)
add("as_string", lambda x: tf.strings.as_string(x, width=4, fill="0"), R((4,), I64),
    **_NO_XLA)
add("string_to_number", lambda x: tf.strings.to_number(x, tf.int32), words((3, 2), _NUMBERS),
    **_NO_XLA)
add("string_to_number", lambda x: tf.strings.to_number(x, tf.float64),
    words((4,), np.array([b"0.5", b"-1e3", b" 2 ", b"inf"], dtype=object)), **_NO_XLA)
add("substr", lambda x, p: tf.strings.substr(x, p, 2), words((3,)), const(0, I32),
    **_NO_XLA)
add("reduce_join", lambda x: tf.strings.reduce_join(x, axis=1, separator=","), words((2, 3)),
    static="rank", **_NO_XLA)
add("reduce_join", lambda x: tf.strings.reduce_join(x), words((2, 2)), **_NO_XLA)
add("regex_replace", lambda x: tf.strings.regex_replace(x, r"([a-z])(\d)?", r"<\2\1>"),
    words((2, 3)), **_NO_XLA)
add("string_to_hash_bucket_fast", lambda x: tf.strings.to_hash_bucket_fast(x, 1000),
    words((3, 2)), **_NO_XLA)
add("string_to_hash_bucket_strong", lambda x: tf.strings.to_hash_bucket_strong(x, 7, [3, 9]),
    words((4,)), **_NO_XLA)
add("string_to_hash_bucket", lambda x: tf.strings.to_hash_bucket(x, 5), words((4,)),
    **_NO_XLA)
add("unicode_split", lambda x: tf.strings.unicode_split(x, "UTF-8"), words(()),
    static="rank", **_NO_XLA)
add("unicode_decode", lambda x: tf.strings.unicode_decode(x, "UTF-8"), words(()),
    static="rank", **_NO_XLA)
add("unicode_decode_with_offsets",
    lambda x: tf.strings.unicode_decode_with_offsets(x, "UTF-8"), words(()), static="rank",
    **_NO_XLA)
add("unicode_encode", lambda x: tf.strings.unicode_encode(x, "UTF-16-BE"),
    Arg(lambda rng: rng.integers(32, 0x2000, (2, 3)).astype(np.int32), np.int32), **_NO_XLA)
add("unicode_transcode", lambda x: tf.strings.unicode_transcode(x, "UTF-8", "UTF-32-BE"),
    words((2, 2)), **_NO_XLA)
add("unsorted_segment_join",
    lambda x, i: tf.strings.unsorted_segment_join(x, i, 3, separator="+"), words((4, 2)),
    Arg(lambda rng: rng.integers(0, 3, (4,)).astype(np.int32), np.int32), **_NO_XLA)


# --- complex numbers ----------------------------------------------------------------------------
C64, C128 = np.complex64, np.complex128


def cplx(shape, dtype, lo=-3.0, hi=3.0):
    """Real and imaginary parts uniform in [lo, hi]."""
    return Arg(lambda rng: (rng.uniform(lo, hi, shape) + 1j * rng.uniform(lo, hi, shape))
               .astype(dtype), dtype)


add("complex", lambda re, im: tf.complex(re, im), R((3, 4), F32), R((4,), F32))
add("complex", lambda re, im: tf.complex(re, im), R((2,), F64), R((2,), F64))
add("real", lambda z: tf.math.real(z), cplx((3, 2), C64))
add("imag", lambda z: tf.math.imag(z), cplx((4,), C128))
add("conj", lambda z: tf.math.conj(z), cplx((2, 3), C64))
add("abs", lambda z: tf.abs(z), cplx((5,), C64), tag="c64-magnitude")
add("add", lambda x, y: (x + y, x - y, -x), cplx((3, 4), C64), cplx((4,), C64), tag="c64")
add("mul", lambda x, y: (x * y, x / y), cplx((2, 3), C128), cplx((2, 3), C128, 0.5, 2.0),
    tag="c128")
add("exp", lambda z: (tf.exp(z), tf.math.log(z), tf.sqrt(z), tf.square(z)),
    cplx((4,), C64, 0.2, 1.5), tag="c64", rtol=2e-5)
add("equal", lambda x, y: (tf.equal(x, y), tf.not_equal(x, x)), cplx((3,), C128),
    cplx((3,), C128), tag="c128")
add("matmul", lambda a, b: tf.matmul(a, b), cplx((2, 3), C64), cplx((3, 2), C64), tag="c64")
add("cast", lambda z: (tf.cast(z, tf.float32), tf.cast(tf.math.real(z), tf.complex128)),
    cplx((3,), C64), tag="c64")
# --- checks -------------------------------------------------------------------------------
add("ensure_shape", lambda x: tf.ensure_shape(x, [None, 3]) * 2.0, R((4, 3), F32))
add("ensure_shape", lambda x: tf.ensure_shape(x, [2, 2]), R((2, 2), I32), tag="i32-full")


# --- collective (outside a strategy's run the replica group is this one program; the
# multi-replica behaviour is tested on forced host devices in tests/distributed/) ----------
add("all_reduce", lambda x: tf.distribute.get_replica_context().all_reduce("SUM", x) * 2.0,
    R((2, 3), F32))
add("all_reduce", lambda x: tf.distribute.get_replica_context().all_reduce("MEAN", x),
    R((3,), I32), tag="i32-mean")


def _one_device_layout(rank):
    dt = tf.experimental.dtensor
    return dt.Layout.replicated(dt.create_mesh([("x", 1)], device_type="CPU"), rank)


add("relayout", lambda x: tf.experimental.dtensor.relayout(x, _one_device_layout(2)) * 2.0,
    R((2, 3), F32), static="rank")


# --- script (Python functions as ops; XLA refuses them with TF's InvalidArgumentError, which
# test_every_op checks with the op's name, tests/frontend/test_script_ops.py with the text) --
add("py_function", lambda x: tf.py_function(lambda a: a * 2.0, [x], Tout=tf.float32) + 1.0,
    R((2, 3), F32), xla=tf.errors.InvalidArgumentError)
add("numpy_function", lambda x, y: tf.numpy_function(lambda a, b: (a - b, a * b), [x, y],
                                                     Tout=[tf.int32, tf.int32]),
    R((4,), I32), R((4,), I32), xla=tf.errors.InvalidArgumentError)
# --- signal: FFTs (real transforms crop or zero-pad to fft_length) -----------------------------
add("fft", lambda z: tf.signal.fft(z), cplx((2, 8), C64), tag="c64", rtol=1e-5, atol=1e-5)
add("fft", lambda z: tf.signal.fft2d(z), cplx((3, 4, 5), C128), tag="2d")
add("fft", lambda z: tf.signal.fft3d(z), cplx((2, 3, 4), C64), tag="3d", rtol=1e-5, atol=1e-5)
add("ifft", lambda z: tf.signal.ifft(z), cplx((3, 7), C128))
add("ifft", lambda z: tf.signal.ifft2d(z), cplx((4, 6), C64), tag="2d", rtol=1e-5, atol=1e-5)
add("ifft", lambda z: tf.signal.ifft3d(z), cplx((2, 2, 3), C128), tag="3d")
add("rfft", lambda x: tf.signal.rfft(x), R((3, 8), F32), rtol=1e-5, atol=1e-5, static="shape")
add("rfft", lambda x: tf.signal.rfft(x, [5]), R((4, 7), F64), tag="cropped")
add("rfft", lambda x: tf.signal.rfft2d(x, [4, 6]), R((3, 5), F64), tag="2d-padded")
add("rfft", lambda x: tf.signal.rfft3d(x), R((2, 3, 4), F32), tag="3d", rtol=1e-5, atol=1e-5,
    static="shape")
add("irfft", lambda z: tf.signal.irfft(z), cplx((2, 5), C64), rtol=1e-5, atol=1e-5,
    static="shape")
add("irfft", lambda z: tf.signal.irfft(z, [5]), cplx((3, 6), C128), tag="cropped-odd")
add("irfft", lambda z: tf.signal.irfft2d(z, [4, 10]), cplx((3, 4), C128), tag="2d-padded")
add("irfft", lambda z: tf.signal.irfft3d(z, [2, 3, 4]), cplx((2, 3, 3), C64), tag="3d",
    rtol=1e-5, atol=1e-5)


# --- special functions (tf.math's Bessel, gamma-family, erfinv, ndtri, nextafter, softsign) --
_SPECIAL = {
    "softsign": (tf.math.softsign, [(F32, "big"), (F16, "wide")]),
    "erfinv": (tf.math.erfinv, [(F32, "unit"), (F64, "unit")]),
    "ndtri": (tf.math.ndtri, [(F32, "prob"), (F64, "prob")]),
    "lgamma": (tf.math.lgamma, [(F32, "wide"), (F64, "pos")]),
    "digamma": (tf.math.digamma, [(F32, "pos"), (F64, "wide")]),
    "bessel_i0": (tf.math.bessel_i0, [(F32, "big"), (F64, "wide")]),
    "bessel_i0e": (tf.math.bessel_i0e, [(F32, "big"), (F64, "wide"), (F16, "wide")]),
    "bessel_i1": (tf.math.bessel_i1, [(F64, "big"), (F32, "wide")]),
    "bessel_i1e": (tf.math.bessel_i1e, [(F32, "big"), (F64, "wide")]),
}
_GEN["prob"] = lambda s, d: R(s, d, 0.02, 0.98)
for _op, (_api, _cases) in _SPECIAL.items():
    for _i, (_dt, _kind) in enumerate(_cases):
        add(_op, lambda x, _f=_api: _f(x), _GEN[_kind](((3, 4), (5,), ())[_i % 3], _dt),
            **loose(_dt))
add("polygamma", lambda n, x: tf.math.polygamma(n, x), const([[0.], [1.], [3.]], F64),
    R((4,), F64, 0.2, 4.0), **loose(F64))
add("polygamma", lambda x: tf.math.polygamma(2.0, x), R((5,), F32, 0.5, 3.0), **loose(F32))
add("zeta", lambda x, q: tf.math.zeta(x, q), R((3, 1), F64, 1.5, 5.0),
    R((4,), F64, 0.5, 3.0), **loose(F64))
add("zeta", lambda q: tf.math.zeta(3.0, q), R((5,), F32, 0.5, 3.0), **loose(F32))
add("nextafter", lambda x, y: tf.math.nextafter(x, y), specials((3, 4), F32), R((4,), F32))
add("nextafter", lambda x, y: tf.math.nextafter(x, y), halves((5,), F64), halves((5,), F64))

# --- tensor_scatter_nd_min/max (distinct rows: ties with the original values via halves) ---
for _op in ("tensor_scatter_nd_min", "tensor_scatter_nd_max"):
    _api = getattr(tf, _op)
    add(_op, lambda t, i, u, _f=_api: _f(t, i, u), halves((4, 3), F32), distinct(3, 4),
        halves((3, 3), F32))
    add(_op, lambda t, i, u, _f=_api: _f(t, i, u), R((3, 3), I32), index((4, 2), 3),
        R((4,), I32), tag="i32-elements")

# --- bitcast: narrower (a new last dim), wider (consumes it), same width --------------------
add("bitcast", lambda x: tf.bitcast(x, tf.int8), R((2, 3), I32))
add("bitcast", lambda x: tf.bitcast(x, tf.int32), R((3, 4), I8), tag="i8-wider")
add("bitcast", lambda x: tf.bitcast(x, tf.int32), R((5,), F32), tag="f32-same")
add("bitcast", lambda x: tf.bitcast(x, tf.float16), R((2, 0), F64), tag="f64-empty")

# --- incomplete gamma/beta, mul_no_nan, cumulative_logsumexp -------------------------------
add("igamma", lambda a, x: tf.math.igamma(a, x), R((3, 1), F64, 0.3, 4.0),
    R((4,), F64, 0.0, 6.0), **loose(F64))
add("igamma", lambda a, x: tf.math.igamma(a, x), R((5,), F32, 0.5, 3.0), R((5,), F32, 0.1, 4.0),
    **loose(F32))
add("igammac", lambda a, x: tf.math.igammac(a, x), R((2, 3), F32, 0.5, 5.0),
    R((3,), F32, 0.1, 6.0), **loose(F32))


def _igamma_slope_in_a(a, x):
    with tf.GradientTape() as tape:
        tape.watch(a)
        p = tf.math.igamma(a, x)
    return tape.gradient(p, a)


# (a gradient sums back to its operand's shape: the rank must be known)
add("igamma_grad_a", _igamma_slope_in_a, R((4,), F64, 0.5, 4.0), R((4,), F64, 0.1, 5.0),
    static="rank", **loose(F64))
add("betainc", lambda a, b, x: tf.math.betainc(a, b, x), R((2, 3), F64, 0.5, 3.0),
    R((2, 3), F64, 0.5, 3.0), R((2, 3), F64, 0.05, 0.95), **loose(F64))
add("betainc", lambda a, b, x: tf.math.betainc(a, b, x), R((), F32, 0.5, 3.0),
    R((4,), F32, 0.5, 3.0), R((), F32, 0.05, 0.95), **loose(F32))
add("mul_no_nan", lambda x, y: tf.math.multiply_no_nan(x, y), specials((3, 4), F32),
    halves((4,), F32))
add("mul_no_nan", lambda x, y: tf.math.multiply_no_nan(x, y), R((2, 1), F64), R((3,), F64))
add("cumulative_logsumexp", lambda x: tf.math.cumulative_logsumexp(x, axis=1),
    R((3, 4), F32, -20, 20))
add("cumulative_logsumexp",
    lambda x: tf.math.cumulative_logsumexp(x, axis=-1, exclusive=True, reverse=True),
    R((2, 5), F64), tag="f64-exclusive-reverse")
add("sobol_sample", lambda: tf.math.sobol_sample(3, 6, skip=2))
add("sobol_sample", lambda: tf.math.sobol_sample(50, 2, skip=100, dtype=tf.float64),
    tag="f64-dim50")


def _well_conditioned(n, dtype, batch=()):
    """Matrices near 3 I: eigenvalues with positive real parts, far from each other's
    negatives (the square root's gradient solves a Sylvester equation on them)."""
    def make(rng):
        x = 3 * np.eye(n) + 0.5 * rng.standard_normal(batch + (n, n))
        if np.dtype(dtype).kind == "c":
            x = x + 0.3j * rng.standard_normal(batch + (n, n))
        return x.astype(dtype)
    return Arg(make, dtype)


add("matrix_square_root", lambda x: tf.linalg.sqrtm(x), _well_conditioned(3, F64, (2,)),
    **loose(F64))
add("matrix_square_root", lambda x: tf.linalg.sqrtm(x), _well_conditioned(4, F32),
    rtol=1e-4)
add("matrix_logarithm", lambda x: tf.linalg.logm(x), _well_conditioned(3, C128, (2,)))


# --- parsing: serialized Examples and TensorProtos; XLA refuses their string tensors -------
def _examples(n):
    """`n` serialized tf.train.Examples: an int64 list of 0..3 values, a float pair, a name."""
    def make(rng):
        out = np.empty(n, object)
        for i in range(n):
            f = tf.train.Feature
            out[i] = tf.train.Example(features=tf.train.Features(feature={
                "ids": f(int64_list=tf.train.Int64List(
                    value=rng.integers(-5, 5, rng.integers(0, 4)).tolist())),
                "xy": f(float_list=tf.train.FloatList(value=rng.normal(size=2).tolist())),
                "name": f(bytes_list=tf.train.BytesList(value=[b"n%d" % i]))})
            ).SerializeToString()
        return out
    return Arg(make, object)


def _parsed(parsed):
    ids = parsed["ids"]
    return (ids.indices, ids.values, ids.dense_shape, parsed["xy"], parsed["name"])


_FEATURES = {"ids": tf.io.VarLenFeature(tf.int64), "xy": tf.io.FixedLenFeature([2], tf.float32),
             "name": tf.io.FixedLenFeature([], tf.string)}
add("parse_example", lambda s: _parsed(tf.io.parse_example(s, _FEATURES)), _examples(4),
    static="rank", **_NO_XLA)
add("parse_example", lambda s: _parsed(tf.io.parse_single_example(s, _FEATURES)),
    Arg(lambda rng: _examples(1)(rng).reshape(()), object), tag="single", **_NO_XLA)


def _sequence_example(rng):
    f = tf.train.Feature
    steps = [f(int64_list=tf.train.Int64List(value=rng.integers(0, 9, 2).tolist()))
             for _ in range(3)]
    return np.array(tf.train.SequenceExample(
        context=tf.train.Features(feature={"n": f(int64_list=tf.train.Int64List(value=[3]))}),
        feature_lists=tf.train.FeatureLists(feature_list={"t": tf.train.FeatureList(
            feature=steps)})).SerializeToString(), object)


add("parse_sequence_example", lambda s: tuple(
    d[k] for d, k in zip(tf.io.parse_single_sequence_example(
        s, {"n": tf.io.FixedLenFeature([], tf.int64)},
        {"t": tf.io.FixedLenSequenceFeature([2], tf.int64)}), ("n", "t"))),
    Arg(_sequence_example, object), **_NO_XLA)
add("parse_sequence_example", lambda s: tuple(
    d[k] for d, k in zip(tf.io.parse_sequence_example(
        s, {"n": tf.io.FixedLenFeature([], tf.int64)},
        {"t": tf.io.FixedLenSequenceFeature([2], tf.int64)}), ("n", "t", "t"))),
    Arg(lambda rng: np.array([_sequence_example(rng).item() for _ in range(3)], object),
        object), tag="batch", static="rank", **_NO_XLA)
add("serialize_tensor", lambda x: tf.io.serialize_tensor(x), R((2, 3), F32), **_NO_XLA)
add("parse_tensor", lambda x: tf.io.parse_tensor(x, tf.int64), Arg(
    lambda rng: np.array(tf.io.serialize_tensor(rand(rng, (3, 2), np.int64, -9, 9)).numpy(),
                         object), object),
    **_NO_XLA)
add("decode_raw", lambda x: tf.io.decode_raw(x, tf.int16),
    Arg(lambda rng: np.array([rng.bytes(6), rng.bytes(6)], object), object), **_NO_XLA)
add("decode_raw", lambda x: tf.io.decode_raw(x, tf.float32, little_endian=False,
                                             fixed_length=8),
    Arg(lambda rng: np.array([rng.bytes(4), rng.bytes(8), b""], object), object),
    tag="big-endian-fixed", **_NO_XLA)


def _beam_paths(x, lengths):
    decoded, log_probs = tf.nn.ctc_beam_search_decoder(x, lengths, beam_width=4, top_paths=2)
    return tuple(t for d in decoded for t in (d.indices, d.values, d.dense_shape)) + \
        (log_probs,)


add("ctc_beam_search_decoder", _beam_paths, R((5, 3, 4), F32), const([5, 3, 1], I32),
    xla="unimplemented")
add("ctc_beam_search_decoder", _beam_paths, R((4, 2, 3), F64), const([2, 4], I32),
    xla="unimplemented")
add("fingerprint", tf.fingerprint, R((3, 2), I32, -9, 9), **_NO_XLA)
add("fingerprint", tf.fingerprint, words((4,)), **_NO_XLA)
add("isotonic_regression", lambda x: tf.nn.isotonic_regression(x)[0], R((3, 5), F32),
    **_NO_XLA)
add("isotonic_regression", lambda x: tf.nn.isotonic_regression(x, False, axis=0)[0],
    R((4, 2), F64), tag="increasing-axis0", static="rank", **_NO_XLA)
add("random_index_shuffle", lambda i, m: tf.random_index_shuffle(i, [3, 1, 4], m),
    Arg(lambda rng: np.arange(6, dtype=np.int64), np.int64),
    Arg(lambda rng: np.array([5, 9, 70000, 2 ** 33, 6, 8], np.int64), np.int64))
