"""tf.device, tf.config device lists and tf.ensure_shape, against TF 2.21's recorded
behaviour (classes and texts)."""
import numpy as np
import pytest

import flowjit as tf


def test_device_lists_have_tf_shape():
    phys, logical = tf.config.list_physical_devices(), tf.config.list_logical_devices()
    assert phys and len(phys) == len(logical)
    # TF 2.21 on a CPU host: [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]
    assert phys[0] == tf.config.PhysicalDevice(name="/physical_device:CPU:0",
                                               device_type="CPU")
    assert repr(logical[0]) == "LogicalDevice(name='/device:CPU:0', device_type='CPU')"
    assert tf.config.list_logical_devices("cpu") == [logical[0]]
    assert all(d.device_type == "GPU" for d in tf.config.list_physical_devices("GPU"))


@pytest.mark.parametrize("spec", ["/device:CPU:0", "CPU:0", "cpu:0", "/gpu:1", None,
                                  "/job:localhost/replica:0/task:0/device:GPU:3", "GPU:*"])
def test_device_scope_accepts_tf_specs_and_places_nothing_differently(spec):
    with tf.device(spec):
        x = tf.constant([1.0, 2.0]) * 2.0
    np.testing.assert_array_equal(x.numpy(), [2.0, 4.0])


@pytest.mark.parametrize("spec, error, text", [
    # TF 2.21 texts (recorded).
    ("/foo:0", ValueError, "Unknown attribute 'foo' is encountered while parsing the device "
                           "spec: '/foo:0'."),
    ("GPU:zz", ValueError, "invalid literal for int() with base 10: 'zz'"),
    ("/gpu:0/cpu:1", ValueError, "Multiple device types are not allowed"),
    (3, ValueError, "Expecting a string device name. Got <class 'int'>(3)"),
])
def test_device_rejects_malformed_specs(spec, error, text):
    with pytest.raises(error) as e:
        tf.device(spec)
    assert text in str(e.value)


def test_ensure_shape_eager():
    x = tf.zeros([2, 3])
    assert tf.ensure_shape(x, [2, None]).shape.as_list() == [2, 3]
    # TF 2.21: InvalidArgumentError "Shape of tensor input [2,3] is not compatible with
    # expected shape [3,?]."
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Shape of tensor input \[2,3\] is not compatible with expected "
                             r"shape \[3,\?\]"):
        tf.ensure_shape(x, [3, None])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"expected shape \[2\]"):
        tf.ensure_shape(x, [2])


@pytest.mark.parametrize("jit", [False, True])
def test_ensure_shape_traced(jit):
    @tf.function(input_signature=[tf.TensorSpec([None, 3])], jit_compile=jit)
    def f(x):
        y = tf.ensure_shape(x, [2, 3])
        assert y.shape.as_list() == [2, 3]        # TF 2.21: the traced shape is refined
        return y * 2.0
    np.testing.assert_array_equal(f(tf.ones([2, 3])).numpy(), np.full((2, 3), 2.0))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Shape of tensor input \[4,3\] is not compatible with expected "
                             r"shape \[2,3\]"):
        f(tf.ones([4, 3]))

    @tf.function(jit_compile=jit)
    def g(x):
        return tf.ensure_shape(x, [5, 3])
    # TF 2.21: ValueError while tracing, "Dimension 0 in both shapes must be equal, but are
    # 5 and 2. Shapes are [5,3] and [2,3]."
    with pytest.raises(ValueError, match=r"(?s)test_device_and_ensure_shape.py.*Dimension 0 in "
                                         r"both shapes must be equal, but are 5 and 2. Shapes "
                                         r"are \[5,3\] and \[2,3\]\.\n"):
        g(tf.ones([2, 3]))


def test_ensure_shape_gradient_passes_through():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.ensure_shape(x, [2]) ** 2)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 4.0])
