"""jit_compile=True end to end: control flow, variables (updated, donated, on device), the
per-shape executable cache, compiler-IR stages, dumps, and clear errors."""
import os

import numpy as np
import pytest

import flowjit as tf


def test_cond_and_while_nested_match_numpy():
    @tf.function(jit_compile=True)
    def f(p, x, n):
        y = tf.cond(p, lambda: x * 2.0, lambda: -x)

        def body(i, acc):
            inner = tf.cond(i % 2 == 0, lambda: acc + y, lambda: acc - 1.0)
            return i + 1, inner
        return tf.while_loop(lambda i, a: i < n, body, [tf.constant(0), x])[1]

    x = np.random.default_rng(0).normal(size=(3,)).astype(np.float32)
    for p in (True, False):
        for n in (0, 1, 4):
            y = x * 2 if p else -x
            acc = x.copy()
            for i in range(n):
                acc = acc + y if i % 2 == 0 else acc - 1
            got = f(tf.constant(p), tf.constant(x), tf.constant(n))
            np.testing.assert_allclose(got.numpy(), acc, rtol=1e-6)
    assert f.experimental_get_tracing_count() == 1 and f.compile_count() == 1


def test_switch_case_under_xla():
    @tf.function(jit_compile=True)
    def f(i, x):
        return tf.switch_case(i, [lambda: x + 1.0, lambda: x * 10.0, lambda: x - 5.0])

    for i, expected in [(0, 3.0), (1, 20.0), (2, -3.0), (9, -3.0)]:
        assert float(f(tf.constant(i), tf.constant(2.0))) == expected


def test_variables_update_across_calls_and_stay_on_device():
    w = tf.Variable(np.ones((2, 2), np.float32))
    steps = tf.Variable(0)

    @tf.function(jit_compile=True)
    def step(g):
        w.assign_sub(g * 0.5)
        steps.assign_add(1)
        return w.read_value() * 2.0

    g = np.full((2, 2), 2.0, np.float32)
    expected = np.ones((2, 2), np.float32)
    for k in range(3):
        expected = expected - g * 0.5
        np.testing.assert_allclose(step(tf.constant(g)).numpy(), expected * 2)
        np.testing.assert_allclose(w.numpy(), expected)
    assert int(steps.numpy()) == 3
    assert not isinstance(w._handle.value, np.ndarray)  # a device buffer, not copied back
    assert step.compile_count() == 1


def test_donation_never_invalidates_a_tensor_read_earlier():
    v = tf.Variable(np.arange(4, dtype=np.float32))

    @tf.function(jit_compile=True)
    def bump():
        v.assign_add(tf.ones([4]))
        return v.read_value()

    bump()
    before = v.read_value()            # shares the variable's buffer
    bump()
    np.testing.assert_allclose(before.numpy(), np.arange(4) + 1)   # still readable
    np.testing.assert_allclose(v.numpy(), np.arange(4) + 2)
    cf = bump.get_concrete_function()
    exe = next(iter(cf.program.executables.values()))
    assert "tf.aliasing_output" in exe.lowered.module.operation.get_asm()


def test_variable_updates_inside_cond_and_while_under_xla():
    v = tf.Variable(0.0)

    @tf.function(jit_compile=True)
    def f(p, n):
        tf.cond(p, lambda: v.assign_add(10.0), lambda: v.assign_sub(1.0))

        def body(i):
            v.assign_add(1.0)
            return i + 1
        tf.while_loop(lambda i: i < n, body, [tf.constant(0)])
        return v.read_value()

    assert float(f(tf.constant(True), tf.constant(3))) == 13.0
    assert float(f(tf.constant(False), tf.constant(2))) == 14.0
    assert float(v.numpy()) == 14.0


def test_none_dims_one_trace_n_compiles():
    @tf.function(jit_compile=True, input_signature=[tf.TensorSpec([None, 3])])
    def f(x):
        return x * 2.0 + 1.0

    for n in (1, 2, 5, 2, 1):
        x = np.ones((n, 3), np.float32) * n
        np.testing.assert_allclose(f(x).numpy(), x * 2 + 1)
    assert f.experimental_get_tracing_count() == 1
    assert f.compile_count() == 3
    assert "tensor<?x3xf32>" in f.experimental_get_compiler_ir(
        tf.TensorSpec([None, 3]))(stage="dataflow")


def test_compiler_ir_stages_contain_what_they_must():
    @tf.function(jit_compile=True, input_signature=[tf.TensorSpec([None, 8])])
    def f(x):
        return tf.nn.relu(x * 2.0 + 1.0)

    ir = f.experimental_get_compiler_ir(tf.ones([4, 8]))   # None dims specialize to the args
    assert ir(stage="hlo").startswith("HloModule")
    assert "metadata" not in ir(stage="hlo_no_metadata")
    assert "func.func public @main(%arg0: tensor<4x8xf32>" in ir(stage="stablehlo")
    assert 'loc("f/relu"' in ir(stage="stablehlo")
    assert "fusion" in ir(stage="optimized_hlo")
    assert ir(stage="optimized_hlo_dot").startswith("digraph")
    for s in ("hlo_serialized", "optimized_hlo_serialized", "optimized_hlo_proto_serialized",
              "stablehlo_serialized"):
        assert isinstance(ir(stage=s), bytes) and len(ir(stage=s)) > 20
    assert ir.cost_analysis()["flops"] > 0
    assert ir.memory_analysis()["argument_size_in_bytes"] == 4 * 8 * 4
    t = ir.timings()
    assert {"trace", "import", "passes", "lowering", "xla_compile"} <= set(t)
    with pytest.raises(ValueError, match="Unknown compiler IR stage 'hlo2'.*optimized_hlo"):
        ir(stage="hlo2")
    with pytest.raises(ValueError, match="need concrete arguments"):
        f.experimental_get_compiler_ir(tf.TensorSpec([None, 8]))(stage="hlo")


def test_matmul_lowers_to_dot_general():
    @tf.function(jit_compile=True)
    def f(a, b):
        return tf.matmul(a, b)

    a = np.random.default_rng(1).normal(size=(3, 4)).astype(np.float32)
    b = np.random.default_rng(2).normal(size=(4, 5)).astype(np.float32)
    np.testing.assert_allclose(f(a, b).numpy(), a @ b, rtol=1e-5, atol=1e-6)
    assert "stablehlo.dot_general" in f.experimental_get_compiler_ir(a, b)(stage="stablehlo")


def test_dumps_and_logs(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("FLOWJIT_DUMP_TO", str(tmp_path))

    @tf.function(jit_compile=True)
    def dumped(x):
        return x + 1.0

    dumped(tf.ones([2]))
    files = os.listdir(tmp_path)
    for stage in ("graph", "dataflow", "stablehlo", "hlo", "optimized_hlo", "optimized_hlo_dot"):
        assert any(f".{stage}." in f and f.startswith("dumped.") for f in files), (stage, files)
    text = next(f for f in files if f.endswith(".optimized_hlo.txt"))
    assert "HloModule" in (tmp_path / text).read_text()


def test_unsupported_ops_raise_at_compile_time_naming_op_and_line():
    @tf.function(jit_compile=True)
    def g(x):
        return tf.where(x > 0)   # dynamic output shape

    with pytest.raises(tf.errors.UnimplementedError, match="where"):
        g(tf.ones([2]))


def test_shape_errors_still_raise_at_trace_time():
    @tf.function(jit_compile=True)
    def f(a, b):
        return a + b

    with pytest.raises(ValueError, match=r"add.*\[2\].*\[3\]"):
        f(tf.ones([2]), tf.ones([3]))


def test_results_are_device_backed_tensors():
    @tf.function(jit_compile=True)
    def f(x):
        return x * 3

    out = f(tf.constant([1, 2]))
    assert not isinstance(out._value, np.ndarray)
    np.testing.assert_array_equal(out.numpy(), [3, 6])
    np.testing.assert_array_equal((out + 1).numpy(), [4, 7])  # eager ops read it on the host
