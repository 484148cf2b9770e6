"""Properties of the whole pass pipeline on random programs, and its configuration API.

Random df programs are built through the public API: hypothesis draws a list of
instructions (elementwise ops, matmuls, reductions, reshapes, transposes, constants,
duplicated subexpressions, ops that differ only in attributes, identity / neg / cast chains,
dense layers, conds and counted loops) over square f32 tensors, and they run as
`tf.function`s. The reference for the default pipeline
(`passes=None`) is the same program with no pass at all (`passes=""`), in the graph executor
and through XLA; optimizing the optimized module again must change nothing.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flowjit as tf
from flowjit.ir.printing import parse_module, print_module
from flowjit.passes import pipeline as P

N = 3  # every value is f32[N, N], so any two compose (matmul, transpose, reshape, +)

# --- random programs -------------------------------------------------------------------------
UNARY = {
    "neg": tf.negative, "abs": tf.abs, "tanh": tf.tanh, "relu": tf.nn.relu,
    "sigmoid": tf.sigmoid, "square": tf.square, "exp": lambda x: tf.exp(tf.tanh(x)),
    "identity": tf.identity,
}
BINARY = {
    "add": tf.add, "sub": tf.subtract, "mul": tf.multiply, "max": tf.maximum,
    "min": tf.minimum,
    "matmul": tf.matmul,
    "matmul_tb": lambda a, b: tf.matmul(a, b, transpose_b=True),
}
# chains the arithmetic pass may (or, for the lossy ones, must not) collapse
CHAINS = {
    "neg_neg": lambda x: -(-x),
    "identity_chain": lambda x: tf.identity(tf.identity(tf.identity(x))),
    "cast_f64_f32": lambda x: tf.cast(tf.cast(x, tf.float64), tf.float32),
    "cast_f16_f32": lambda x: tf.cast(tf.cast(x, tf.float16), tf.float32),    # lossy
    "cast_i32_f32": lambda x: tf.cast(tf.cast(tf.clip_by_value(x, -50.0, 50.0), tf.int32),
                                      tf.float32),                          # lossy
    "cast_same": lambda x: tf.cast(x, tf.float32),
    "transpose2": lambda x: tf.transpose(tf.transpose(x)),
    "transpose": tf.transpose,
    "reshape2": lambda x: tf.reshape(tf.reshape(x, [N * N]), [N, N]),
    "reshape_t": lambda x: tf.reshape(tf.transpose(tf.reshape(x, [N, N])), [N, N]),
    "row_sum": lambda x: x + tf.reduce_sum(x, axis=1, keepdims=True),
    "col_max": lambda x: x - tf.reduce_max(x, axis=0, keepdims=True),
    "mean_all": lambda x: x * tf.reduce_mean(x),
}
# x (op) constant; the neutral elements test the arithmetic pass's IEEE guards
CONST_OPS = {
    "add_c": lambda x, c: x + c, "sub_c": lambda x, c: x - c, "mul_c": lambda x, c: x * c,
    "c_mul": lambda x, c: c * x, "c_add": lambda x, c: c + x, "div_c": lambda x, c: x / c,
}
SPECIAL_CONSTS = [0.0, -0.0, 1.0, -1.0, 2.0, 0.5]
# the same op on the same operands with different attributes: never one value (cse's guard)
SIBLINGS = {
    "matmul_ta": lambda a, b: tf.matmul(a, b) + tf.matmul(a, b, transpose_a=True),
    "matmul_tb": lambda a, b: tf.matmul(a, b) - tf.matmul(a, b, transpose_b=True),
    "reduce_axes": lambda a, b: tf.reduce_sum(a, 0, keepdims=True) *
    tf.reduce_sum(a, 1, keepdims=True) + b,
    "casts": lambda a, b: tf.cast(tf.cast(a, tf.float16), tf.float32) -
    tf.cast(tf.cast(a, tf.bfloat16), tf.float32),
    "consts": lambda a, b: a * tf.constant(np.float32(2.0)) + a * tf.constant(np.float32(3.0)),
    "keepdims": lambda a, b: tf.reduce_max(a, 1, keepdims=True) +
    tf.reshape(tf.reduce_max(a, 1), [1, N]),
}


def _cond(a, b):
    # a subexpression computed above and again inside a branch (scoped cse), data-dependent
    # predicate
    ab = tf.matmul(a, b)
    return tf.cond(tf.reduce_sum(a) > 0.0, lambda: tf.matmul(a, b) * 2.0 + ab,
                   lambda: tf.tanh(b) - ab)


def _const_cond(a, b):
    # a constant predicate: constant folding inlines the taken branch
    return tf.cond(tf.constant(True), lambda: a + tf.matmul(b, b), lambda: a * 0.0)


def _loop(a, b):
    # a loop-invariant product (licm) and a counted loop
    def body(i, v):
        return i + 1, v * 0.5 + tf.matmul(tf.tanh(b), tf.transpose(b))
    return tf.while_loop(lambda i, v: i < 3, body, (tf.constant(0), a))[1]


CONTROL = {"cond": _cond, "const_cond": _const_cond, "loop": _loop}


def _const(kind: int, value: float, seed: int):
    """A constant: a scalar, a row vector, a matrix, or a folded expression of constants."""
    rng = np.random.default_rng(seed)
    if kind == 0:
        return tf.constant(np.float32(value))
    if kind == 1:
        return tf.constant(np.full([N], value, np.float32))
    if kind == 2:
        return tf.constant(rng.uniform(-2, 2, [N, N]).astype(np.float32))
    # constant subexpression: folded by constant-folding
    base = tf.constant(rng.uniform(-2, 2, [N, N]).astype(np.float32))
    return tf.tanh(base) * 2.0 + tf.constant(np.float32(value))


instructions = st.lists(
    st.tuples(
        st.sampled_from(["unary", "binary", "chain", "const", "dup", "dense", "siblings",
                         "control", "state"]),
        st.integers(0, 10**6), st.integers(0, 10**6),          # operand picks
        st.integers(0, 10**6),                                 # op pick
        st.integers(0, 3), st.sampled_from(SPECIAL_CONSTS),    # constant kind / value
    ),
    min_size=1, max_size=12)


def make_program(instrs, n_out: int, var=None):
    """A Python function of (x, y) executing `instrs` over a pool of values; `var` (a
    variable) is read and written by "state" instructions (token-ordered ops that no pass
    may drop, merge or reorder)."""
    def assign_add(a):
        var.assign_add(a)
        return var.read_value()

    def assign_half(a):
        var.assign(a * 0.5)
        return var.read_value() + a

    state_ops = [assign_add, assign_half, lambda a: var.read_value() * a]

    def program(x, y):
        pool = [x, y]
        history = []   # (fn, operand indices) for "dup"

        def apply(fn, idx):
            out = fn(*[pool[i] for i in idx])
            history.append((fn, idx))
            pool.append(out)

        for kind, a, b, pick, ckind, cval in instrs:
            i, j = a % len(pool), b % len(pool)
            if kind == "unary":
                apply(UNARY[sorted(UNARY)[pick % len(UNARY)]], (i,))
            elif kind == "binary":
                apply(BINARY[sorted(BINARY)[pick % len(BINARY)]], (i, j))
            elif kind == "chain":
                apply(CHAINS[sorted(CHAINS)[pick % len(CHAINS)]], (i,))
            elif kind == "const":
                name = sorted(CONST_OPS)[pick % len(CONST_OPS)]
                c = _const(ckind, cval, pick)
                pool.append(CONST_OPS[name](pool[i], c))
            elif kind == "state" and var is not None:
                apply(state_ops[pick % len(state_ops)], (i,))
            elif kind == "control":
                apply(CONTROL[sorted(CONTROL)[pick % len(CONTROL)]], (i, j))
            elif kind == "siblings":
                apply(SIBLINGS[sorted(SIBLINGS)[pick % len(SIBLINGS)]], (i, j))
            elif kind == "dup" and history:
                fn, idx = history[pick % len(history)]
                pool.append(fn(*[pool[k] for k in idx]))   # the same subexpression again
            else:  # dense layer: relu(a @ W + b), W and b constants (remapper's pattern)
                rng = np.random.default_rng(pick)
                w = tf.constant(rng.uniform(-1, 1, [N, N]).astype(np.float32))
                bias = tf.constant(rng.uniform(-1, 1, [N]).astype(np.float32))
                pool.append(tf.nn.relu(tf.matmul(pool[i], w) + bias))
        # the last values and one early value are outputs; the rest may be dead
        outs = pool[-n_out:] + [pool[(len(pool) * 7919) % len(pool)]]
        return tuple(outs)
    return program


def _inputs(seed: int, special: bool):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-3, 3, [N, N]).astype(np.float32)
    y = rng.uniform(-3, 3, [N, N]).astype(np.float32)
    if special:  # IEEE corner cases the rewrites must keep
        x.flat[rng.integers(0, N * N, 3)] = [np.nan, -0.0, np.inf]
        y.flat[rng.integers(0, N * N, 2)] = [-np.inf, -0.0]
    return x, y


def _assert_same(actual, expected, rtol, what):
    """Equal up to `rtol`, with NaN, +-Inf and the sign of exact zeros in the same places."""
    for k, (a, e) in enumerate(zip(actual, expected)):
        a, e = np.asarray(a), np.asarray(e)
        assert a.dtype == e.dtype and a.shape == e.shape, (what, k, a.dtype, e.dtype)
        assert np.array_equal(np.isnan(a), np.isnan(e)), (what, k, a, e)
        assert np.array_equal(np.isposinf(a), np.isposinf(e)), (what, k, a, e)
        assert np.array_equal(np.isneginf(a), np.isneginf(e)), (what, k, a, e)
        zeros = (a == 0) & (e == 0)
        assert np.array_equal(np.signbit(a[zeros]), np.signbit(e[zeros])), (what, k, a, e)
        fin = np.isfinite(e) & np.isfinite(a)
        scale = max(1.0, float(np.max(np.abs(e[fin]), initial=0.0)))
        np.testing.assert_allclose(a[fin], e[fin], rtol=rtol, atol=rtol * scale,
                                   err_msg=f"{what}, output {k}")


def _run(instrs, n_out, passes, x, y, jit=False):
    """Outputs of the program, then the variable's final value."""
    var = tf.Variable(np.full([N, N], 0.25, np.float32))
    f = tf.function(make_program(instrs, n_out, var), passes=passes, jit_compile=jit,
                    autograph=False)
    outs = [t.numpy() for t in f(tf.constant(x), tf.constant(y))]
    return outs + [var.numpy()]


# --- equivalence and idempotence ---------------------------------------------------------------
@given(instrs=instructions, n_out=st.integers(1, 3), seed=st.integers(0, 2**16),
       special=st.booleans())
@settings(max_examples=100)
def test_default_pipeline_matches_no_passes_in_executor(instrs, n_out, seed, special):
    x, y = _inputs(seed, special)
    expected = _run(instrs, n_out, "", x, y)
    actual = _run(instrs, n_out, None, x, y)
    # the executor runs the NumPy kernels on both sides; folding uses the same kernels, so
    # only a fused kernel's own rounding could differ
    _assert_same(actual, expected, 1e-6, "executor")


@given(instrs=instructions, n_out=st.integers(1, 3), seed=st.integers(0, 2**16),
       special=st.booleans())
@settings(max_examples=25)
def test_default_pipeline_matches_no_passes_through_xla(instrs, n_out, seed, special):
    x, y = _inputs(seed, special)
    expected = _run(instrs, n_out, "", x, y, jit=True)
    actual = _run(instrs, n_out, None, x, y, jit=True)
    # constant folding evaluates tanh with NumPy where XLA would use its own (ulp level)
    _assert_same(actual, expected, 2e-5, "xla")


@given(instrs=instructions, n_out=st.integers(1, 3))
@settings(max_examples=60)
def test_default_pipeline_is_idempotent(instrs, n_out):
    var = tf.Variable(np.zeros([N, N], np.float32))
    f = tf.function(make_program(instrs, n_out, var), autograph=False)
    cf = f.get_concrete_function(tf.TensorSpec([N, N]), tf.TensorSpec([N, N]))
    optimized = cf.optimized_module()
    once = print_module(optimized)
    again = optimized.clone()
    report = P.run_pipeline(again)
    assert print_module(again) == once, report.table()
    # and nothing of the unoptimized module's outputs got lost: same signature
    assert once.splitlines()[1] == print_module(cf.dataflow_module()).splitlines()[1]


def test_pipeline_shrinks_a_redundant_program():
    """The pipeline does work at all: duplicates, foldable constants, dead values and chains
    go (counted on the printed IR, independently of the pipeline's own op counts)."""
    def program(x, y):
        c = tf.constant(np.float32(2.0)) * tf.constant(np.float32(3.0))
        a = tf.matmul(x, y) * c
        b = tf.matmul(x, y) * c
        _ = tf.exp(a)                                   # dead
        return -(-(a + b)), tf.identity(tf.identity(y))
    f = tf.function(program)
    cf = f.get_concrete_function(tf.TensorSpec([N, N]), tf.TensorSpec([N, N]))
    before = print_module(cf.dataflow_module())
    after = print_module(cf.optimized_module())
    assert before.count("df.matmul") == 2 and after.count("df.matmul") == 1
    assert "df.exp" in before and "df.exp" not in after
    assert "df.identity" not in after and "df.neg" not in after
    x, y = _inputs(1, False)
    expected = ((x @ y) * 6 + (x @ y) * 6, y)
    actual = f(tf.constant(x), tf.constant(y))
    np.testing.assert_allclose(actual[0].numpy(), expected[0], rtol=1e-6)
    np.testing.assert_array_equal(actual[1].numpy(), expected[1])


# --- incremental verification at the end of the pipeline ------------------------------------
class _BreakType:
    """A deliberately wrong pass: changes an op's result type in place."""
    name = "test-break-type"

    def apply(self, ctx, module):
        from xdsl.dialects.builtin import TensorType, f32
        for op in module.walk():
            if op.name == "df.neg":
                op.results[0]._type = TensorType(f32, [N + 1, N])
                return


class _BreakOperand:
    """A deliberately wrong pass: feeds a value of another type to an op."""
    name = "test-break-operand"

    def apply(self, ctx, module):
        ops = list(module.walk())
        red = next(o for o in ops if o.name == "df.reduce_sum")
        neg = next(o for o in ops if o.name == "df.neg")
        neg.operands[0] = red.results[0]


def _module_for_breaking():
    def program(x):
        return -x, tf.reduce_sum(x)
    f = tf.function(program, passes="")
    return f.get_concrete_function(tf.TensorSpec([N, N])).dataflow_module().clone()


@pytest.mark.parametrize("bad", [_BreakType, _BreakOperand])
def test_pipeline_verifies_what_a_pass_changed(bad):
    from xdsl.utils.exceptions import VerifyException
    with pytest.raises(VerifyException):
        P.run_pipeline(_module_for_breaking(), [bad()])
    # the full verifier agrees
    m = _module_for_breaking()
    P.run_pipeline(m, [bad()], verify="none")
    with pytest.raises(VerifyException):
        m.verify()


def test_pass_exceptions_name_the_pass():
    class Boom:
        name = "test-boom"

        def apply(self, ctx, module):
            raise RuntimeError("kaboom")
    with pytest.raises(RuntimeError) as info:
        P.run_pipeline(_module_for_breaking(), [Boom()])
    assert info.value.pass_name == "test-boom"
    assert any("test-boom" in n for n in info.value.__notes__)


# --- pipeline specs ------------------------------------------------------------------------
@pytest.mark.parametrize("spec, words", [
    ("cse,,dce", ["Expected pass name"]),
    ("cse,no-such-pass", ["unknown pass 'no-such-pass'", "cse", "dce"]),
    ("cse{bogus=1}", ["'cse'", "bogus"]),
    ("constant-folding{max-size=big}", ["'constant-folding'", "max-size"]),
])
def test_bad_pass_specs_raise_value_error(spec, words):
    f = tf.function(lambda x: x + 1.0, passes=spec, autograph=False)
    with pytest.raises(ValueError) as info:   # (xDSL's spec syntax error is a BaseException)
        f(tf.constant([1.0]))
    for w in words:
        assert w in str(info.value)


def test_pass_options_from_spec_are_typed():
    passes = P.parse_spec("constant-folding{max-size=7},cse")
    assert [p.name for p in passes] == ["constant-folding", "cse"]
    assert passes[0].max_size == 7 and isinstance(passes[0].max_size, int)


# --- TF's optimizer options ---------------------------------------------------------------------
# TF's documented `tf.config.optimizer.set_experimental_options` keys.
TF_OPTION_KEYS = [
    "layout_optimizer", "constant_folding", "shape_optimization", "remapping",
    "arithmetic_optimization", "dependency_optimization", "loop_optimization",
    "function_optimization", "debug_stripper", "disable_model_pruning",
    "scoped_allocator_optimization", "pin_to_host_optimization", "implementation_selector",
    "auto_mixed_precision", "disable_meta_optimizer", "min_graph_nodes",
]


@pytest.fixture
def fresh_options(monkeypatch):
    """Each test starts from TF's defaults and leaves the global options as it found them."""
    before = tf.config.optimizer.get_experimental_options()
    monkeypatch.setattr(P, "_options", {})
    yield
    monkeypatch.undo()
    assert tf.config.optimizer.get_experimental_options() == before


def test_unknown_optimizer_option_lists_the_valid_ones(fresh_options):
    with pytest.raises(ValueError) as info:
        tf.config.optimizer.set_experimental_options({"constant_foldng": False})
    msg = str(info.value)
    assert "constant_foldng" in msg
    for key in TF_OPTION_KEYS:
        assert key in msg
    assert tf.config.optimizer.get_experimental_options() == {}   # nothing was stored


def _foldable(x):
    c = tf.constant(np.arange(N * N, dtype=np.float32).reshape(N, N))
    return x + tf.exp(c * 0.5)


def test_constant_folding_option_removes_the_pass(fresh_options):
    spec = tf.TensorSpec([N, N])
    on = tf.function(_foldable).compiler_ir(spec)
    names_on = {r["name"] for r in on.pass_report()}
    assert "constant-folding" in names_on
    assert "df.exp" not in on("optimized")

    tf.config.optimizer.set_experimental_options({"constant_folding": False})
    assert tf.config.optimizer.get_experimental_options() == {"constant_folding": False}
    off = tf.function(_foldable).compiler_ir(spec)
    names_off = {r["name"] for r in off.pass_report()}
    assert "constant-folding" not in names_off
    assert names_off == names_on - {"constant-folding"}
    assert "df.exp" in off("optimized")       # nothing folded it
    # still the same function
    x = np.random.default_rng(0).uniform(-1, 1, [N, N]).astype(np.float32)
    expected = x + np.exp(np.arange(N * N, dtype=np.float32).reshape(N, N) * 0.5)
    np.testing.assert_allclose(tf.function(_foldable)(tf.constant(x)).numpy(), expected,
                               rtol=1e-6)


def test_disable_meta_optimizer_runs_nothing(fresh_options):
    tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": True})
    ir = tf.function(_foldable).compiler_ir(tf.TensorSpec([N, N]))
    assert ir.pass_report() == []
    assert ir("optimized") == ir("dataflow")


# --- pass_report and after:<pass> ----------------------------------------------------------------
def _walk_count(text: str) -> int:
    """Ops in printed IR, counted by xDSL's own walker (not the pipeline's counter)."""
    return sum(1 for _ in parse_module(text).walk())


def _dup_and_dead(x, y):
    a = tf.matmul(x, y)
    b = tf.matmul(x, y)
    _ = tf.tanh(b)
    return a + b


def test_pass_report_records_each_pass():
    spec = tf.TensorSpec([N, N])
    ir = tf.function(_dup_and_dead, passes="cse,dce,cse").compiler_ir(spec, spec)
    report = ir.pass_report()
    assert [r["name"] for r in report] == ["cse", "dce", "cse"]
    dataflow = ir("dataflow")
    assert report[0]["ops_before"] == _walk_count(dataflow)
    for r, nxt in zip(report, report[1:]):
        assert r["ops_after"] == nxt["ops_before"]
    assert report[-1]["ops_after"] == _walk_count(ir("optimized"))
    for r in report:
        assert isinstance(r["seconds"], float) and r["seconds"] >= 0
        assert r["iteration"] == 0
    cse1, dce, cse2 = report
    assert cse1["ops_before"] - cse1["ops_after"] == 1          # the second matmul
    assert dce["ops_before"] - dce["ops_after"] == 1            # the unused tanh
    # a diff exactly when the pass changed the IR
    assert cse2["diff"] is None and cse2["ops_before"] == cse2["ops_after"]
    assert cse1["diff"].startswith("--- before cse\n+++ after cse\n")
    removed = [ln for ln in cse1["diff"].splitlines() if ln.startswith("-") and "df.matmul" in ln]
    assert len(removed) >= 1
    assert any(ln.startswith("-") and "df.tanh" in ln for ln in dce["diff"].splitlines())


def test_after_pass_stages():
    spec = tf.TensorSpec([N, N])
    ir = tf.function(_dup_and_dead, passes="cse,dce").compiler_ir(spec, spec)
    after_cse, after_dce = ir("after:cse"), ir("after:dce")
    assert after_cse.count("df.matmul") == 1 and "df.tanh" in after_cse
    assert after_dce.count("df.matmul") == 1 and "df.tanh" not in after_dce
    assert after_dce == ir("optimized")
    assert _walk_count(after_cse) == ir.pass_report()[0]["ops_after"]
    with pytest.raises(ValueError, match=r"did not run.*cse.*dce"):
        ir("after:constant-folding")


def test_default_pipeline_report_is_consistent():
    spec = tf.TensorSpec([N, N])
    ir = tf.function(_dup_and_dead).compiler_ir(spec, spec)
    report = ir.pass_report()
    assert report, "the default pipeline ran no pass"
    expected = [p for p in P.DEFAULT_SCHEDULE if p in {r["name"] for r in report}]
    assert [r["name"] for r in report if r["iteration"] == 0] == expected
    assert report[-1]["ops_after"] == _walk_count(ir("optimized"))
    # the last round changed nothing (a fixpoint), unless the round limit stopped it
    last = max(r["iteration"] for r in report)
    if last + 1 < P.MAX_ITERATIONS:
        assert all(r["diff"] is None for r in report if r["iteration"] == last)
    for r in report:
        if r["diff"] is not None:
            assert re.match(r"--- before \S+\n\+\+\+ after \S+\n", r["diff"])
