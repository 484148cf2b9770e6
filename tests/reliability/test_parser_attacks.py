"""Inputs that attack the load paths (`flowjit-opt`, the df parser, the exporter) and graph-
supplied strings: every stage costs time linear in the input, a splat stays one element, a
declared size is checked before anything is allocated, and templates, widths and patterns
from a graph are data, never code or format specs.

Growth is measured on each stage alone at two sizes ten times apart (CPU time, the best of
two runs): linear work grows about tenfold, quadratic work a hundredfold.
`FLOWJIT_SCALING_OPS=10000,100000` also times whole `flowjit-opt` runs at those sizes."""
from __future__ import annotations

import io
import json
import os
import sys
import time
import tracemalloc
from types import SimpleNamespace

import numpy as np
import pytest

from flowjit.frontend.tools import opt_cli
from flowjit.testing import opt_mutants, opt_scaling

LINEAR_ENOUGH = 35   # the largest growth accepted for a tenfold input (quadratic: ~100)


def _cpu_seconds(fn, *args) -> float:
    best = float("inf")
    for _ in range(2):
        t0 = time.process_time()
        fn(*args)
        best = min(best, time.process_time() - t0)
    return max(best, 1e-4)


def _growth(make, run, small: int) -> float:
    """How much longer `run(make(10 * small))` takes than `run(make(small))`."""
    a, b = make(small), make(10 * small)
    return _cpu_seconds(run, b) / _cpu_seconds(run, a)


def _opt(tmp_path, text, *argv):
    path = tmp_path / "in.mlir"
    path.write_text(text)
    return opt_mutants._run([str(path), *argv])


# --- parsing: locations ---------------------------------------------------------------------
def test_op_locations_come_from_a_line_index(monkeypatch):
    # xDSL's Span.get_location counts the newlines from the start of the input: once per op
    # it made parsing quadratic. The parser keeps offsets and reads them through LineIndex.
    from xdsl.utils.lexer import Span
    calls = []
    real = Span.get_location
    monkeypatch.setattr(Span, "get_location", lambda self: calls.append(1) or real(self))
    module, locs = opt_cli.parse(opt_scaling.chain(200), "in.mlir")
    assert calls == []
    ops = list(module.walk())
    assert locs[ops[2]] == (2, 3) and locs[ops[-2]] == (201, 3)  # the first neg, the last


def test_line_index_matches_counting():
    text = "ab\n\ncd\r\nxyz\n"
    index = opt_cli.LineIndex(text, first_line=7)
    for offset in range(len(text) + 1):
        line = text.count("\n", 0, offset) + 7
        col = offset - (text.rfind("\n", 0, offset) + 1) + 1
        assert index.line_col(offset) == (line, col)


def test_an_unlexable_first_token_is_a_located_error(tmp_path):
    rc, out, err = _opt(tmp_path, "\x01 func.func @f() {\n}\n")
    assert rc == 1 and out == ""
    assert ":1:1: error: " in err and "internal error" not in err


# --- dominance, the exporter ------------------------------------------------------------------
def _fake_conds(n: int):
    """A module shaped like `n` sibling conds whose branches use a value from above, as the
    dominance check walks it (regions, blocks, args, ops, operands, results)."""
    def block(args, ops):
        return SimpleNamespace(args=args, ops=ops)

    def op(operands, regions=(), results=()):
        return SimpleNamespace(name="df.op", operands=operands, regions=regions,
                               results=list(results))

    x = object()
    ops = []
    for _ in range(n):
        inner = op([x], results=[object()])
        then = SimpleNamespace(blocks=[block([], [inner, op(inner.results)])])
        other = SimpleNamespace(blocks=[block([], [op([x])])])
        ops.append(op([x], [then, other], [object()]))
    body = SimpleNamespace(blocks=[block([x], ops)])
    return SimpleNamespace(regions=[body])


def test_dominance_is_linear_in_sibling_regions():
    assert opt_cli._dominance(_fake_conds(10), {}) == []
    growth = _growth(_fake_conds, lambda m: opt_cli._dominance(m, {}), 2000)
    assert growth < LINEAR_ENOUGH, growth


def test_dominance_still_rejects_values_from_a_sibling_branch(tmp_path):
    # the first cond's else branch yields the second cond's result
    text = opt_scaling.sibling_conds(2).replace("df.yield %x : tensor<4xf32>\n  }\n  %c1",
                                                "df.yield %c1 : tensor<4xf32>\n  }\n  %c1")
    rc, _, err = _opt(tmp_path, text)
    assert rc == 1 and "'df.yield' op operand #0 does not dominate this use" in err
    assert ":6:5: error:" in err


def _outer_values_module(n: int):
    """`n` values above one cond, each used in its branch, built without parsing."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import ModuleOp, TensorType, f32, i1
    from xdsl.ir import Block, Region

    from flowjit.ir.dialect import OP_CLASSES, CondOp, YieldOp
    t = TensorType(f32, [4])
    body = Block(arg_types=[t, TensorType(i1, [])])
    x, pred = body.args
    values = [OP_CLASSES["neg"].create(operands=[x], result_types=[t]) for _ in range(n)]
    uses = [OP_CLASSES["add"].create(operands=[v.results[0], x], result_types=[t])
            for v in values]
    then = Block(uses + [YieldOp.create(operands=[uses[-1].results[0]])])
    cond = CondOp.create(operands=[pred], result_types=[t],
                         regions=[Region(then), Region(Block([YieldOp.create(operands=[x])]))])
    body.add_ops([*values, cond, func.ReturnOp(cond.results[0])])
    return ModuleOp([func.FuncOp("outer", ([t, body.args[1].type], [t]), Region(body))])


def test_exporter_is_linear_in_outer_values():
    from flowjit.ir.exporter import export_graph
    graph = export_graph(_outer_values_module(3))
    cond = next(n for n in graph.nodes if n.op == "cond")
    assert len(cond.inputs) == 1 + 3 + 1   # the predicate, three values, x (once)
    growth = _growth(_outer_values_module, export_graph, 1000)
    assert growth < LINEAR_ENOUGH, growth


# --- split-input-file, verify-diagnostics ----------------------------------------------------
def test_split_chunks_are_slices_numbered_by_offset():
    text = opt_scaling.split_chunks(3000)
    chunks = list(opt_cli._chunks(text, True))
    assert len(chunks) == 3000
    assert sum(len(c) for _, c in chunks) <= len(text)   # no padding: the file, once
    # a part starts where its marker line ends
    assert [line for line, _ in chunks[:3]] == [1, 4, 8]


def test_split_input_file_reports_file_lines(tmp_path):
    good = "func.func @f(%0: tensor<4xf32>) -> tensor<4xf32> {\n" \
           "  func.return %0 : tensor<4xf32>\n}\n"
    bad = "func.func @g(%0: tensor<4xf32>) -> tensor<4xf32> {\n" \
          "  %1 = df.nope %0 : (tensor<4xf32>) -> tensor<4xf32>\n" \
          "  func.return %1 : tensor<4xf32>\n}\n"
    rc, out, err = _opt(tmp_path, "// -----\n".join([good, good, bad]), "--split-input-file")
    assert rc == 1 and out.count("func.func @f") == 2
    assert ":10:8: error: Operation df.nope is not registered" in err


def test_expectations_are_linear_in_below_lines():
    def make(n):
        return ["  // expected-error@below {{x}}"] * n + ["%0 = df.neg"]
    ex = opt_cli.expectations(make(3))
    assert [e.line for e in ex] == [4, 4, 4]
    ex = opt_cli.expectations(["%0 = a", "// expected-error@above {{x}}",
                               "// expected-error@above {{y}}", "// expected-error@+2 {{z}}"])
    assert [e.line for e in ex] == [1, 1, 6]
    assert _growth(make, opt_cli.expectations, 2000) < LINEAR_ENOUGH


def test_diagnostics_are_matched_by_line():
    def make(n):
        lines = ["// expected-error@below {{bad}}", "op"] * n
        diags = [opt_cli.Diag("bad op", 2 * i + 2, 1) for i in range(n)]
        return lines, diags

    def check(case):
        lines, diags = case
        return opt_cli.check_expectations(diags, opt_cli.expectations(lines), "f", lines,
                                          io.StringIO())
    assert check(make(5))
    lines, diags = make(3)
    assert not check((lines, diags[:2]))
    assert _growth(make, check, 2000) < LINEAR_ENOUGH


# --- splats and declared sizes ----------------------------------------------------------------
SPLAT = """\
func.func @s(%0: tensor<100000000xf32>) -> (tensor<100000000xf32>, tensor<100000000xf32>) {
  %1 = df.const {value = dense<2.5> : tensor<100000000xf32>, dtype = f32} : () -> tensor<100000000xf32>
  %2 = df.const {value = dense<"0x0000C03F"> : tensor<100000000xf32>, dtype = f32} : () -> tensor<100000000xf32>
  %3 = df.add %0, %1 : (tensor<100000000xf32>, tensor<100000000xf32>) -> tensor<100000000xf32>
  func.return %3, %2 : tensor<100000000xf32>, tensor<100000000xf32>
}
"""


@pytest.mark.parametrize("argv", [[], ["--default-pipeline"], ["--lower-to", "stablehlo"]])
def test_a_splat_stays_one_element(tmp_path, argv):
    tracemalloc.start()
    try:
        rc, out, err = _opt(tmp_path, SPLAT, *argv)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert rc == 0, err
    assert peak < 50 * 2**20, peak   # the tensors are 400 MB each
    if argv[:1] == ["--lower-to"]:
        assert out.count("stablehlo.broadcast_in_dim") == 2
        assert "dense<2.500000e+00> : tensor<f32>" in out
    else:
        assert "dense<2.500000e+00> : tensor<100000000xf32>" in out
        assert "dense<1.500000e+00> : tensor<100000000xf32>" in out


def test_a_splat_reads_as_a_broadcast_value():
    from flowjit.ir.constants import const_value
    from flowjit.ir.printing import parse_module
    module = parse_module(SPLAT.replace("100000000", "5"))
    consts = [op for op in module.walk() if op.name == "df.const"]
    assert [len(op.attributes["value"].data.data) for op in consts] == [4, 4]
    for op, want in zip(consts, (2.5, 1.5)):
        for value in (const_value(op), op.python_attrs()["value"]):
            assert value.shape == (5,) and value.dtype == np.float32
            np.testing.assert_array_equal(value, np.full(5, want, np.float32))
            assert not value.flags.writeable


@pytest.mark.parametrize("literal, message", [
    ('dense<1.0> : tensor<99999999999999xf32>', "OOM when allocating tensor with shape"),
    ('dense<[1.0, 2.0]> : tensor<3xf32>', "Shape mismatch in dense literal"),
    ('dense<"0x0000C03F0000"> : tensor<3xf32>', "Shape mismatch in dense literal"),
])
def test_declared_sizes_are_checked_before_allocating(tmp_path, literal, message):
    ty = literal.split(" : ")[1]
    text = (f"func.func @s() -> {ty} {{\n"
            f"  %1 = df.const {{value = {literal}, dtype = f32}} : () -> {ty}\n"
            f"  func.return %1 : {ty}\n}}\n")
    rc, out, err = _opt(tmp_path, text)
    assert rc == 1 and message in err and ":2:" in err, err


# --- mutants ----------------------------------------------------------------------------------
def test_mutants_get_located_diagnostics():
    result = opt_mutants.run(mutants=40, seed=2026)
    assert not result["failures"], result["failures"][0]


# --- whole runs at large sizes (opt in) -------------------------------------------------------
@pytest.mark.skipif(not os.environ.get("FLOWJIT_SCALING_OPS"),
                    reason="set FLOWJIT_SCALING_OPS=10000,100000 to time whole runs")
@pytest.mark.parametrize("case", sorted(opt_scaling.CASES))
def test_whole_runs_scale_linearly(case):
    small, large = (int(n) for n in os.environ["FLOWJIT_SCALING_OPS"].split(","))
    run = opt_scaling.CASES[case]
    a, b = run(small), run(large)
    print(f"{case}: {small} ops {a:.2f} s, {large} ops {b:.2f} s", file=sys.stderr)
    assert b / a < LINEAR_ENOUGH * (large / small) / 10


# --- graph-supplied strings are data -----------------------------------------------------------
with open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "data",
                       "string_attacks.json"), encoding="utf-8") as _f:
    TF = json.load(_f)   # TF 2.21's answers (tools/record_string_attacks.py)

MODES = ["eager", "function"]


def _in_mode(mode, fn):
    import flowjit as tf
    return fn() if mode == "eager" else tf.function(fn)()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", TF["print"], ids=lambda c: c["args"][0])
def test_print_text_is_never_a_format_spec(mode, case):
    import flowjit as tf
    out = io.StringIO()
    x = tf.constant([1, 2])
    _in_mode(mode, lambda: tf.print(*[x if a == "T" else a for a in case["args"]],
                                    output_stream=out))
    assert out.getvalue() == case["out"]


def test_print_kernel_fills_placeholders_only():
    from flowjit.runtime.kernels.logging import print_, register_stream
    out = io.StringIO()
    print_(np.array([1, 2]), np.array(3.5, np.float32),
           template="{.__init__.__globals__} {} {:>3000000000} {}", stream=register_stream(out),
           summarize=3, end="|", placeholder="{}")
    assert out.getvalue() == "{.__init__.__globals__} [1 2] {:>3000000000} 3.5|"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", TF["format"], ids=lambda c: c["template"])
def test_strings_format_template_is_literal(mode, case):
    import flowjit as tf
    x = tf.constant([1, 2])
    got = _in_mode(mode, lambda: tf.strings.format(case["template"],
                                                   [x] * case["template"].count("{}")))
    assert got.numpy().decode() == case["out"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("key, table", [(w, "as_string_width") for w in TF["as_string_width"]]
                         + [(f, "as_string_fill") for f in TF["as_string_fill"]])
def test_as_string_refuses_absurd_widths_and_fills(mode, key, table):
    import flowjit as tf
    cls, message = TF[table][key]
    kw = {"width": int(key)} if table == "as_string_width" else {"width": 4, "fill": key}
    error = tf.errors.InvalidArgumentError if mode == "eager" else ValueError
    with pytest.raises(error) as e:
        _in_mode(mode, lambda: tf.strings.as_string(tf.constant([1.5]), **kw))
    assert cls == "InvalidArgumentError" and message in str(e.value)


def test_as_string_width_is_bounded_by_the_allocation_limit():
    import subprocess
    code = ("import flowjit as tf\n"
            "try:\n    tf.strings.as_string(tf.constant([1.5] * 1000), width=2**31 - 1)\n"
            "except tf.errors.ResourceExhaustedError as e:\n    print('refused', e)\n")
    env = dict(os.environ, FLOWJIT_MAX_ALLOCATION_BYTES=str(1 << 30))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.stdout.startswith("refused") and "OOM when allocating" in out.stdout, out


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("pattern", sorted(TF["regex"]))
def test_regex_full_match_is_re2(mode, pattern):
    import flowjit as tf
    want = TF["regex"][pattern]
    run = lambda: tf.strings.regex_full_match(TF["regex_inputs"], pattern)  # noqa: E731
    if want and want[0] == "InvalidArgumentError":
        error = tf.errors.InvalidArgumentError if mode == "eager" else ValueError
        with pytest.raises(error) as e:
            _in_mode(mode, run)
        assert want[1] in str(e.value)
    else:
        assert _in_mode(mode, run).numpy().tolist() == want


def test_regex_matching_is_linear_on_a_backtracking_pattern():
    import flowjit as tf
    t0 = time.process_time()
    got = tf.strings.regex_full_match(["a" * 100000 + "!"], "(a+)+b")   # Python's re: hours
    assert got.numpy().tolist() == [False] and time.process_time() - t0 < 5
