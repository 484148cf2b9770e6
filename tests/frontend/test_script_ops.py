"""tf.py_function / tf.numpy_function eagerly and on the graph executor, their gradient, and
the XLA refusal, against TF 2.21's recorded behaviour (classes and texts)."""
import numpy as np
import pytest

import flowjit as tf

MODES = ("eager", "graph")


def run(fn, mode, *args, jit=False):
    f = fn if mode == "eager" else tf.function(fn, jit_compile=jit)
    return f(*[tf.constant(a) for a in args])


@pytest.mark.parametrize("mode", MODES)
def test_calls_python_with_tensors_or_arrays(mode):
    seen = []

    def py(a, b):
        seen.append(type(a).__name__)
        return a * b, a + 1.0

    def npy(a):
        seen.append(type(a).__name__)
        return np.sort(a)

    def f(x, y):
        p, q = tf.py_function(py, [x, y], Tout=[tf.float32, tf.float32])
        return p, q, tf.numpy_function(npy, [x], Tout=tf.float32)

    x, y = np.array([3.0, 1.0, 2.0], np.float32), np.array([2.0, 2.0, 0.5], np.float32)
    p, q, s = run(f, mode, x, y)
    np.testing.assert_array_equal(p.numpy(), x * y)
    np.testing.assert_array_equal(q.numpy(), x + 1)
    np.testing.assert_array_equal(s.numpy(), np.sort(x))
    assert seen == ["Tensor", "ndarray"]


@pytest.mark.parametrize("mode", MODES)
def test_tout_mismatch_and_exceptions(mode):
    # TF 2.21: InvalidArgumentError "... Tensor conversion requested dtype float32 for Tensor
    # with dtype int32"; numpy_function (graph): "0-th value returned by pyfunc_N is double,
    # but expects float"; an exception in the function: UnknownError naming it.
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Tensor conversion requested dtype float32 for Tensor with dtype "
                             "int32"):
        run(lambda x: tf.py_function(lambda a: tf.cast(a, tf.int32), [x], Tout=tf.float32),
            mode, np.float32(2))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="0-th value returned by numpy_function is float64, but expects "
                             "float32"):
        run(lambda x: tf.numpy_function(lambda a: a.astype(np.float64), [x],
                                        Tout=tf.float32), mode, np.float32(2))
    with pytest.raises(tf.errors.UnknownError, match="ZeroDivisionError: division by zero"):
        run(lambda x: tf.py_function(lambda a: 1 / 0, [x], Tout=tf.float32), mode,
            np.float32(2))


def test_traced_results_have_unknown_shape():
    @tf.function
    def f(x):
        y = tf.numpy_function(lambda a: a * 2, [x], Tout=tf.float32)
        assert y.shape.rank is None              # TF 2.21: shape <unknown>
        return y
    np.testing.assert_array_equal(f(tf.constant([2.0])).numpy(), [4.0])


def _cube_grad(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.py_function(lambda a: a * a * a, [x], Tout=tf.float64)
    return tape.gradient(y, x)


@pytest.mark.parametrize("mode", MODES)
def test_py_function_gradient(mode):
    # TF 2.21: d(x^3)/dx at 2 is 12 eagerly and in tf.function.
    x = np.array([2.0, -1.5])
    np.testing.assert_allclose(run(_cube_grad, mode, x).numpy(), 3 * x ** 2, rtol=1e-12)


def test_numpy_function_has_no_gradient():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.numpy_function(lambda a: a * a, [x], Tout=tf.float32)
    assert tape.gradient(y, x) is None           # TF 2.21: None


@pytest.mark.parametrize("api", ["py_function", "numpy_function"])
def test_xla_refuses_naming_the_op_and_line(api):
    fn = getattr(tf, api)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=f"tf.{api} at .*test_script_ops.py.*XLA"):
        run(lambda x: fn(lambda a: a, [x], Tout=tf.float32), "graph", np.float32(1), jit=True)
