"""The divergence finder names the op (with its source line) and the stage where planted
bugs make the backends disagree: a pass that changes a constant, a lowering rule that flips
a sign; XLA's known differences (flushed subnormals, FMA-style rounding) are reported as
known, not as the divergence; the CLI reads a dumped module."""
import inspect
from dataclasses import dataclass

import numpy as np
import pytest
from xdsl.passes import ModulePass

import flowjit as tf
from flowjit.extend import register_lowering, register_pass
from flowjit.ir.constants import const_value, make_const
from flowjit.lowering.stablehlo.core import RULES
from flowjit.testing import divergence
from flowjit.testing.divergence import classify, compare_backends


def program(x, y):
    scaled = x * 3.0
    shifted = scaled - y
    return tf.tanh(shifted) + 1.0


LINE = inspect.getsourcelines(program)[1]
ARGS = (tf.constant([0.5, -1.0, 2.0]), tf.constant([1.0, 0.25, -0.5]))


def test_agreeing_backends_report_no_divergence():
    report = compare_backends(program, *ARGS)
    assert report.first is None
    assert report.stages[:2] == ["eager", "executor"] and report.stages[-1] == "xla"
    assert any(s.startswith("after:") for s in report.stages)


@register_pass
@dataclass(frozen=True)
class ThreeBecomesFour(ModulePass):
    """A planted bug: every float constant 3 becomes 4."""
    name = "test-three-becomes-four"

    def apply(self, ctx, module):
        for op in list(module.walk()):
            if op.name == "df.const":
                value = const_value(op)
                if value.dtype.kind == "f" and value.size and np.all(value == 3.0):
                    new = make_const(np.full_like(value, 4.0), op.results[0].type, op.location)
                    op.parent.insert_op_before(new, op)
                    op.results[0].replace_all_uses_with(new.results[0])
                    op.parent.erase_op(op)


def test_a_pass_that_changes_a_constant_is_named_with_the_op_and_line():
    f = tf.function(program, passes="cse,test-three-becomes-four,dce")
    report = compare_backends(f, *ARGS)
    first = report.first
    assert first is not None and first.stage == "after:test-three-becomes-four"
    assert first.op == "const" and first.where.endswith(f"test_divergence.py:{LINE + 1}")
    assert "after:test-three-becomes-four" in str(report) and "const" in str(report)


@pytest.fixture
def flipped_sub():
    original = RULES["df.sub"]

    def flipped(ctx, op, x, y):              # a planted bug: y - x
        return original(ctx, op, y, x)
    register_lowering("sub")(flipped)
    yield flipped
    register_lowering("sub")(original)


def test_a_lowering_rule_that_flips_a_sign_is_named_under_xla(flipped_sub):
    report = compare_backends(program, *ARGS)
    first = report.first
    assert first is not None and first.stage == "xla" and first.op == "sub"
    assert first.where.endswith(f"test_divergence.py:{LINE + 2}")
    assert first.rule.endswith("flipped_sub.<locals>.flipped")
    np.testing.assert_allclose(first.actual, -np.asarray(first.expected))


def test_known_xla_classes_are_named_not_reported():
    tiny = np.float32(1e-39)                         # subnormal in float32
    assert classify(np.zeros(2, np.float32), np.array([tiny, 1.0], np.float32)) == ""
    assert classify(np.array([0.0, 1.0], np.float32), np.array([tiny, 1.0], np.float32)) \
        == "subnormals flushed to zero"
    a = np.float32(1.0) + np.float32(2.0 ** -18)
    assert classify(np.array([a], np.float32), np.array([1.0], np.float32)) \
        == "rounding: FMA contraction or reassociation"
    assert classify(np.array([1.5], np.float32), np.array([1.0], np.float32)) == ""
    assert classify(np.array([np.nan]), np.array([np.nan])) is None
    assert classify(np.array([3], np.int32), np.array([4], np.int32)) == ""


def test_subnormal_results_under_xla_are_known_not_divergent():
    def small(x):
        return x * 1e-20

    report = compare_backends(small, tf.constant([1e-20, 2.0], tf.float32))
    assert report.first is None and report.known      # XLA flushes 1e-40 to 0
    for k in report.known:
        assert k.stage == "xla" and k.known == "subnormals flushed to zero" and k.op == "mul"


def test_the_cli_compares_a_dumped_module(tmp_path, capsys):
    f = tf.function(program)
    text = f.compiler_ir(*ARGS).text("dataflow")
    path = tmp_path / "program.mlir"
    path.write_text(text)
    assert divergence.main([str(path), "--seed", "3"]) == 0
    assert "no divergence beyond tolerance" in capsys.readouterr().out


@pytest.fixture
def eager_tanh_off_by_one(monkeypatch):
    """A planted bug on eager's path alone: eager dispatch's tanh adds 1 (the executor and
    XLA run their own paths and stay right)."""
    from flowjit.frontend.eager import dispatch
    execute = dispatch.execute

    def planted(opdef, inputs, attrs):
        out = execute(opdef, inputs, attrs)
        return out + 1.0 if opdef.name == "tanh" else out
    monkeypatch.setattr(dispatch, "execute", planted)


def test_an_eager_kernel_difference_is_named_at_its_op(eager_tanh_off_by_one):
    report = compare_backends(program, *ARGS)
    first = report.first
    assert first is not None and first.stage == "eager" and first.op == "tanh"
    assert first.where.endswith(f"test_divergence.py:{LINE + 3}")
    np.testing.assert_allclose(first.actual, np.asarray(first.expected) + 1.0, rtol=1e-6)
    assert report.stages[0] == "eager"


def test_eager_replay_gives_every_node_its_value():
    f = tf.function(program)
    cf = f.get_concrete_function(*ARGS)
    values = divergence.replay_eagerly(cf.graph, [a.numpy() for a in ARGS])
    x, y = (a.numpy() for a in ARGS)
    op, (scaled,) = values["mul"]
    assert op == "mul"
    np.testing.assert_allclose(scaled, x * 3.0)
    np.testing.assert_allclose(values["sub"][1][0], x * 3.0 - y)
    np.testing.assert_allclose(values["add"][1][0], np.tanh(x * 3.0 - y) + 1.0, rtol=1e-6)
