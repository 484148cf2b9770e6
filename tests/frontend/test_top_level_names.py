"""TF's top-level non-op names (variable policies, DeviceSpec, gradient registration,
conversion functions, creator scopes, type specs) against TF 2.21's recorded answers to the
same scenarios (tests/top_level_cases.py, tools/record_tf_top_level.py)."""
import json
import os

import pytest

import flowjit as tf
import top_level_cases

_RECORDS = json.load(open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "data",
                                       "tf_top_level.json")))


@pytest.mark.parametrize("name", sorted(set(top_level_cases.SCENARIOS) -
                                         set(top_level_cases.COMPARED_CLOSE)))
def test_scenario_matches_tf(name):
    assert top_level_cases.outcome(top_level_cases.SCENARIOS[name], tf) == _RECORDS[name]


GRADIENT_PROGRAM = '''
import flowjit as tf
from flowjit import extend

extend.register_op("user_cube", inputs=("x",))(lambda types, attrs: [types[0]])
extend.register_kernel("user_cube")(lambda x: x ** 3)
cube = extend.op_function("user_cube")


@tf.RegisterGradient("user_cube")
def _cube_grad(op, grad):
    return grad * 3.0 * op.inputs[0] * op.inputs[0]


x = tf.constant([1.0, -2.0, 0.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = cube(x)
assert tape.gradient(y, x).numpy().tolist() == [3.0, 12.0, 0.0]
traced = tf.function(lambda x: tf.gradients(cube(x), x)[0])
assert traced(x).numpy().tolist() == [3.0, 12.0, 0.0]
extend.register_op("user_double", inputs=("x",))(lambda types, attrs: [types[0]])
extend.register_kernel("user_double")(lambda x: x * 2)
double = extend.op_function("user_double")
tf.no_gradient("user_double")
with tf.GradientTape() as tape:
    tape.watch(x)
    y = double(x) + x
assert tape.gradient(y, x).numpy().tolist() == [1.0, 1.0, 1.0]
print("ok")
'''


def test_registered_gradient_and_no_gradient_are_used(tmp_path):
    """A gradient registered for a user op is what the tape and tf.gradients call, and
    no_gradient stops the flow. Runs in a fresh interpreter, so the user ops never join the
    registry the rest of the suite walks."""
    from helpers import run_script
    script = tmp_path / "user_gradient.py"
    script.write_text(GRADIENT_PROGRAM)
    done = run_script(script, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("ok")


def test_timestamp_reads_the_clock_when_the_op_runs():
    """Eagerly and on every call of a tf.function (a stateful host call); under XLA it is
    refused, as TF has no XLA kernel for Timestamp."""
    import time
    before = time.time()
    now = tf.timestamp()
    assert now.dtype == tf.float64 and now.shape == [] and before <= float(now) <= time.time()
    read = tf.function(lambda: tf.timestamp())
    first = float(read())
    time.sleep(0.02)
    assert float(read()) - first >= 0.02
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.function(lambda: tf.timestamp(), jit_compile=True)()


def test_approx_top_k_min_matches_approx_min_k():
    """TF's CPU has no kernel for is_max_k=False (the oracle records only the max); it is
    approx_min_k's answer, ties by lower index."""
    x = tf.constant([[1.0, 5.0, 3.0, 5.0], [2.0, 0.0, -1.0, 4.0]])
    values, indices = tf.approx_top_k(x, 2, reduction_dimension=0, is_max_k=False)
    assert values.numpy().tolist() == [[1.0, 0.0, -1.0, 4.0], [2.0, 5.0, 3.0, 5.0]]
    assert indices.numpy().tolist() == [[0, 1, 1, 1], [1, 0, 0, 0]]


@pytest.mark.parametrize("jit", [None, False, True])
def test_conv2d_backprop_v2_match_tfs_conv2d_gradients(jit):
    """conv2d_backprop_input_v2/filter_v2 (eagerly, traced, compiled) against TF's recorded
    gradients of conv2d for the same operands and padding (TF's CPU has no v2 kernels)."""
    import numpy as np
    x, f = top_level_cases.conv2d_operands(tf)
    recorded = _RECORDS["conv2d_gradients"]["value"]
    for (strides, padding, explicit, dilations, g_shape), (_, dx, df) in zip(
            top_level_cases.CONV2D_GRADIENTS, recorded):
        def both(x, f, g):
            args = dict(strides=strides, padding=padding, explicit_paddings=explicit,
                        dilations=dilations)
            return (tf.conv2d_backprop_input_v2(x, f, g, **args),
                    tf.conv2d_backprop_filter_v2(x, f, g, **args))
        run = both if jit is None else tf.function(both, jit_compile=jit)
        got_x, got_f = run(x, f, top_level_cases.upstream(tf, g_shape))
        np.testing.assert_allclose(got_x.numpy(), dx, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(got_f.numpy(), df, rtol=1e-5, atol=1e-4)


def test_critical_section_serializes_executions():
    """Threads incrementing through a read, a pause and a write lose no update inside the
    section; the result of fn comes back; a nested execute of the same section raises as
    TF's graph does (TF's eager nesting hangs)."""
    import threading
    import time
    section = tf.CriticalSection(name="counter")
    counter = tf.Variable(0)

    def bump():
        seen = counter.numpy()
        time.sleep(0.001)
        counter.assign(seen + 1)
        return counter.read_value()
    threads = [threading.Thread(target=lambda: [section.execute(bump) for _ in range(5)])
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert int(counter.numpy()) == 20
    assert int(section.execute(bump)) == 21
    assert int(tf.function(lambda: section.execute(lambda: counter.assign_add(2)))()) == 23
    assert section.name == "counter"
    with pytest.raises(ValueError, match="already running"):
        section.execute(lambda: section.execute(bump))
    with pytest.raises(TypeError):
        section.execute(3)
    assert int(tf.CriticalSection().execute(bump)) == 24


def test_edit_distance_is_refused_under_xla():
    """A host computation, as TF's kernel (TF has no XLA kernel for EditDistance)."""
    h = tf.SparseTensor([[0, 0]], [1], [1, 1])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.function(lambda: tf.edit_distance(h, h), jit_compile=True)()
