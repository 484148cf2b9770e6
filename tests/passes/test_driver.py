"""The pattern driver (passes/rewrite.py) and the pipeline's use of each pass's "changed"
answer: rounds repeat exactly when a pass changed the module, a broken pass is named when
the IR is verified after each pass."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from xdsl.dialects.builtin import TensorType, f32
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import VerifyException

import flowjit as tf
from flowjit.ir.printing import parse_module, print_module
from flowjit.passes import PASSES
from flowjit.passes import pipeline as P
from flowjit.passes.rewrite import RootedPattern, apply_patterns

NEG_CHAIN = """
func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = df.neg %x : (tensor<3xf32>) -> tensor<3xf32>
  %1 = df.neg %0 : (tensor<3xf32>) -> tensor<3xf32>
  %2 = df.neg %1 : (tensor<3xf32>) -> tensor<3xf32>
  %3 = df.neg %2 : (tensor<3xf32>) -> tensor<3xf32>
  %4 = df.neg %3 : (tensor<3xf32>) -> tensor<3xf32>
  func.return %4 : tensor<3xf32>
}
"""


class _CancelNegPair(RootedPattern):
    roots = ("df.neg",)

    def __init__(self):
        self.seen = 0

    def match_and_rewrite(self, op, rewriter):
        self.seen += 1
        inner = op.operands[0].owner
        if getattr(inner, "name", None) == "df.neg":
            rewriter.replace(op, (), [inner.operands[0]])


def _names(module):
    return [op.name for op in module.walk()][1:]


def test_driver_reaches_a_fixpoint_and_erases_dead_producers_once():
    m = parse_module(NEG_CHAIN)
    pattern = _CancelNegPair()
    assert apply_patterns(m, [pattern]) is True
    # five negs are one neg; the inner ones the rewrites left unused are gone too
    assert [n for n in _names(m) if n.startswith("df.")] == ["df.neg"]
    m.verify()
    assert apply_patterns(m, [pattern]) is False
    seen = pattern.seen
    apply_patterns(m, [])          # no pattern roots on anything: nothing is visited
    assert pattern.seen == seen


def test_driver_lets_pattern_errors_through():
    class Boom(RootedPattern):
        roots = ("df.neg",)

        def match_and_rewrite(self, op, rewriter):
            raise KeyError("boom")
    with pytest.raises(KeyError, match="boom"):
        apply_patterns(parse_module(NEG_CHAIN), [Boom()])


# --- the pipeline iterates on what passes report ---------------------------------------------
@dataclass(frozen=True)
class _RefineOnce(ModulePass):
    """Refines the argument's `?` dim in place: the op count stays, the module changes."""
    name = "test-refine-once"

    def apply(self, ctx, module) -> bool:
        arg = module.body.block.first_op.body.block.args[0]
        if arg.type == TensorType(f32, [3]):
            return False
        arg._type = TensorType(f32, [3])
        return True


@dataclass(frozen=True)
class _Silent(ModulePass):
    """Says nothing about what it did (returns None, as a plain xDSL pass does)."""
    name = "test-silent"

    def apply(self, ctx, module):
        return None


def _dynamic_module():
    return parse_module(NEG_CHAIN.replace("tensor<3xf32>", "tensor<?xf32>"))


def _schedule(monkeypatch, *passes):
    for p in passes:
        monkeypatch.setitem(PASSES, p.name, p)
    monkeypatch.setattr(P, "default_passes", lambda: [p.name for p in passes])


def test_a_change_that_keeps_the_op_count_runs_another_round(monkeypatch):
    _schedule(monkeypatch, PASSES["cse"], _RefineOnce, PASSES["dce"])
    report = P.run_pipeline(_dynamic_module(), verify="none")
    # the next round reruns the passes that have not seen the refined module unchanged;
    # dce ran after the refinement and changed nothing, so it is not run again
    assert [(r.iteration, r.name, r.changed) for r in report.records] == [
        (0, "cse", False), (0, "test-refine-once", True), (0, "dce", False),
        (1, "cse", False), (1, "test-refine-once", False)]
    assert report.records[1].ops_before == report.records[1].ops_after


def test_no_change_is_one_round_and_silence_counts_as_change(monkeypatch):
    m = _dynamic_module()
    _schedule(monkeypatch, PASSES["cse"])
    assert [r.iteration for r in P.run_pipeline(m).records] == [0]
    _schedule(monkeypatch, PASSES["cse"], _Silent)
    assert max(r.iteration for r in P.run_pipeline(m).records) == P.MAX_ITERATIONS - 1


def _program(x, flag):
    y = tf.reshape(x, [-1, 3]) * 1.0
    z = tf.cond(tf.constant(True), lambda: tf.identity(y), lambda: -y)
    w = tf.matmul(z, tf.transpose(z)) + tf.matmul(z, tf.transpose(z))
    return tf.where(flag, w, -w), tf.shape(x)[0] + tf.size(z)


def test_each_pass_says_changed_exactly_when_the_ir_changed():
    f = tf.function(_program, autograph=False)
    module = f.get_concrete_function(tf.TensorSpec([None, 3]), tf.TensorSpec([], tf.bool)) \
        .dataflow_module().clone()
    report = P.run_pipeline(module, record_ir=True)
    assert any(r.changed for r in report.records)
    for r in report.records:
        assert r.changed == (r.diff is not None), (r.name, r.iteration, r.diff)
    # and the result is what the function computes without passes (NumPy: TF 2.21 semantics)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out, n = tf.function(_program)(tf.constant(x), tf.constant(False))
    np.testing.assert_allclose(out.numpy(), -2 * (x @ x.T), rtol=1e-6)
    assert int(n.numpy()) == 2 + 6


# --- a pass that leaves invalid IR is named ----------------------------------------------------
@dataclass(frozen=True)
class _BreaksNeg(ModulePass):
    """Deliberately wrong: gives the first df.neg a result type its operand does not have."""
    name = "test-breaks-neg"

    def apply(self, ctx, module) -> bool:
        neg = next(op for op in module.walk() if op.name == "df.neg")
        neg.results[0]._type = TensorType(f32, [4, 3])
        return True


def test_verify_each_pass_env_names_the_pass(monkeypatch):
    monkeypatch.setitem(PASSES, _BreaksNeg.name, _BreaksNeg)
    monkeypatch.setenv("FLOWJIT_VERIFY_EACH_PASS", "1")
    f = tf.function(lambda x: (-x, x + 1.0), passes="cse,test-breaks-neg,dce",
                    autograph=False)
    with pytest.raises(VerifyException) as info:
        f(tf.constant(np.ones((3, 3), np.float32)))
    msg = str(info.value)
    assert "the IR after pass 'test-breaks-neg' does not verify" in msg
    assert "df.neg: result types ['float32[4,3]'] do not match the inferred ['float32[3,3]']" \
        in msg
    assert info.value.pass_name == "test-breaks-neg"


def test_verify_each_off_still_catches_the_change_at_the_end(monkeypatch):
    monkeypatch.delenv("FLOWJIT_VERIFY_EACH_PASS", raising=False)
    m = parse_module(NEG_CHAIN.replace("tensor<3xf32>", "tensor<3x3xf32>"))
    with pytest.raises(VerifyException, match="df.neg: result types"):
        P.run_pipeline(m, [_BreaksNeg()])
    m = parse_module(NEG_CHAIN.replace("tensor<3xf32>", "tensor<3x3xf32>"))
    P.run_pipeline(m, [_BreaksNeg()], verify="none")
    assert "tensor<4x3xf32>" in print_module(m)
