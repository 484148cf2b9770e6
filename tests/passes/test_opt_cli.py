"""flowjit-opt's error paths, in process (the lit suite in tests/filecheck runs the command
itself): malformed input, failing and buggy passes, --verify-diagnostics, I/O options."""
from __future__ import annotations

import io
import sys
from dataclasses import dataclass

import numpy as np
import pytest
from xdsl.passes import ModulePass

import flowjit as tf
from flowjit.frontend.tools.opt_cli import main
from flowjit.ir.printing import print_module
from flowjit.passes import PASSES

GOOD = """\
func.func @f(%0: tensor<2x3xf32>, %1: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %2 = df.matmul %0, %1 {transpose_a = false, transpose_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %3 = df.matmul %0, %1 {transpose_a = false, transpose_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %4 = df.add %2, %3 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return %4 : tensor<2x4xf32>
}
"""


def run(capsys, argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    rc = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return rc, out, err


@pytest.fixture
def good(tmp_path):
    p = tmp_path / "good.mlir"
    p.write_text(GOOD)
    return str(p)


def test_roundtrip_of_a_traced_function(capsys, tmp_path):
    def f(x, w):
        y = tf.cond(tf.reduce_sum(x) > 0, lambda: tf.matmul(x, w), lambda: -tf.matmul(x, w))
        return tf.nn.relu(y + tf.constant(np.ones(4, np.float32)))
    spec = (tf.TensorSpec([None, 3]), tf.TensorSpec([3, 4]))
    text = tf.function(f).experimental_get_compiler_ir(*spec)(stage="dataflow")
    p = tmp_path / "traced.mlir"
    p.write_text(text)
    rc, out, err = run(capsys, [str(p), "-p", ""])
    assert rc == 0 and err == ""
    assert out == text


def test_stdin_and_output_file(capsys, monkeypatch, tmp_path):
    target = tmp_path / "out.mlir"
    rc, out, err = run(capsys, ["-", "-p", "cse", "-o", str(target)], stdin=GOOD,
                       monkeypatch=monkeypatch)
    assert rc == 0 and out == "" and err == ""
    text = target.read_text()
    assert text.count("df.matmul") == 1 and "df.add %2, %2" in text


def test_parse_error_is_located(capsys, tmp_path):
    p = tmp_path / "bad.mlir"
    bad = GOOD.replace("df.add %2, %3 :", "df.add %2, %3, :")
    p.write_text(bad)
    rc, out, err = run(capsys, [str(p)])
    assert rc == 1 and out == ""
    first = err.splitlines()[0]
    assert first.startswith(f"{p}:4:") and ": error: " in first
    assert err.splitlines()[1] == bad.splitlines()[3]          # the offending line
    assert err.splitlines()[2].strip() == "^"


def test_verify_error_names_op_and_line(capsys, tmp_path):
    p = tmp_path / "bad.mlir"
    # the second matmul claims a wrong result type (and the add then sees it)
    lines = GOOD.splitlines(True)
    lines[2] = lines[2].replace("-> tensor<2x4xf32>", "-> tensor<2x5xf32>")
    lines[3] = lines[3].replace("%3 : (tensor<2x4xf32>, tensor<2x4xf32>)",
                                "%3 : (tensor<2x4xf32>, tensor<2x5xf32>)")
    p.write_text("".join(lines))
    rc, out, err = run(capsys, [str(p)])
    assert rc == 1
    assert f"{p}:3:3: error: df.matmul" in err


def test_usage_errors_and_help(capsys):
    assert main(["--no-such-flag"]) == 2
    assert main(["--help"]) == 0
    capsys.readouterr()


def test_missing_file(capsys, tmp_path):
    rc, out, err = run(capsys, [str(tmp_path / "nope.mlir")])
    assert rc == 1 and "cannot read" in err


def test_list_passes(capsys):
    rc, out, err = run(capsys, ["--list-passes"])
    assert rc == 0
    names = {ln.split(":")[0].lstrip("* ").strip() for ln in out.splitlines() if ":" in ln
             and not ln.startswith(" ")}
    assert {"cse", "dce"} <= names
    assert "* cse:" in out


# --- failing passes ------------------------------------------------------------------------
@dataclass(frozen=True)
class _Fails(ModulePass):
    name = "test-fails"
    kind: str = "value"

    def apply(self, ctx, op):
        if self.kind == "value":
            raise ValueError("this pass refuses")
        raise TypeError("a bug")


@dataclass(frozen=True)
class _Breaks(ModulePass):
    """Replaces the add by an op with a wrong result type (as a buggy rewrite would)."""
    name = "test-breaks"

    def apply(self, ctx, op):
        from xdsl.dialects.builtin import TensorType, f32
        from xdsl.rewriter import Rewriter

        from flowjit.ir.dialect import OP_CLASSES
        add = next(o for o in op.walk() if o.name == "df.add")
        new = OP_CLASSES["sub"].create(operands=list(add.operands),
                                       result_types=[TensorType(f32, [2, 5])])
        Rewriter.replace_op(add, new)


@pytest.fixture
def test_passes(monkeypatch):
    monkeypatch.setitem(PASSES, "test-fails", _Fails)
    monkeypatch.setitem(PASSES, "test-breaks", _Breaks)


def test_failing_pass_is_a_diagnostic(capsys, good, test_passes):
    rc, out, err = run(capsys, [good, "-p", "cse,test-fails"])
    assert rc == 1 and out == ""
    assert f"{good}:1:1: error: pass 'test-fails' failed: this pass refuses" in err


def test_buggy_pass_says_so_and_traceback_on_request(capsys, good, test_passes):
    rc, out, err = run(capsys, [good, "-p", "test-fails{kind=\"bug\"}"])
    assert rc == 1 and "a bug" in err and "--traceback" in err
    with pytest.raises(TypeError):
        main([good, "-p", "test-fails{kind=\"bug\"}", "--traceback"])
    capsys.readouterr()


def test_invalid_ir_from_a_pass(capsys, good, test_passes):
    rc, out, err = run(capsys, [good, "-p", "test-breaks"])
    assert rc == 1
    assert "df.sub" in err and "(after the passes)" in err
    assert "created by a pass" in err


def test_verify_each_names_the_pass(capsys, good, test_passes):
    rc, out, err = run(capsys, [good, "-p", "cse,test-breaks,dce", "--verify-each"])
    assert rc == 1
    assert "(after pass 'test-breaks')" in err and "df.sub" in err


def test_verify_diagnostics_with_pass_failure(capsys, tmp_path, test_passes):
    p = tmp_path / "vd.mlir"
    p.write_text("// expected-error@+1 {{pass 'test-fails' failed: this pass refuses}}\n"
                 + GOOD)
    rc, out, err = run(capsys, [str(p), "-p", "test-fails", "--verify-diagnostics"])
    assert rc == 0, err
    # the wrong line or message fails
    p.write_text("// expected-error@+2 {{pass 'test-fails' failed}}\n" + GOOD)
    rc, out, err = run(capsys, [str(p), "-p", "test-fails", "--verify-diagnostics"])
    assert rc == 1 and "unexpected error" in err and "was not produced" in err


def test_verify_diagnostics_fails_on_missing_error(capsys, tmp_path):
    p = tmp_path / "vd.mlir"
    p.write_text(GOOD.replace("func.return %4", "func.return %4 // expected-error {{nope}}"))
    rc, out, err = run(capsys, [str(p), "--verify-diagnostics"])
    assert rc == 1 and 'expected error "nope" was not produced (on line 5)' in err


def test_print_ir_after_all_with_default_pipeline(capsys, good):
    rc, out, err = run(capsys, [good, "--default-pipeline", "--print-ir-after-all"])
    assert rc == 0
    headers = [ln for ln in err.splitlines() if ln.startswith("// -----// IR Dump After")]
    assert "// -----// IR Dump After cse //----- //" in headers
    assert out.count("df.matmul") == 1


def test_lower_to_stablehlo_in_process(capsys, good):
    rc, out, err = run(capsys, [good, "-p", "cse", "--lower-to", "stablehlo"])
    assert rc == 0
    assert out.count("stablehlo.dot_general") == 1 and "stablehlo.add" in out


def test_empty_input(capsys, monkeypatch):
    rc, out, err = run(capsys, ["-"], stdin="// nothing\n", monkeypatch=monkeypatch)
    assert rc == 0 and out.startswith("builtin.module {")


def test_same_text_as_print_module(capsys, good):
    from flowjit.ir.printing import parse_module
    rc, out, err = run(capsys, [good])
    assert out == print_module(parse_module(GOOD))


def test_unterminated_string_does_not_hang(tmp_path):
    """xDSL's string-literal regex backtracks exponentially on a missing closing quote; a
    stray `"` in a long line must still give a prompt diagnostic."""
    import subprocess
    p = tmp_path / "quote.mlir"
    p.write_text(GOOD.replace("%1: tensor<3x4xf32>", '%1:"tensor<3x4xf32>'))
    proc = subprocess.run([sys.executable, "-m", "flowjit.frontend.tools.opt_cli", str(p)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert f"{p}:1:" in proc.stderr and "string literal" in proc.stderr
