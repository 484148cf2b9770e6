"""The compile and call paths of `function` (frontend/function/compilation.py, function_call.py):
the one XLA cache key (argument shapes, resizable variables, lowering-rule generation),
variable donation by buffer ownership, dump file names, compile logs, the pass report table."""
import logging
import os

import numpy as np

import flowjit as tf
from flowjit.frontend.eager import config
from flowjit.lowering.stablehlo import RULES, register_lowering


def test_public_names_stay_importable():
    from flowjit.frontend.function.function import ConcreteFunction, Function, function
    assert tf.function is function and tf.Function is Function
    f = function(lambda x: x + 1.0)
    assert isinstance(f, Function)
    assert isinstance(f.get_concrete_function(tf.TensorSpec([2])), ConcreteFunction)


def test_overriding_a_lowering_rule_recompiles_functions_that_used_it():
    @tf.function(jit_compile=True)
    def f(x):
        return tf.negative(x) + 1.0

    x = np.array([1.0, -2.0, 3.0], np.float32)
    np.testing.assert_allclose(f(x).numpy(), -x + 1)
    assert f.compile_count() == 1
    original = RULES["df.neg"]
    try:
        register_lowering("neg")(lambda ctx, op, v: v)      # neg lowered as the identity
        np.testing.assert_allclose(f(x).numpy(), x + 1)      # recompiled with the new rule
        assert f.compile_count() == 2
        assert f.experimental_get_tracing_count() == 1       # the trace was reused
        np.testing.assert_allclose(f(x).numpy(), x + 1)
        assert f.compile_count() == 2                        # and cached again
    finally:
        register_lowering("neg")(original)
    np.testing.assert_allclose(f(x).numpy(), -x + 1)
    assert f.compile_count() == 3


def test_cached_calls_reuse_one_executable_per_shape():
    @tf.function(jit_compile=True, input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        return x * 2.0 + 1.0

    for n in (3, 3, 5, 3, 5):
        x = np.arange(n, dtype=np.float32)
        np.testing.assert_allclose(f(x).numpy(), x * 2 + 1)
    assert f.experimental_get_tracing_count() == 1 and f.compile_count() == 2


# --- donation ----------------------------------------------------------------------------
def _bump_step():
    v = tf.Variable(np.arange(4, dtype=np.float32))

    @tf.function(jit_compile=True)
    def bump():
        v.assign_add(tf.ones([4]))
        return v.read_value()
    return v, bump


def test_steps_donate_the_variables_own_buffer_in_place():
    v, bump = _bump_step()
    bump()
    owned = v._handle.lend()            # the buffer XLA wrote back, never handed out
    bump()
    assert owned.is_deleted()           # donated: updated in place, no copy
    np.testing.assert_allclose(v.numpy(), np.arange(4) + 2)


def test_values_handed_out_are_never_donated():
    v, bump = _bump_step()
    result = bump()                      # an output of the step, not the variable's buffer
    read = v.read_value()                # an eager read shares the variable's buffer
    kept = [v.value()]                   # held in a container too
    bump()
    bump()
    np.testing.assert_allclose(result.numpy(), np.arange(4) + 1)
    np.testing.assert_allclose(read.numpy(), np.arange(4) + 1)
    np.testing.assert_allclose(kept[0].numpy(), np.arange(4) + 1)
    np.testing.assert_allclose(v.numpy(), np.arange(4) + 3)


def test_an_eager_assign_then_a_step_keeps_the_assigned_tensor():
    v, bump = _bump_step()
    bump()
    t = tf.constant(np.full(4, 7.0, np.float32))
    v.assign(t)
    bump()
    np.testing.assert_allclose(t.numpy(), np.full(4, 7.0))
    np.testing.assert_allclose(v.numpy(), np.full(4, 8.0))


# --- dumps, logs, pass report --------------------------------------------------------------
def test_dump_names_carry_the_function_and_the_argument_shapes(tmp_path, monkeypatch):
    monkeypatch.setenv("FLOWJIT_DUMP_TO", str(tmp_path))

    @tf.function(jit_compile=True)
    def dumped(x, n):
        return x + tf.cast(n, tf.float32)

    dumped(tf.ones([2, 3]), tf.constant(1))

    @tf.function(input_signature=[tf.TensorSpec([None, 3])])
    def planned(x):
        return x * 2.0

    planned(tf.ones([4, 3]))
    files = os.listdir(tmp_path)
    assert any(f.startswith("dumped.f32[2,3],i32[].") and f.endswith(".hlo.txt")
               for f in files), files
    assert any(f.startswith("planned.f32[?,3].") and f.endswith(".graph.txt")
               for f in files), files


def test_compile_log_says_when_a_trace_was_reused(monkeypatch, caplog):
    monkeypatch.setattr(config, "LOG_COMPILES", True)

    @tf.function(jit_compile=True, input_signature=[tf.TensorSpec([None])])
    def logged(x):
        return x + 1.0

    with caplog.at_level(logging.WARNING, logger="flowjit"):
        logged(tf.ones([2]))
        logged(tf.ones([3]))
    compiles = [r.getMessage() for r in caplog.records if "XLA compile of logged" in r.message]
    assert len(compiles) == 2, caplog.text
    assert "f32[2]" in compiles[0] and "after tracing" in compiles[0]
    assert "f32[3]" in compiles[1] and "reusing its trace (compile 2 of that trace)" in compiles[1]


def test_pass_report_prints_as_a_table():
    def dup(x, y):
        return tf.matmul(x, y) + tf.matmul(x, y)

    spec = tf.TensorSpec([3, 3])
    report = tf.function(dup, passes="cse,dce").compiler_ir(spec, spec).pass_report()
    lines = str(report).splitlines()
    assert lines[0].split() == ["pass", "round", "ms", "ops", "before", "ops", "after", "changed"]
    assert set(lines[1]) == {"-"}
    rows = [ln.split() for ln in lines[2:]]
    assert [r[0] for r in rows] == ["cse", "dce"]
    cse, dce = rows
    assert int(cse[3]) - int(cse[4]) == 1 and cse[5] == "yes"   # the second matmul went
    assert cse[4] == dce[3] == dce[4] and dce[5] == "no"
    assert report[0]["name"] == "cse"      # still the list of records
