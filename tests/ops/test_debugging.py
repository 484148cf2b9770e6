"""tf.debugging's sign checks, assert_shapes and check_numerics: TF 2.21's error classes and
texts eagerly and on the graph executor; under XLA an assert is refused at compile time
(TF 2.21 drops it silently; see README, Differences from TF)."""
from __future__ import annotations

import re

import numpy as np
import pytest

import flowjit as tf
from flowjit.errors import InvalidArgumentError

MODES = ("eager", "graph")


def run(mode, fn, *args):
    f = fn if mode == "eager" else tf.function(fn)
    return f(*[tf.constant(a) for a in args])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("check, bad, text", [
    # TF 2.21: "Condition x > 0 did not hold element-wise" / "x >= 0".
    (tf.debugging.assert_positive, np.array([1.0, 0.0], np.float32), "Condition x > 0"),
    (tf.debugging.assert_non_negative, np.array([1, -2], np.int32), "Condition x >= 0"),
])
def test_sign_checks(mode, check, bad, text):
    good = np.abs(bad) + 1
    np.testing.assert_array_equal(run(mode, lambda x: (check(x), x * 2)[1], good).numpy(),
                                  good * 2)
    with pytest.raises(InvalidArgumentError, match=text):
        run(mode, lambda x: (check(x), x)[1], bad)


def test_message_prefix():
    # TF 2.21: "hey.  \nCondition x > 0 ..." (the message comes first).
    with pytest.raises(InvalidArgumentError, match="hey.*Condition x > 0"):
        tf.debugging.assert_positive(tf.constant([-1.0]), message="hey")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("values, found", [
    # TF 2.21: "<message> : Tensor had NaN values" (Inf, "Inf and NaN").
    ([1.0, np.nan], "NaN"), ([np.inf, 1.0], "Inf"), ([-np.inf, np.nan], "Inf and NaN"),
])
def test_check_numerics(mode, values, found):
    fine = np.array([1.0, -2.0], np.float32)
    np.testing.assert_array_equal(
        run(mode, lambda x: tf.debugging.check_numerics(x, "m"), fine).numpy(), fine)
    with pytest.raises(InvalidArgumentError, match=f"bad : Tensor had {found} values"):
        run(mode, lambda x: tf.debugging.check_numerics(x, "bad"),
            np.array(values, np.float32))


def test_check_numerics_rejects_ints_and_passes_gradients():
    # TF 2.21: "Value for attr 'T' of int32 is not in the list of allowed values".
    with pytest.raises(InvalidArgumentError, match="attr 'T' of int32 is not in the list"):
        tf.debugging.check_numerics(tf.constant([1, 2]), "m")
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.debugging.check_numerics(x * x, "m")
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 4.0])


@pytest.mark.parametrize("jit", [False, True], ids=["graph", "xla"])
def test_check_numerics_in_a_function_fails_the_call(jit):
    # XLA runs the check as a host callback: the same error as the executor's
    f = tf.function(lambda x: tf.debugging.check_numerics(x, "m"), jit_compile=jit)
    np.testing.assert_array_equal(f(tf.constant([1.0, -2.0])).numpy(), [1.0, -2.0])
    with pytest.raises(InvalidArgumentError, match="m : Tensor had NaN values"):
        f(tf.constant([1.0, np.nan])).numpy()


A, V = tf.zeros([2, 3]), tf.zeros([3])


@pytest.mark.parametrize("shapes, text", [
    # TF 2.21's texts.
    ([(A, ("N", "M")), (V, ("N",))], "Specified by tensor shape=(2, 3) dtype=float32 "
     "dimension 0.  Tensor shape=(3,) dtype=float32 dimension 0 must have size 2.  "
     "Received size 3, shape (3,)"),
    ([(A, (2, 4))], "Specified explicitly.  Tensor shape=(2, 3) dtype=float32 dimension 1 "
     "must have size 4.  Received size 3, shape (2, 3)"),
    ([(A, ("N",))], "must have rank 1.  Received rank 2, shape (2, 3)"),
])
def test_assert_shapes_static_failures(shapes, text):
    with pytest.raises(ValueError, match=re.escape(text)):
        tf.debugging.assert_shapes(shapes)


def test_assert_shapes_holds_and_checks_unknown_dims_at_run_time():
    assert tf.debugging.assert_shapes([(A, ("N", "M")), (V, ("M",)), (A, (2, 3))]) is None

    @tf.function(input_signature=[tf.TensorSpec([None])])
    def f(x):
        tf.debugging.assert_shapes([(x, (3,))])
        return x + 1

    np.testing.assert_array_equal(f(tf.constant([1.0, 2.0, 3.0])).numpy(), [2.0, 3.0, 4.0])
    with pytest.raises(InvalidArgumentError, match="dimension 0 must have size 3"):
        f(tf.constant([1.0, 2.0]))
