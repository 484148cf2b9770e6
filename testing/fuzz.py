"""A differential fuzzer: random programs over the op registry, run eagerly, on the graph
executor with and without passes, with unknown-dim signatures, and under XLA; every result
must match eager within the tolerance policy below.

    python -m flowjit.testing.fuzz --programs 1000 --seed 0

A program is a chain of 1-4 registry ops over 2 random tensors (shapes with 0- and 1-sized
dims that broadcast; every dtype flowjit has: floats, bfloat16, signed and unsigned ints, bool,
complex; NaN/Inf/-0.0/huge floats and integer extremes), optionally inside
cond/switch_case/while, stored in a Variable, or differentiated (d sum(result) / d x0). Ops
join automatically: every stateless registry op with a tensor input whose attributes the
generator can make from their declared kinds (bools, ints, floats, dtypes, int tuples as
axes/permutations/sizes/paddings/shapes, the documented strings of `_STR_CHOICES`; any other
attribute keeps its default). An op is applied when its inference accepts the generated
operands and attributes, so each op meets every dtype it supports. Programs run in worker
subprocesses, so an abort is counted as a crash and a program running over 300 s as a hang,
and the run goes on. A mismatch is shrunk
(trailing ops dropped while it still fails) and printed as a runnable repro.

Tolerance policy (`close`): integers and bools exact; floats within rtol = atol = TOL[dtype]
(complex: each component at its real type's TOL), NaN where eager has NaN, infinities equal;
beyond TOL, a float or complex element within twice the distance eager's own result moves when
each element of each float input moves by PERTURB_ULPS units in the last place, either way (a
chain ill-conditioned at its inputs amplifies a last-place difference between two correct
kernels past any fixed TOL; for `XLA_NORMWISE` ops the largest such distance in the result).
XLA-caused differences are allowed explicitly: subnormal results flushed to zero (|x| <
finfo.tiny counts as 0), FMA contraction and reciprocal rewrites (covered by TOL),
float16/bfloat16 evaluated in float32 (their TOL is their epsilon scale), the results of
`XLA_NORMWISE` matrix functions and FFTs (another algorithm under XLA) within TOL of the
result's largest entry, and the gradients of `XLA_MASKED_GRADIENTS` at a NaN extreme: XLA's
simplifier turns `cast(x == max) / count` into a select, so the 0/0 that makes TF's eager
gradient NaN is never formed (TF 2.21 under jit_compile gives a finite gradient too); the
results of `XLA_UNCHECKED` ops under XLA (searchsorted on an unsorted or NaN-holding sequence:
TF's XLA counts where its kernel binary-searches, so TF 2.21 differs between its own modes;
bitcast of a NaN, whose bits XLA and eager choose differently) and of `XLA_NONFINITE_UNCHECKED`
ones given NaN/Inf or huge inputs (XLA's LU/Cholesky are not LAPACK's; TF 2.21 differs
likewise), integer programs taking the `XLA_INT_MIN_UNCHECKED` abs of an input holding the
type's minimum (XLA's simplifier takes abs(x) >= 0), and, with `XLA_NAN_UNDETECTED` ops, any
value where eager gives NaN (XLA's Cholesky does not detect a matrix that is not positive
definite; TF 2.21 neither), with `XLA_NAN_EITHER` ops any value where either result is NaN
(zeta outside its domain; TF 2.21 alike); under XLA, the tolerance of the program's input dtype
where it is float16/bfloat16 (XLA keeps float32 across a cast to float32 that eager rounds
first) and, for complex programs, any value where either result is NaN or infinite (from
NaN/Inf inputs or an overflow inside), and their integer and bool results given NaN/Inf or huge
inputs (XLA's complex abs/log/division do not follow C99's special values, "an infinite part
wins": TF 2.21 under jit_compile gives NaN for abs(nan - inf j) too, and its division by
another formula can leave a part finite). A program whose eager run raises is only checked not
to crash; under XLA an UnimplementedError (a result shape known only at run time) is the
documented limit, as is TF's "No registered ... OpKernel for XLA_CPU_JIT" refusal of an op TF's
XLA has no kernel for, and so is a NotImplementedError with unknown-dim signatures (the
gradients of pools and convolutions need their window geometry while tracing) or an error
saying a size must be known while tracing (the composites of README's differences table) or a
while_loop asking for `shape_invariants` (as TF does there); so are a dtype TypeError and a
NotImplementedError from the traced gradient of a branch or loop body eager did not run (TF
builds those gradients too), and, where eager's gradient is disconnected, an
InvalidArgumentError from a traced gradient kernel the forward program does not raise (TF's
traced gradient runs those kernels, with a zero upstream, too). Where eager's gradient is
disconnected (None: the taken branch of a cond is `zeros_like`), the traced modes are checked
against the executor: TF 2.21's traced cond has a gradient through either branch, 0 * f'(x),
NaN where f' is infinite.
"""
from __future__ import annotations

import argparse
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading

import ml_dtypes
import numpy as np

BF16 = np.dtype(ml_dtypes.bfloat16)
# Every dtype flowjit has a numeric kernel for; an op takes the ones its inference accepts.
DTYPES = [np.dtype(d) for d in (np.float32, np.float64, np.float16, np.int32, np.int64,
                                 np.int8, np.int16, np.uint8, np.bool_, np.complex64,
                                 np.complex128)] + [BF16]
# rtol = atol per dtype (complex: per component, at its real type's tolerance).
TOL = {np.dtype(np.float16): 1e-2, BF16: 5e-2, np.dtype(np.float32): 1e-4,
       np.dtype(np.float64): 1e-10}
SPECIAL = [np.nan, np.inf, -np.inf, -0.0, 1e30, -1e30]
# Gradients XLA is allowed to leave finite where eager has NaN (see the module docstring).
XLA_MASKED_GRADIENTS = {"reduce_max", "reduce_min"}
# Ops whose results under XLA are TF-XLA's own outside a precondition the generator cannot
# ensure (searchsorted: a sorted sequence without NaN); their programs must only not crash.
# bitcast: the bits of a NaN are unspecified, and XLA's NaNs are not eager's (TF 2.21:
# bitcast(log(-0.7), int32) is -4194304 eagerly, -1 under jit_compile; seed 200165).
XLA_UNCHECKED = {"searchsorted", "bitcast"}
# ... and, when an input holds NaN/Inf, the results of XLA's matrix decompositions: its LU and
# Cholesky are not LAPACK's (TF 2.21: inv of a matrix with an inf is finite eagerly and NaN
# under jit_compile; seed 308350).
# The same for log_matrix_determinant (the same LU) and svd (TF 2.21: svd([[1, nan], [2, 3]])
# is NaN eagerly, [2.236, nan] under jit_compile). Huge inputs (1e30) count: they overflow
# to inf inside (seed 365294: slogdet of bessel_i0(-1e30)).
XLA_NONFINITE_UNCHECKED = {"matrix_inverse", "matrix_determinant", "log_matrix_determinant",
                           "matrix_solve", "cholesky", "svd"}
# ... and where eager's result is NaN (a matrix that is not positive definite), any value of
# XLA's Cholesky, which does not detect it (TF 2.21: cholesky([[-0.]]) is NaN in tf.function
# and -0. under jit_compile; seed 311860).
XLA_NAN_UNDETECTED = {"cholesky"}
# ... and where either result is NaN, any value of the other: zeta(x, q) at x = +-0 (below
# its domain x > 1) is NaN eagerly and inf under XLA, at x = inf 0 eagerly and NaN under XLA
# (TF 2.21 alike both times; seeds 100416, 304574).
# igamma_grad_a at x = inf is 0 eagerly and NaN under XLA, in TF 2.21 as here (seed 407013).
XLA_NAN_EITHER = {"zeta", "igamma_grad_a"}
# ... and, in an integer program whose input holds the type's minimum, the results of a chain
# taking its abs under XLA: XLA's simplifier takes abs(x) >= 0, which abs(INT_MIN) = INT_MIN
# is not (TF 2.21 under jit_compile: floordiv(-2, abs(INT32_MIN)) is -1, eagerly 0; seed
# 352574).
XLA_INT_MIN_UNCHECKED = {"abs"}
# Matrix functions whose XLA algorithm is not the eager kernel's (inverse scaling and
# squaring, jax's Schur sqrtm, against SciPy's): their error is bounded relative to the
# result's norm, so under XLA they are compared normwise, each part within TOL * max|result|
# (seed 301995: logm of a matrix with a -1e30 entry, an entry of 1e-6 against 1.5e-9 in a
# result of norm 4e8).
# The FFTs too: their error is bounded by the input's norm, and XLA's FFT is not pocketfft
# (seed 362673: an entry of 3.5e13 against 4.7e13 in a result of norm 3e29).
XLA_NORMWISE = {"matrix_logarithm", "matrix_square_root", "fft", "ifft", "rfft", "irfft"}
# Refusals the README documents: XLA needs static result shapes (where_indices, unique, ...);
# the gradients of pools and convolutions need spatial/filter dims known while tracing.
DOCUMENTED_REFUSALS = {("xla", "UnimplementedError"), ("unknown_dims", "NotImplementedError")}
# ... and an XLA shape argument computed from a data-dependent shape (the gradient of a
# broadcast against `unique`'s result, seed 306900): TF's InvalidArgumentError, README.
XLA_NOT_CONSTANT = "must be a compile-time constant"
# ... and an op TF's XLA has no kernel for (fingerprint, isotonic_regression), refused with
# TF's InvalidArgumentError text.
XLA_NO_KERNEL = "OpKernel for XLA_"
# ... and, with unknown dims, the composites whose sizes must be known while tracing (the
# README's differences table: diag_part/set_diag, conv3d, image.resize ...), which say so,
# and a while_loop whose body loses the loop variable's (None, ...) shape (a squeeze): TF
# 2.21 raises the same ValueError asking for shape_invariants (seed 301065).
UNKNOWN_DIMS_LIMITS = ("known while tracing", "use the `shape_invariants` argument")
# A traced gradient is built for every branch of a cond/case and for a while body, also for
# those eager did not run: a gradient op refusing the dtype (digamma's polygamma on float16:
# TypeError) or a gradient TF leaves undefined there (QR's with full matrices, more rows
# than columns: NotImplementedError) raises only while tracing, as in TF 2.21 (seeds
# 305441, 309474).
UNRUN_BRANCH_GRADIENT = {TypeError: "is not supported; allowed:",
                         NotImplementedError: "not implemented"}
# Each float input moved by this many units in the last place, both ways, measures how far
# eager's own result moves at these inputs; a difference within twice that is the program's
# conditioning, not a mismatch (seed 351167: tan(exp(bessel_i0(x))) turns bessel_i0's 1-ulp
# difference under XLA into 1.2e-9, ten times float64's tolerance).
PERTURB_ULPS = 4


# --- generation ------------------------------------------------------------------------------
# Values of a `str` attribute the generator tries besides its default (a string attribute
# cannot be made up; these are the documented choices).
_STR_CHOICES = {"padding": ("SAME", "VALID"), "mode": ("CONSTANT", "REFLECT", "SYMMETRIC"),
                "side": ("left", "right")}
_PRINTABLE = (bool, int, float, str, type(None))


def _printable(value) -> bool:
    from ..ir import dtypes as D
    if isinstance(value, tuple):
        return all(_printable(x) for x in value)
    return isinstance(value, (*_PRINTABLE, D.DType))


def _attr_value(rng, a, rank: int, shape: tuple):
    """A candidate value for attribute `a` of an op on an operand of `shape` (its default,
    possibly REQUIRED, for a kind not generated). Most candidates are valid only sometimes;
    the op's inference decides, and the generator retries."""
    from ..ir import dtypes as D
    from ..ir.registry import REQUIRED
    r = rng.random()
    if a.default is not REQUIRED and r < 0.4:
        return a.default
    if a.kind == "bool":
        return bool(r < 0.7)
    if a.kind == "int":
        return int(rng.integers(-rank - 1, max(rank, 3) + 1))
    if a.kind == "float":
        return float(rng.choice([0.0, 0.5, 2.0]))
    if a.kind == "dtype":
        return D.from_numpy(DTYPES[rng.integers(len(DTYPES))])
    if a.kind == "str":
        choices = _STR_CHOICES.get(a.name)
        return a.default if choices is None else str(rng.choice(choices))
    if a.kind in ("ints", "shape"):
        return _ints_value(rng, rank, shape)
    return a.default


def _ints_value(rng, rank, shape):
    """Axes, a permutation, per-dim sizes/multiples/paddings, or a reshape target."""
    axes = [int(i) for i in rng.permutation(rank)]
    size = int(np.prod([d or 1 for d in shape]))   # a dim unknown while tracing counts as 1
    kind = int(rng.integers(6))
    if kind == 0:    # a subset of axes, some negative
        k = int(rng.integers(0, rank + 1))
        return tuple(sorted(a - rank * int(rng.integers(2)) for a in axes[:k]))
    if kind == 1:    # a permutation
        return tuple(axes)
    if kind == 2:    # one small number per dim or per spatial dim (multiples, sizes, ksize)
        n = rank if rng.random() < 0.7 else max(rank - 2, 1)
        return tuple(int(x) for x in rng.integers(int(rng.random() < 0.3), 3, size=n))
    if kind == 3:    # two per dim (paddings)
        return tuple(int(x) for x in rng.integers(0, 3, size=2 * rank))
    if kind == 4:    # the same elements in another shape
        targets = [(size,), (-1,), (1, size), (size, 1), tuple(d or 1 for d in shape) + (1,)]
        return targets[int(rng.integers(len(targets)))]
    return (1,) * max(rank - 2, 1)   # spatial strides / dilations / windows of size 1


def usable_ops():
    """Registry ops the generator can call: stateless, at least one tensor input, and every
    attribute either with a printable default or of a kind `_attr_value` generates."""
    from ..ir.registry import OPS, REQUIRED
    out = []
    for name, op in sorted(OPS.items()):
        if op.stateful or not op.inputs:
            continue
        if all(a.kind in ("bool", "int", "float", "dtype", "ints", "shape")
               or (a.kind == "str" and a.name in _STR_CHOICES)
               or (a.default is not REQUIRED and _printable(a.default))
               for a in op.attrs.values()):
            out.append(name)
    return out


def _shape(rng, rank):
    return tuple(int(rng.choice([0, 1, 1, 2, 3])) for _ in range(rank))


def _real_values(rng, shape, dt):
    """Values with, sometimes, a special one: NaN/Inf/-0.0/huge for floats, the extremes of
    an integer type."""
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        v = rng.integers(-5, 6, size=shape)
        special = [np.iinfo(dt).min, np.iinfo(dt).max]
    else:
        v = rng.standard_normal(shape) * 3
        special = SPECIAL
    if v.size and rng.random() < 0.3:
        v.reshape(-1)[rng.integers(0, v.size)] = rng.choice(special)
    return v.astype(dt)


def _values(rng, shape, dt):
    if dt.kind == "c":
        part = np.dtype(np.float32 if dt == np.complex64 else np.float64)
        return (_real_values(rng, shape, part) + 1j * _real_values(rng, shape, part)).astype(dt)
    return _real_values(rng, shape, dt)


def _arity(rng, op) -> int:
    n = len(op.inputs)
    return n - 1 + int(rng.integers(1, 4)) if op.variadic else n


def _try_op(rng, name, types):
    """One random application of op `name` to the available `types`: (args, attrs, output
    index or None, result type), or None where its inference refuses."""
    from ..ir.registry import OPS, REQUIRED, infer_types
    op = OPS[name]
    args = [int(rng.integers(len(types))) for _ in range(_arity(rng, op))]
    first = types[args[0]].shape or ()
    attrs = {a.name: _attr_value(rng, a, len(first), first) for a in op.attrs.values()}
    if any(v is REQUIRED for v in attrs.values()):
        return None
    try:
        out = infer_types(op, [types[i] for i in args], attrs)
    except Exception:  # noqa: BLE001 - not applicable to these operands / attributes
        return None
    picks = [j for j, t in enumerate(out) if t.dtype.kind in "fiubc"]
    if not picks:
        return None
    j = picks[int(rng.integers(len(picks)))]
    return args, attrs, (j if len(out) > 1 else None), out[j]


def generate(seed: int) -> dict:
    """A program as plain data: input arrays and the op chain [(op, args, attrs, output)]."""
    from ..ir import dtypes as D
    from ..ir.registry import TT
    rng = np.random.default_rng(seed)
    ops = usable_ops()
    dt = DTYPES[rng.integers(len(DTYPES))]
    rank = int(rng.integers(0, 5))   # rank 4 for pools and convolutions
    a = _shape(rng, rank)
    b = tuple(d if rng.random() < 0.7 else 1 for d in a)[int(rng.integers(0, rank + 1)):]
    types = [TT(D.from_numpy(dt), s) for s in (a, b)]
    chain = []
    for _ in range(int(rng.integers(1, 5))):
        for _ in range(40):   # find an op whose inference accepts these operands
            name = ops[rng.integers(len(ops))]
            # several draws of operands and attributes: most draws of a structured
            # attribute (pool windows, permutations) are invalid
            tried = next(filter(None, (_try_op(rng, name, types) for _ in range(8))), None)
            if tried is not None:
                args, attrs, j, tt = tried
                chain.append((name, args, attrs, j))
                types.append(tt)
                break
    last = chain[-1] if chain else None
    repeatable = (last is not None and len(last[1]) == 1 and last[3] is None
                  and types[-1] == types[last[1][0]])
    wraps = ["none", "cond", "case"] + (["while"] if repeatable else [])
    return {"seed": seed, "values": [_values(rng, s, dt) for s in (a, b)], "chain": chain,
            "wrap": str(rng.choice(wraps)), "k": int(rng.integers(0, 3)),
            "variable": bool(rng.random() < 0.3),
            # flowjit does not differentiate complex tensors (README, Differences from TF)
            "grad": bool(rng.random() < 0.5) and not any(t.dtype.kind == "c" for t in types)}


def _program_lines(prog) -> list:
    code = ["def program(x0, x1):", "    v = [x0, x1]"]
    for name, args, attrs, out in prog["chain"]:
        ins = ", ".join(f"v[{i}]" for i in args)
        pick = "" if out is None else f"[{out}]"
        code.append(f"    v.append(apply({name!r}, ({ins},), {attrs!r}){pick})")
    code += ["    " + ln for ln in _WRAP_SOURCE[prog["wrap"]](prog)]
    return code + ["    return v[-1]"]


def _literal(a) -> str:
    """Python code that makes the array `a` (NaN and inf print as `nan`, `inf`)."""
    if a.dtype.kind == "c":
        return f"({_literal(a.real)} + 1j * {_literal(a.imag)}).astype(np.{a.dtype.name})"
    dt = "ml_dtypes.bfloat16" if a.dtype == BF16 else f"np.dtype({a.dtype.name!r})"
    values = a.astype(np.float64) if a.dtype == BF16 else a
    return f"np.array({values.tolist()!r}).astype({dt}).reshape({a.shape})"


def source(prog: dict) -> str:
    """The program as runnable Python (the repro printed for a mismatch)."""
    lines = ["import numpy as np, ml_dtypes", "import flowjit as tf",
             "from flowjit.frontend.eager.dispatch import apply", "nan, inf = np.nan, np.inf", ""]
    lines += _program_lines(prog)
    lines += [f"x{i} = tf.constant({_literal(v)})" for i, v in enumerate(prog["values"])]
    if prog.get("variable"):
        lines += ["var = tf.Variable(tf.zeros_like(program(x0, x1)))",
                  "def run(x0, x1):", "    var.assign(program(x0, x1))",
                  "    return var.read_value()"]
    elif prog.get("grad"):
        lines += ["def run(x0, x1):", "    with tf.GradientTape() as tape:",
                  "        tape.watch(x0)", "        y = program(x0, x1)",
                  "        s = tf.reduce_sum(tf.cast(y, tf.float32))",
                  "    return y, tape.gradient(s, x0)"]
    else:
        lines += ["run = program"]
    lines += ["print(run(x0, x1))", "print(tf.function(run)(x0, x1))",
              "print(tf.function(run, jit_compile=True)(x0, x1))"]
    return "\n".join(lines)


# Control flow around the chain's result; each entry is the code `source` prints for it.
_WRAP_SOURCE = {
    "none": lambda p: [],
    "cond": lambda p: ["pred = tf.reduce_sum(tf.cast(v[0], tf.float32)) > 0",
                       "v.append(tf.cond(pred, lambda: tf.identity(v[-1]), "
                       "lambda: tf.zeros_like(v[-1])))"],
    "case": lambda p: [f"v.append(tf.switch_case(tf.constant({p['k']}), "
                       "[lambda: tf.zeros_like(v[-1]), lambda: tf.identity(v[-1])]))"],
    "while": lambda p: [f"op, arg = {p['chain'][-1][0]!r}, v[{p['chain'][-1][1][0]}]",
                        f"attrs = {p['chain'][-1][2]!r}",
                        f"v.append(tf.while_loop(lambda i, a: i < {p['k']}, "
                        "lambda i, a: (i + 1, apply(op, (a,), attrs)), [0, arg], "
                        f"maximum_iterations={p['k']})[1])"],
}


# --- running ----------------------------------------------------------------------------------
def _build(prog):
    """The program as a Python function of (x0, x1)."""
    import flowjit as tf
    from ..frontend.eager.dispatch import apply
    env = {"tf": tf, "apply": apply}
    # the generated code itself, so a run is exactly the repro `source` prints
    exec("\n".join(_program_lines(prog)), env)  # noqa: S102
    return env["program"]


def _inputs(prog):
    import flowjit as tf
    return [tf.constant(v) for v in prog["values"]]


def close(actual, expected, nan_any: bool = False, nonfinite_any: bool = False,
          tol: float | None = None, normwise: bool = False, nan_either: bool = False,
          _scale: float = 1.0) -> bool:
    """The tolerance policy (see the module docstring); `nan_any`: where `expected` is NaN,
    `actual` may be anything (the XLA_MASKED_GRADIENTS allowance); `nan_either`: likewise
    where either is NaN (XLA_NAN_EITHER); `nonfinite_any`: where
    either is NaN or infinite, anything (XLA's complex special values); `tol` replaces TOL[dtype] (the
    program's least precise float, for XLA); `normwise`: the absolute tolerance is scaled
    by the largest finite |expected| (XLA_NORMWISE)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return False
    dt = expected.dtype
    if normwise and expected.dtype.kind in "fc":
        finite = np.abs(expected[np.isfinite(expected)])
        _scale = max(1.0, float(finite.max())) if finite.size else 1.0
    if dt.kind == "c":
        return all(close(a, e, nan_any, nonfinite_any, tol, nan_either=nan_either,
                         _scale=_scale) for a, e in
                   ((actual.real, expected.real), (actual.imag, expected.imag)))
    if dt.kind not in "f" and dt != BF16:
        return bool(np.array_equal(actual, expected))
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    tiny = float(ml_dtypes.finfo(dt).tiny)
    a[np.abs(a) < tiny], e[np.abs(e) < tiny] = 0.0, 0.0   # XLA flushes subnormals
    if nan_either:
        e[np.isnan(a)] = np.nan
    if nan_any or nan_either:
        a[np.isnan(e)] = np.nan
    if nonfinite_any:
        special = ~np.isfinite(a) | ~np.isfinite(e)
        a[special] = e[special]
    if not np.array_equal(np.isnan(a), np.isnan(e)):
        return False
    inf = np.isinf(e) | np.isinf(a)
    if not np.array_equal(a[inf], e[inf]):
        return False
    ok = ~np.isnan(e) & ~inf
    tol = max(TOL[dt], tol or 0.0)
    return bool(np.allclose(a[ok], e[ok], rtol=tol, atol=tol * _scale))


def _with_variable(fn, var):
    """The program's result stored in a Variable and read back."""
    def stored(x0, x1):
        var.assign(fn(x0, x1))
        return var.read_value()
    return stored


def _with_gradient(fn):
    """The program's result and d sum(result) / d x0; `grad.disconnected` tells whether the
    last call's tape found no path (None, returned as zeros)."""
    import flowjit as tf

    def grad(x0, x1):
        with tf.GradientTape() as tape:
            tape.watch(x0)
            y = fn(x0, x1)
            s = tf.reduce_sum(tf.cast(y, tf.float32))
        g = tape.gradient(s, x0)
        grad.disconnected = g is None
        return y, (tf.zeros_like(x0) if g is None else g)
    return grad


def _numpy(out):
    return tuple(np.asarray(o.numpy()) for o in out) if isinstance(out, tuple) else \
        (np.asarray(out.numpy()),)


def _runs(call) -> bool:
    try:
        call()
    except Exception:  # noqa: BLE001
        return False
    return True


def _documented_refusal(prog, mode: str, e: Exception) -> bool:
    """Whether `mode` raising `e` where eager returned is a documented limit (the module
    docstring), not a mismatch."""
    text = str(e)
    if (mode, type(e).__name__) in DOCUMENTED_REFUSALS:
        return True
    if mode == "xla" and (XLA_NOT_CONSTANT in text or XLA_NO_KERNEL in text):
        return True
    if mode == "unknown_dims" and any(m in text for m in UNKNOWN_DIMS_LIMITS):
        return True
    return bool(prog["wrap"] != "none" and prog.get("grad") and
                UNRUN_BRANCH_GRADIENT.get(type(e), "\0") in text)


def _float_input(v) -> bool:
    return v.dtype.kind in "fc" or v.dtype == BF16


def _wide(v):
    return v.astype(np.complex128 if v.dtype.kind == "c" else np.float64)


def _extreme(v) -> bool:
    """Whether float array `v` holds a NaN, an infinity or a huge value (SPECIAL's 1e30)."""
    if not _float_input(v):
        return False
    parts = (v.real, v.imag) if v.dtype.kind == "c" else (v,)
    return any(not (np.abs(p.astype(np.float64)) < 1e30).all() for p in parts)


def _moved(fn, values, sign: int):
    """Eager's result with each element of each float input scaled by 1 +- PERTURB_ULPS * eps,
    the signs drawn once per element (a common scale would move a matrix function along its
    best-conditioned direction only), all flipped for sign = -1."""
    import flowjit as tf
    rng = np.random.default_rng(0)
    moved = []
    for v in values:
        if _float_input(v):
            eps = float(ml_dtypes.finfo(v.real.dtype).eps)
            signs = rng.choice([-1.0, 1.0], size=v.shape) * sign
            v = (v * (1 + signs * PERTURB_ULPS * eps)).astype(v.dtype)
        moved.append(v)
    return _numpy(fn(*[tf.constant(m) for m in moved]))


def _within_conditioning(fn, values, got, want, normwise: bool = False) -> tuple | None:
    """`got` with every float or complex element that lies within twice eager's own spread
    under moved inputs (PERTURB_ULPS) replaced by eager's, or None where no input is a float
    or a moved run raises. `normwise`: each result's largest spread is every element's (a
    matrix function's error is bounded normwise: seed 369510, logm of logm of a matrix
    whose first logarithm is nearly singular, 0.18 apart in a result of norm 1.2e7)."""
    if not any(_float_input(v) for v in values):
        return None
    spread = [np.zeros(np.shape(w)) for w in want]
    try:
        for sign in (1, -1):
            for i, (m, w) in enumerate(zip(_moved(fn, values, sign), want)):
                if _float_input(w) and m.shape == w.shape:
                    d = np.abs(_wide(m) - _wide(w))
                    spread[i] = np.fmax(spread[i], np.where(np.isfinite(d), d, 0.0))
    except Exception:  # noqa: BLE001 - a moved input the program refuses: no allowance
        return None
    out = []
    for g, w, s in zip(got, want, spread):
        if normwise and s.size:
            s = np.full_like(s, s.max())
        if _float_input(w) and g.shape == w.shape:
            near = np.abs(_wide(g) - _wide(w)) <= 2 * s
            g = np.where(near, w, g).astype(w.dtype)
        out.append(g)
    return tuple(out)


def run_program(prog) -> dict:
    """Eager result, then every mode against it. Returns {"status", "detail"}."""
    import flowjit as tf
    from ..ir.errors import InvalidArgumentError
    fn = forward = _build(prog)
    xs = _inputs(prog)
    try:
        want = _numpy(fn(*xs))
    except Exception as e:  # noqa: BLE001 - eager refused the program; others just must not crash
        want, eager_error = None, type(e).__name__
    disconnected = masked = False
    undetected = any(c[0] in XLA_NAN_UNDETECTED for c in prog["chain"])
    extreme_input = any(_extreme(v) for v in prog["values"])
    int_min_input = any(v.dtype.kind == "i" and (v == np.iinfo(v.dtype).min).any()
                        for v in prog["values"])
    xla_unchecked = any(c[0] in XLA_UNCHECKED or
                        (extreme_input and c[0] in XLA_NONFINITE_UNCHECKED) or
                        (int_min_input and c[0] in XLA_INT_MIN_UNCHECKED)
                        for c in prog["chain"])
    x0 = prog["values"][0]
    xla_allowed = {"tol": TOL.get(x0.dtype),   # f16/bf16 values evaluated in f32 by XLA
                   "normwise": any(c[0] in XLA_NORMWISE for c in prog["chain"]),
                   "nan_either": any(c[0] in XLA_NAN_EITHER for c in prog["chain"]),
                   # inputs with NaN/Inf parts, or finite ones overflowing inside (seed
                   # 305225: tensordot of 1e30 parts gives inf+nanj eagerly, inf-4e30j in XLA)
                   "nonfinite_any": x0.dtype.kind == "c"}
    if want is not None and prog.get("variable"):
        fn = _with_variable(fn, tf.Variable(np.zeros_like(want[0])))
    elif want is not None and prog.get("grad") and xs[0].dtype.is_floating:
        fn = _with_gradient(fn)
        try:
            want = _numpy(fn(*xs))
            disconnected = fn.disconnected
        except Exception as e:  # noqa: BLE001 - e.g. an op without a gradient
            want, eager_error = None, type(e).__name__
        masked = any(c[0] in XLA_MASKED_GRADIENTS for c in prog["chain"])
    options = {
        "executor": {},
        "executor_no_passes": {"passes": ""},
        "unknown_dims": {"input_signature": [
            tf.TensorSpec([None] * len(x.shape), x.dtype) for x in xs]},
        "xla": {"jit_compile": True},
    }
    for mode, kw in options.items():
        try:
            got = _numpy(tf.function(fn, **kw)(*xs))
        except Exception as e:  # noqa: BLE001
            if _documented_refusal(prog, mode, e):
                continue
            # Where eager's gradient is disconnected, the traced one still runs the backward
            # of every op before the cond, with a zero upstream, as TF's does: its kernels may
            # refuse the values (TF 2.21: the slogdet gradient's matrix_inverse raises "Input
            # is not invertible." in tf.function where the eager gradient is None; seed
            # 357845), an InvalidArgumentError the forward program alone does not raise.
            if disconnected and isinstance(e, InvalidArgumentError) and \
                    _runs(lambda: tf.function(forward, **kw)(*xs)):
                continue
            if want is not None:
                return {"status": "mismatch", "detail": f"{mode}: raised {type(e).__name__}: "
                        f"{str(e)[:300]} (eager returned)"}
            continue
        if want is None or (mode == "xla" and xla_unchecked):
            continue
        if disconnected:   # the traced gradient is the reference (module docstring)
            want, disconnected = (want[0], got[1]), False
        allowed = xla_allowed if mode == "xla" else {}

        # XLA's complex special values reach integer and bool results too (TF 2.21:
        # is_nan(abs(nan + inf j)) is True under jit_compile, False eagerly; seed 365259)
        exact_unchecked = mode == "xla" and x0.dtype.kind == "c" and extreme_input

        def agrees(got):
            return all(close(g, w, nan_any=mode == "xla" and (undetected or masked and i == 1),
                             **allowed)
                       for i, (g, w) in enumerate(zip(got, want))
                       if not (exact_unchecked and w.dtype.kind in "biu"))
        if not agrees(got):
            conditioned = _within_conditioning(fn, prog["values"], got, want,
                                               normwise=allowed.get("normwise", False))
            if conditioned is None or not agrees(conditioned):
                return {"status": "mismatch", "detail": f"{mode}: {got!r} vs eager {want!r}"}
    return {"status": "ok" if want is not None else f"eager-error:{eager_error}", "detail": ""}


def shrink(prog) -> dict:
    """A smaller program that still fails: drop trailing ops while it keeps failing."""
    def fails(p):
        try:
            return run_program(p)["status"] == "mismatch"
        except Exception:  # noqa: BLE001
            return False
    while len(prog["chain"]) > 1:
        # a while loop repeats the last op, which changes: the shorter program has none
        shorter = {**prog, "chain": prog["chain"][:-1],
                   "wrap": "none" if prog["wrap"] == "while" else prog["wrap"]}
        if not fails(shorter):
            break
        prog = shorter
    return prog


def _worker(seeds):
    """Run programs, one JSON line each (flushed, so the parent knows where an abort hit)."""
    for seed in seeds:
        prog = generate(seed)
        print(json.dumps({"seed": seed, "start": True}), flush=True)
        res = run_program(prog)
        if res["status"] == "mismatch":
            res["repro"] = source(shrink(prog))
        print(json.dumps({"seed": seed, **res}), flush=True)


def worker_command(seeds) -> list:
    return [sys.executable, "-m", "flowjit.testing.fuzz", "--worker", ",".join(map(str, seeds))]


def run_worker(command, env, program_timeout: float):
    """Run a worker subprocess: the result records it printed, the seed it was running
    when it died or ran over `program_timeout` seconds (None when it finished them all),
    its stderr and return code (-9: killed for the timeout). Reading line by line, so a
    program that never returns (a kernel looping forever) is a finding, not a stalled
    run."""
    err = tempfile.TemporaryFile()   # a file, not a pipe: a full pipe would block the worker
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err, text=True, env=env)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout] + [lines.put(None)],
                     daemon=True).start()
    records, running = [], None
    while True:
        try:
            line = lines.get(timeout=program_timeout)
        except queue.Empty:
            proc.kill()
            break
        if line is None:
            break
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if r.get("start"):
            running = r["seed"]
        else:
            records.append(r)
            running = None
    proc.wait()
    with err:
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    return records, running, stderr, proc.returncode


def run(programs: int, seed: int, chunk: int = 100, program_timeout: float = 300,
        progress: bool = False) -> dict:
    """Run `programs` programs (seeds seed..seed+programs-1) in worker subprocesses; one
    running longer than `program_timeout` seconds counts as a hang."""
    counts = {"programs": 0, "ok": 0, "mismatch": 0, "crash": 0, "hang": 0, "eager_error": 0}
    failures = []
    todo = list(range(seed, seed + programs))
    # A value-sized result (bincount of 2**31 - 1) is legal but would hold gigabytes in each
    # of the modes at once: workers refuse allocations over 1 GiB (ResourceExhaustedError).
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    env.setdefault("FLOWJIT_MAX_ALLOCATION_BYTES", str(1 << 30))
    while todo:
        batch, todo = todo[:chunk], todo[chunk:]
        records, running, stderr, returncode = run_worker(worker_command(batch), env,
                                                          program_timeout)
        done = set()
        for r in records:
            if r["status"] == "mismatch":   # print as found: a long run may be cut short
                print(f"--- seed {r['seed']}: {r['detail']}\n{r.get('repro', '')}",
                      file=sys.stderr, flush=True)
            done.add(r["seed"])
            counts["programs"] += 1
            st = r["status"]
            counts["eager_error" if st.startswith("eager-error") else st] += 1
            if st == "mismatch":
                failures.append(r)
        lost = [s for s in batch if s not in done]
        if lost:   # the worker hung or died at lost[0]: count it, resume after it
            hung = running == lost[0] and returncode == -9
            status = "hang" if hung else "crash"
            counts["programs"] += 1
            counts[status] += 1
            detail = (f"still running after {program_timeout:.0f} s" if hung
                      else stderr[-500:])
            failures.append({"seed": lost[0], "status": status, "detail": detail,
                             "repro": source(generate(lost[0]))})
            todo = lost[1:] + todo
        if progress:
            print(json.dumps(counts), file=sys.stderr, flush=True)
    return {"counts": counts, "failures": failures}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m flowjit.testing.fuzz", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--programs", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        _worker([int(s) for s in args.worker.split(",")])
        return 0
    result = run(args.programs, args.seed, progress=True)   # mismatches print as found
    for f in result["failures"]:
        if f["status"] in ("crash", "hang"):
            print(f"--- seed {f['seed']}: {f['status']}: {f['detail']}\n{f['repro']}")
    print(json.dumps(result["counts"]))
    c = result["counts"]
    return 1 if c["mismatch"] or c["crash"] or c["hang"] else 0


if __name__ == "__main__":
    sys.exit(main())
