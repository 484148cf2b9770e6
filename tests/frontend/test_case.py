"""tf.case in eager, graph executor and XLA, gradients through the chosen branch, and TF 2.21's
errors (recorded)."""
import numpy as np
import pytest

import flowjit as tf

MODES = ("eager", "graph", "xla")


def run(fn, mode, *args):
    f = fn if mode == "eager" else tf.function(fn, jit_compile=mode == "xla")
    return f(*[tf.constant(a) for a in args])


def _pick(x):
    return tf.case([(x < -1.0, lambda: x * x), (x > 1.0, lambda: tf.sin(x))],
                   default=lambda: 3.0 * x, exclusive=True)


def _grad(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = _pick(x)
    return y, tape.gradient(y, x)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("x", [-2.0, 2.0, 0.5])
def test_value_and_gradient(mode, x):
    y, g = run(_grad, mode, np.float64(x))
    want = {-2.0: (x * x, 2 * x), 2.0: (np.sin(x), np.cos(x)), 0.5: (3 * x, 3.0)}[x]
    np.testing.assert_allclose([float(y), float(g)], want, rtol=1e-12)


def _first_true(a, b):
    return tf.case([(a, lambda: tf.constant(1)), (b, lambda: tf.constant(2))])


@pytest.mark.parametrize("mode", MODES)
def test_first_true_wins_and_last_fn_is_the_default(mode):
    assert int(run(_first_true, mode, True, True)) == 1
    assert int(run(_first_true, mode, False, True)) == 2


@pytest.mark.parametrize("mode", ("eager", "graph"))
def test_run_time_checks(mode):
    # TF 2.21: InvalidArgumentError "Input error: exclusive=True: more than 1 conditions
    # (...) evaluated as True" and "Input error: None of conditions evaluated as True".
    def excl(a, b):
        return tf.case([(a, lambda: 1.0), (b, lambda: 2.0)], default=lambda: 3.0,
                       exclusive=True)
    with pytest.raises(tf.errors.InvalidArgumentError, match="exclusive=True: more than 1"):
        run(excl, mode, True, True)
    with pytest.raises(tf.errors.InvalidArgumentError, match="None of conditions evaluated"):
        run(_first_true, mode, False, False)


def test_xla_leaves_the_checks_out():
    # TF's XLA bridge compiles Assert to nothing: no pred true selects the last fn.
    assert int(run(_first_true, "xla", False, False)) == 2


def test_bad_arguments():
    # TF 2.21 texts (recorded).
    with pytest.raises(TypeError, match="'pred_fn_pairs' must be a list, tuple, or dict"):
        tf.case(5)
    with pytest.raises(TypeError, match="pred must be a Tensor, got: True"):
        tf.case([(True, lambda: 1)])
    with pytest.raises(TypeError, match="pred must be Tensor of type bool"):
        tf.case([(tf.constant(1), lambda: 1)])
    with pytest.raises(TypeError, match="must be callable"):
        tf.case([(tf.constant(True), 1)])
