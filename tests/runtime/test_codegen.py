"""The executor's generated code (runtime/codegen.py) against its interpreter, and the
mechanisms it adds: scalar operators, host copies of device scalars, errors located at the
failing step, values freed after their last use, and the interpreter for sources Python
refuses."""
from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest

import flowjit as tf
from flowjit.errors import InvalidArgumentError
from op_samples import SAMPLES

# The first deterministic sample of each op: each kernel once through both runners.
ONE_PER_OP = [next(s for s in SAMPLES[op] if s.deterministic) for op in sorted(SAMPLES)
              if any(s.deterministic for s in SAMPLES[op])]


def _plan_and_args(fn, *args):
    tensors = [tf.constant(a) for a in args]
    cf = fn.get_concrete_function(*tensors)
    plan = cf.program.executable(())
    plan._compile()
    return plan, [t._value for t in tensors] + cf.capture_values


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)  # NaNs in the same places count as equal


@pytest.mark.parametrize("sample", ONE_PER_OP, ids=[s.id for s in ONE_PER_OP])
def test_generated_code_matches_interpreter(sample):
    if sample.reset is not None:
        sample.reset()
    plan, args = _plan_and_args(tf.function(sample.fn), *sample.args())
    assert plan.generated is not None
    if sample.raises is not None:
        with pytest.raises(sample.raises) as generated:
            plan.run(args)
        with pytest.raises(sample.raises) as interpreted:
            plan.interpret(args)
        assert str(generated.value) == str(interpreted.value)
        return
    if sample.reset is not None:
        sample.reset()
    got = plan.run(args)
    if sample.reset is not None:
        sample.reset()
    want = plan.interpret(args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        _same(g, w)


def _counting_loop(start, limit):
    @tf.function
    def f(i):
        return tf.while_loop(lambda i: i < limit, lambda i: (i + start,), [i])[0]
    return f


def test_loop_counter_runs_as_python_operators():
    f = _counting_loop(1, 10)
    plan, _ = _plan_and_args(f, np.int32(0))
    assert " < " in plan.generated.source and " + " in plan.generated.source
    assert f(tf.constant(0)).numpy() == 10


def test_scalar_operators_wrap_on_overflow_silently():
    # TF 2.21: tf.int32 arithmetic wraps (2147483647 + 1 == -2147483648), with no warning.
    @tf.function
    def f(x):
        return tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, v + 1), [0, x])[1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = f(tf.constant(2147483646, tf.int32))
    assert out.dtype == tf.int32 and out.numpy() == -2147483648


# (source value, target dtype, whether the generated code converts with the scalar type)
SCALAR_CASTS = [
    (np.int32(-7), tf.float32, True), (np.int64(2 ** 53 + 1), tf.float32, True),
    (np.int64(2 ** 53 + 1), tf.float64, True), (np.uint8(255), tf.float32, True),
    (np.bool_(True), tf.float64, True), (np.float32(-np.inf), tf.float64, True),
    (np.float32(np.nan), tf.float64, True),
    (np.float64(1e300), tf.float32, False), (np.float32(3e9), tf.int32, False),
    (np.int32(300), tf.int8, False), (np.int32(3), tf.float16, False),
    # no scalar slot holds a 0-d complex or half-float value
    (np.uint8(255), tf.complex64, False), (np.float16(np.inf), tf.float32, False),
]


@pytest.mark.parametrize("value, dtype, as_scalar_type", SCALAR_CASTS,
                         ids=[f"{type(v).__name__}-{d.name}" for v, d, _ in SCALAR_CASTS])
def test_scalar_casts_in_a_loop_match_the_kernel(value, dtype, as_scalar_type):
    @tf.function
    def f(x):
        return tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, tf.cast(x, dtype)),
                             [0, tf.zeros([], dtype)])[1]
    plan, args = _plan_and_args(f, value)
    lines = [line for line in plan.generated.source.splitlines() if "s" in line and "(" in line]
    cast_by_type = any(line.split("=")[-1].strip().startswith("t") for line in lines)
    assert cast_by_type == as_scalar_type
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # the kernel's own warnings are not what is compared
        _same(plan.generated.run(args)[0], plan.interpret(args)[0])
        want = tf.cast(tf.constant(value), dtype)
    out = f(tf.constant(value))
    assert out.dtype == dtype
    _same(out.numpy(), want.numpy())


def test_device_scalars_get_numpy_semantics():
    # An XLA result (a device buffer) passed to an executor function computes as NumPy
    # would: int64 stays int64 (JAX without x64 would compute in 32 bits).
    big = tf.function(lambda x: x * 2, jit_compile=True)(tf.constant(2 ** 40, tf.int64))
    f = _counting_loop(2 ** 40, 2 ** 42)
    out = f(big)
    assert isinstance(out.numpy(), np.int64) and out.numpy() == 2 ** 42


def test_failing_step_in_a_loop_names_op_shapes_and_line():
    @tf.function(input_signature=[tf.TensorSpec([None, None]), tf.TensorSpec([None, None])])
    def f(a, b):
        return tf.while_loop(lambda i, x: i < 2, lambda i, x: (i + 1, tf.matmul(x, b)),
                             [0, a])[1]
    args = [np.ones((2, 3), np.float32), np.ones((2, 2), np.float32)]
    with pytest.raises(InvalidArgumentError) as generated:
        f(*args)
    text = str(generated.value)
    assert "matmul(float32[2,3], float32[2,2])" in text and "test_codegen.py" in text
    plan = f.get_concrete_function().program.executable(())
    with pytest.raises(InvalidArgumentError) as interpreted:
        plan.interpret(args)
    assert str(interpreted.value) == text


def test_intermediates_are_freed_after_their_last_use():
    n = 1 << 18  # 1 MiB of float32

    @tf.function
    def f(x):
        for _ in range(4):
            x = tf.sin(x)
            x = tf.tanh(x)
        return x
    x = tf.constant(np.linspace(0, 1, n, dtype=np.float32))
    f(x)
    f(x)   # compiled on the second call
    tracemalloc.start()
    try:
        f(x)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 * 4 * n   # the result, one live intermediate and slack (8 without frees)


def test_nesting_python_refuses_runs_interpreted():
    # CPython's parser allows 100 levels of indentation: 100 nested conds run on the
    # interpreter, with the same result.
    def nest(depth):
        if depth == 0:
            return lambda x: x + 1.0
        return lambda x: tf.cond(x > -1.0, lambda: nest(depth - 1)(x), lambda: x)
    f = tf.function(nest(100))
    plan, _ = _plan_and_args(f, np.float32(0))
    assert plan.generated is None and plan.run == plan.interpret
    assert f(tf.constant(0.0)).numpy() == 1.0


def test_straight_line_plans_compile_on_their_second_call():
    f = tf.function(lambda x: x * 2.0 + 1.0)
    x = tf.constant([1.0, 2.0])
    assert f(x).numpy().tolist() == [3.0, 5.0]
    plan = f.get_concrete_function(x).program.executable(())
    assert plan.generated is None
    assert f(x).numpy().tolist() == [3.0, 5.0]
    assert plan.generated is not None and plan.run == plan.generated.run
    assert f(x).numpy().tolist() == [3.0, 5.0]


def test_ufunc_writes_into_a_dying_fresh_operand_only():
    @tf.function
    def f(x, y):
        a = tf.matmul(x, y)          # fresh, read once: the mul below may write into it
        b = tf.matmul(x + 1.0, y)    # fresh, but also returned: must stay intact
        c = tf.matmul(x + 2.0, y)    # fresh, but read on every iteration of the loop
        out = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v + c * 2.0),
                            [0, tf.zeros_like(c)])[1]
        return a * 3.0, b, b * 2.0, out
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.ones((3, 2), np.float32)
    plan, _ = _plan_and_args(f, x, y)
    assert "out=" in plan.generated.source
    xy, b, c = x @ y, (x + 1) @ y, (x + 2) @ y
    got = [t.numpy() for t in f(tf.constant(x), tf.constant(y))]
    for g, want in zip(got, [xy * 3, b, b * 2, c * 6]):
        np.testing.assert_array_equal(g, want)


def test_variable_updates_in_place_only_when_unobserved():
    v = tf.Variable(np.ones(4, np.float32))

    @tf.function
    def step():
        v.assign_sub(tf.ones(4) * 0.5)
    step()
    before = id(v._handle.value)   # (an id: holding the array would stop the in-place update)
    step()   # the plan holds no read of `v`: updated in place
    assert id(v._handle.value) == before
    seen = v.value()   # a Tensor holds the old value: the update makes a new array
    step()
    assert id(v._handle.value) != before
    np.testing.assert_array_equal(seen.numpy(), np.zeros(4, np.float32))
    np.testing.assert_array_equal(v.numpy(), np.full(4, -0.5, np.float32))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_zero_d_ufunc_chain_in_a_loop_gradient(dtype):
    # fuzzer seeds 305359/305429: the gradient's 0-d f16 mul was given `out=` a NumPy scalar
    # (a ufunc of 0-d operands returns a scalar, not an array) and failed in the executor
    @tf.function
    def run(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.while_loop(lambda i, a: i < 1, lambda i, a: (i + 1, tf.math.expm1(a)),
                              [0, x], maximum_iterations=1)[1]
            s = tf.reduce_sum(tf.cast(y, tf.float32))
        return y, tape.gradient(s, x)
    x = np.array(1.5, dtype)
    y, g = run(tf.constant(x))
    np.testing.assert_allclose(y.numpy(), np.expm1(x), rtol=1e-3)
    np.testing.assert_allclose(g.numpy(), np.exp(x), rtol=1e-3)


# (dtype, whether its 0-d values run as Python operators: half types stay ufunc calls)
@pytest.mark.parametrize("dtype,operators", [(np.float16, False), (np.float32, True),
                                             (np.int32, True)])
def test_zero_d_constant_is_a_scalar_for_operators_and_an_array_for_ufuncs(dtype, operators):
    # One constant read by the loop counter's Python operator (as a NumPy scalar) and by a
    # ufunc on an array (as a 0-d array): both give the interpreter's values and dtypes.
    @tf.function
    def f(x):
        three = tf.constant(3, x.dtype)
        return tf.while_loop(lambda i, v: i < three, lambda i, v: (i + 1, v * three - i),
                             [tf.constant(0, x.dtype), x])
    x = np.array([0, 1, -2, 7], dtype)
    plan, args = _plan_and_args(f, x)
    assert (" < " in plan.generated.source) == operators
    ufunc_lines = [line for line in plan.generated.source.splitlines() if "(s" in line and
                   any(f"c{n}" in line for n in range(100))]
    assert bool(ufunc_lines) == operators, plan.generated.source
    got, want = plan.run(args), plan.interpret(args)
    for g, w in zip(got, want):
        _same(g, w)
    i, v = f(tf.constant(x))
    np.testing.assert_array_equal(v.numpy(), ((x * 3 - 0) * 3 - 1) * 3 - 2)
    assert v.dtype.as_numpy_dtype == dtype and i.numpy() == 3
