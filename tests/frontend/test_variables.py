"""Variables: reads, assigns, operators, and bad assigns that must leave the value intact."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import flowjit as tf
from flowjit.errors import InvalidArgumentError

from helpers import shapes


def test_create_and_read():
    init = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)
    v = tf.Variable(init, name="w")
    assert v.name == "w:0"
    assert v.dtype == tf.float32 and v.shape == (3, 4) and v.trainable
    np.testing.assert_array_equal(v.numpy(), init)
    np.testing.assert_array_equal(v.read_value().numpy(), init)
    np.testing.assert_array_equal(v.value().numpy(), init)
    np.testing.assert_array_equal(np.asarray(v), init)


def test_initial_value_callable_and_dtype():
    v = tf.Variable(lambda: [1, 2, 3], dtype=tf.float64, trainable=False)
    assert v.dtype == tf.float64 and not v.trainable
    np.testing.assert_array_equal(v.numpy(), np.array([1, 2, 3], np.float64))
    assert tf.Variable(3).dtype == tf.int32
    assert tf.Variable(3.0).dtype == tf.float32


def test_initial_value_must_fit_shape():
    with pytest.raises(ValueError, match="shape"):
        tf.Variable([1.0, 2.0], shape=(3,))
    v = tf.Variable([1.0, 2.0], shape=tf.TensorShape([None]))
    v.assign([1.0, 2.0, 3.0])  # a None dim accepts any length
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0])


@given(shape=shapes(max_dims=3), data=st.data())
def test_assign_family_matches_numpy(shape, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31)))
    a, b, c = (rng.normal(size=shape).astype(np.float32) for _ in range(3))
    v = tf.Variable(a)
    r = v.assign(b)
    assert r is v
    np.testing.assert_array_equal(v.numpy(), b)
    v.assign_add(c)
    np.testing.assert_allclose(v.numpy(), b + c, rtol=1e-6)
    assert v.assign_sub(a, read_value=False) is None
    np.testing.assert_allclose(v.numpy(), b + c - a, rtol=1e-6, atol=1e-6)


def test_assign_python_values_take_variable_dtype():
    v = tf.Variable([1.0, 2.0])
    v.assign([3, 4])  # Python ints convert to float32
    np.testing.assert_array_equal(v.numpy(), np.array([3.0, 4.0], np.float32))
    assert v.dtype == tf.float32


@pytest.mark.parametrize("method,value,exc", [
    ("assign", [1.0, 2.0, 3.0], ValueError),
    ("assign", np.ones((2, 1), np.float32), ValueError),
    ("assign_add", [1.0, 2.0, 3.0], InvalidArgumentError),
    ("assign_sub", [[1.0, 2.0]], InvalidArgumentError),
])
def test_bad_shape_raises_and_keeps_value(method, value, exc):
    v = tf.Variable([1.0, 2.0], name="kept")
    with pytest.raises(exc, match=rf"{method}.*'kept:0'.*shape"):
        getattr(v, method)(value)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


@pytest.mark.parametrize("method", ["assign", "assign_add", "assign_sub"])
def test_bad_dtype_raises_and_keeps_value(method):
    v = tf.Variable([1.0, 2.0], name="kept")
    with pytest.raises(ValueError, match=rf"{method}.*float32.*int32"):
        getattr(v, method)(tf.convert_to_tensor([1, 2]))
    with pytest.raises(TypeError, match=method):
        getattr(v, method)("a")
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_int_variable_rejects_fractional_python_value():
    v = tf.Variable([1, 2])
    with pytest.raises(TypeError):
        v.assign([1.5, 2.0])
    np.testing.assert_array_equal(v.numpy(), [1, 2])


def test_operators_act_on_the_value():
    a = np.array([1.0, -2.0, 3.0], np.float32)
    v = tf.Variable(a)
    np.testing.assert_allclose((v + 1).numpy(), a + 1)
    np.testing.assert_allclose((2 * v).numpy(), 2 * a)
    np.testing.assert_allclose((v * v).numpy(), a * a)
    np.testing.assert_allclose((-v).numpy(), -a)
    np.testing.assert_allclose(abs(v).numpy(), np.abs(a))
    np.testing.assert_array_equal((v > 0).numpy(), a > 0)
    np.testing.assert_allclose(tf.add(v, v).numpy(), a + a)
    np.testing.assert_array_equal((v == v).numpy(), np.ones(3, bool))
    v.assign_add([1.0, 1.0, 1.0])  # operators read the current value
    np.testing.assert_allclose((v + 0).numpy(), a + 1)


def test_variable_is_unhashable_but_ref_is():
    v = tf.Variable(1.0)
    with pytest.raises(TypeError, match="ref"):
        hash(v)
    d = {v.ref(): 1}
    assert d[v.ref()] == 1 and v.ref().deref() is v
    assert tf.Variable(1.0).ref() != v.ref()


def test_repr_like_tf():
    v = tf.Variable([1.0, 2.0])
    assert repr(v) == ("<tf.Variable 'Variable:0' shape=(2,) dtype=float32, "
                       "numpy=array([1., 2.], dtype=float32)>")


def test_scalar_conversions():
    v = tf.Variable(3)
    assert int(v) == 3 and float(v) == 3.0 and bool(v)
    assert [10, 20, 30, 40][v] == 40
