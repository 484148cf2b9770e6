"""Regression tests of ten fixed bugs; each expectation is TF 2.21's recorded behaviour."""
from __future__ import annotations

import numpy as np
import pytest

import flowjit as tf
from flowjit.errors import InvalidArgumentError, ResourceExhaustedError
from helpers import shown

MODES = ("eager", "graph", "xla")


def in_mode(fn, mode):
    """`fn` run eagerly, on the graph executor, or compiled by XLA."""
    if mode == "eager":
        return fn
    return tf.function(fn, jit_compile=mode == "xla")


# --- 1, 9: huge static shapes are refused before NumPy or XLA allocate --------------------
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("build", [
    lambda: tf.zeros([2**40, 2**40]),
    lambda: tf.ones([2**40, 2**40]),
    lambda: tf.fill([2**40, 2**40], 1.0),
    lambda: tf.tile(tf.constant([[1.0]]), [2**40, 2**40]),
    lambda: tf.random.stateless_uniform([2**40, 2**40], seed=[1, 2]),
], ids=["zeros", "ones", "fill", "tile", "stateless_uniform"])
def test_shape_over_int64_elements_raises_instead_of_aborting(build, mode):
    # TF 2.21: InvalidArgumentError "Shape [1099511627776,1099511627776] would have more than
    # 2**63 - 1 elements" (ValueError while tracing, as for every shape error); XLA aborted.
    cls = InvalidArgumentError if mode == "eager" else ValueError
    with pytest.raises(cls, match=r"would have more than 2\*\*63 - 1 elements") as info:
        in_mode(build, mode)()
    assert "test_regressions.py" in shown(info.value)   # the user's line, in a note


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("build,op", [
    (lambda: tf.zeros([2**31, 2**31]), "broadcast_to"),
    (lambda: tf.eye(2**31), "eye"),
    (lambda: tf.range(0, 2**62), "range"),
    (lambda: tf.random.normal([2**62]), "random_standard_normal"),
], ids=["zeros", "eye", "range", "normal"])
def test_allocation_beyond_memory_is_resource_exhausted(build, op, mode):
    # TF 2.21: ResourceExhaustedError "OOM when allocating tensor with shape[2147483648,
    # 2147483648] and type float ..." (eye, random.normal); never NumPy's MemoryError.
    with pytest.raises(ResourceExhaustedError, match="OOM when allocating tensor with shape") \
            as info:
        in_mode(build, mode)()
    assert op in str(info.value)


def test_reshape_of_empty_tensor_infers_as_tf():
    # TF 2.21: reshape(zeros([0, 3]), [-1, 0]) has shape (3, 0)
    assert tf.reshape(tf.zeros([0, 3]), [-1, 0]).shape == (3, 0)


# --- 3: a wrong-shaped value never replaces a variable ------------------------------------
@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("method", ["assign", "assign_add", "assign_sub"])
def test_assign_with_unknown_dims_checks_the_shape_at_run_time(method, jit):
    v = tf.Variable([1.0, 2.0])
    f = tf.function(lambda x: getattr(v, method)(x), jit_compile=jit,
                    input_signature=[tf.TensorSpec([None], tf.float32)])
    # TF 2.21: InvalidArgumentError "Trying to assign to variable with tensor with wrong
    # shape. Expected [2] got [3]"; the value is untouched.
    with pytest.raises(InvalidArgumentError, match=r"shape.*\[2\].*\[3\]|\[3\].*\[2\]"):
        f(tf.constant([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    assert v.shape == (2,)


# --- 4: None never becomes NaN --------------------------------------------------------------
NONE_CALLS = {
    "add": lambda x: tf.add(x, None),
    "operator": lambda x: x + None,
    "maximum": lambda x: tf.maximum(x, None),
    "constant": lambda x: tf.constant(None, dtype=tf.float32),
    "list": lambda x: tf.add(x, [1.0, None]),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(NONE_CALLS))
def test_none_operand_raises_value_error(name, mode):
    # TF 2.21: ValueError "Attempt to convert a value (None) with an unsupported type
    # (<class 'NoneType'>) to a Tensor." eagerly, "None values not supported." in tf.function,
    # "Can't convert Python sequence with mixed types to Tensor." for [1.0, None]
    with pytest.raises(ValueError, match="None|mixed types"):
        in_mode(NONE_CALLS[name], mode)(tf.constant([1.0, 2.0]))


# --- 5: integer pow wraps around in every mode --------------------------------------------
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dt", [np.int8, np.int32, np.int64])
def test_integer_pow_uses_every_exponent_bit(dt, mode):
    base = np.array([0, 2, 3, -1, 5, 7], dt)
    exp = np.array([64, 64, 65, 7, 3, 0], dt)
    want = np.array([pow(int(b), int(e), 2**64) for b, e in zip(base, exp)], np.uint64)
    want = want.astype(np.int64).astype(dt)    # NumPy reference: exact power, wrapped
    got = in_mode(lambda a, b: tf.pow(a, b), mode)(tf.constant(base), tf.constant(exp))
    np.testing.assert_array_equal(got.numpy(), want)


# --- 6: out-of-range shapes of random ops --------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_random_shape_beyond_int64_raises_and_keeps_the_stream(mode):
    tf.random.set_seed(5)
    first = tf.random.normal([3], seed=1).numpy()
    tf.random.set_seed(5)
    # TF 2.21: ValueError "Can't convert Python sequence with out-of-range integer to Tensor."
    with pytest.raises(ValueError, match="out-of-range integer"):
        in_mode(lambda: tf.random.normal([2**63], seed=1), mode)()
    np.testing.assert_array_equal(tf.random.normal([3], seed=1).numpy(), first)


# --- 7: while-loop gradients with an empty history ----------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_while_gradient_with_zero_iterations_or_zero_size(mode):
    def zero_iterations(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [0, x],
                              maximum_iterations=0)[1]
        return tape.gradient(y, x)

    def empty_value(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0), [0, x],
                              maximum_iterations=3)[1]
        return tape.gradient(y, x)
    # TF 2.21 (eager and tf.function): d/dx of the untouched x is 1; an empty x has an empty
    # gradient
    assert float(in_mode(zero_iterations, mode)(tf.constant(2.0))) == 1.0
    assert in_mode(empty_value, mode)(tf.zeros([0, 2])).shape == (0, 2)


@pytest.mark.parametrize("jit", [False, True])
def test_while_gradient_of_a_value_empty_only_at_run_time(jit):
    # found by the fuzzer (seed 20002): unknown dims at trace time, a 0-sized value at run
    # time; TF 2.21 gives an empty gradient of the same shape
    @tf.function(jit_compile=jit, input_signature=[tf.TensorSpec([None, None], tf.float32)])
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, a * 3.0), [0, x],
                              maximum_iterations=2)[1]
            s = tf.reduce_sum(y)
        return tape.gradient(s, x)
    assert f(tf.zeros([1, 0])).shape == (1, 0)
    np.testing.assert_array_equal(f(tf.ones([2, 3])).numpy(), np.full((2, 3), 9.0))


def test_while_over_a_captured_eager_tensor_is_differentiated():
    x = tf.constant(2.0)

    @tf.function
    def f():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [0, x])[1]
        return tape.gradient(y, x)
    assert float(f()) == 32.0    # d(x**4)/dx at 2, as TF 2.21 gives


# --- 10: no silent coercion of axes and seeds ---------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_non_integer_axis_and_seed_raise(mode):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    # TF 2.21: axis=1.5 -> InvalidArgumentError eagerly, ValueError in tf.function
    with pytest.raises(InvalidArgumentError if mode == "eager" else ValueError,
                       match="softmax"):
        in_mode(lambda t: tf.nn.softmax(t, axis=1.5), mode)(x)
    # TF 2.21: axis="0" and seed="3" -> TypeError
    with pytest.raises(TypeError, match="softmax"):
        in_mode(lambda t: tf.nn.softmax(t, axis="0"), mode)(x)
    with pytest.raises(TypeError, match="seed"):
        in_mode(lambda: tf.random.uniform([2], seed="3"), mode)()


# --- found by the fuzzer: integer division by a zero XLA can fold ---------------------------
def test_integer_division_by_a_folded_zero_under_xla_does_not_kill_the_process(tmp_path):
    # XLA's constant folder divided 0 // 0 on the host and the process died of SIGFPE.
    # TF 2.21 under jit_compile: ((x - x) // (x - x), (x - x) % (x - x)) of [5, -5] is
    # ([-1, -1], [0, 0]); x // 0 follows XLA's x / 0 == -1, x % 0 == x; MIN // -1 == MIN.
    script = tmp_path / "fold.py"
    script.write_text(
        "import numpy as np\nimport flowjit as tf\n"
        "f = tf.function(lambda x: ((x - x) // (x - x), (x - x) % (x - x)), jit_compile=True)\n"
        "q, r = f(tf.constant([5, -5]))\n"
        "g = tf.function(lambda x, y: (x // y, x % y), jit_compile=True)\n"
        "q2, r2 = g(tf.constant([np.iinfo(np.int32).min, 7, -7], tf.int32),\n"
        "           tf.constant([-1, 2, 2], tf.int32))\n"
        "print(q.numpy().tolist(), r.numpy().tolist(), q2.numpy().tolist(), "
        "r2.numpy().tolist())\n")
    from helpers import run_script
    done = run_script(script, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    lo = int(np.iinfo(np.int32).min)
    expected_q2 = np.array([lo, 7, -7], np.int64) // np.array([-1, 2, 2])   # NumPy floor division
    expected_q2[0] = lo  # wraps, as NumPy's int32 result and XLA's definition
    assert done.stdout.split("\n")[0] == (
        f"[-1, -1] [0, 0] {expected_q2.tolist()} {[0, 1, 1]}")
