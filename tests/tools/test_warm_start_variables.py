"""The compilation cache and training steps that capture their model's variables: a second
process runs the stored step without tracing and its updates equal a cold run's; the stored
executable reads the variables' current values; a variable of another shape misses; an
entry whose variables are no longer reached, or a damaged one, is a clean miss."""
import importlib.util
import json
import logging
import os
import sys
import textwrap

import numpy as np
import pytest

import flowjit as tf

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from helpers import run_script  # noqa: E402

MODEL = """
import flowjit as tf

LEARNING_RATE = 0.1
TRACES = []


class Dense(tf.Module):
    def __init__(self, scale_shape):
        super().__init__()
        self.kernel = tf.Variable([[0.5, -1.0, 0.0], [0.25, 2.0, -0.5]])
        self.bias = tf.Variable([0.0, 0.1, -0.2])
        self.scale = tf.Variable(tf.ones(scale_shape))

    def __call__(self, x):
        return tf.nn.relu(tf.matmul(x, self.kernel) + self.bias) * self.scale


model = Dense({scale_shape})


@tf.function(jit_compile=True)
def step(x, y):
    TRACES.append(1)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x) - y) ** 2)
    variables = [model.kernel, model.bias, model.scale]
    for v, g in zip(variables, tape.gradient(loss, variables)):
        v.assign_sub(LEARNING_RATE * g)
    return loss
"""

X = [[1.0, 2.0], [-1.0, 0.5], [0.0, 0.0]]
Y = [[1.0, 0.0, 2.0], [0.0, 1.0, 0.0], [0.5, 0.5, 0.5]]


@pytest.fixture
def cache(tmp_path):
    tf.config.experimental.enable_compilation_cache(str(tmp_path / "cache"))
    yield tmp_path / "cache"
    tf.config.experimental.disable_compilation_cache()


def _load(tmp_path, name, scale_shape="[3]"):
    path = tmp_path / f"{name}.py"
    path.write_text(MODEL.format(scale_shape=scale_shape))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _train(module, steps=3):
    losses = [float(module.step(tf.constant(X), tf.constant(Y))) for _ in range(steps)]
    m = module.model
    return losses, [v.numpy() for v in (m.kernel, m.bias, m.scale)]


def _entries(cache):
    return sorted(os.listdir(cache)) if os.path.isdir(cache) else []


def test_a_hit_reads_and_updates_the_variables_as_a_traced_call(cache, tmp_path):
    tf.config.experimental.disable_compilation_cache()
    reference = _train(_load(tmp_path, "reference"))
    tf.config.experimental.enable_compilation_cache(str(cache))
    cold = _load(tmp_path, "cold")
    assert _train(cold, 1)[0] == reference[0][:1] and len(_entries(cache)) == 1
    warm = _load(tmp_path, "cold")           # the same code: its own, fresh variables
    warm.model.kernel.assign(cold.model.kernel)   # continue from the cold run's state
    warm.model.bias.assign(cold.model.bias)
    warm.model.scale.assign(cold.model.scale)
    losses, values = _train(warm, 2)
    assert warm.TRACES == [] and warm.step.experimental_get_tracing_count() == 0
    np.testing.assert_allclose(losses, reference[0][1:], rtol=1e-6)
    for got, want in zip(values, reference[1]):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    # the cold module's variables were left alone by the warm one's steps
    assert not np.allclose(cold.model.kernel.numpy(), values[0])


def test_a_variable_of_another_shape_misses(cache, tmp_path):
    _train(_load(tmp_path, "shape"), 1)
    (tmp_path / "shape.py").unlink()
    other = _load(tmp_path, "shape", scale_shape="[1]")    # broadcasts: same results' shape
    losses, values = _train(other, 1)
    assert len(other.TRACES) == 1 and len(_entries(cache)) == 2
    assert values[2].shape == (1,)


def _unreachable_variable(entry):
    manifest = json.loads((entry / "manifest.json").read_text())
    manifest["captures"][0] = ["global model", "attr gone"]
    (entry / "manifest.json").write_text(json.dumps(manifest))


def _written_out_of_range(entry):
    manifest = json.loads((entry / "manifest.json").read_text())
    manifest["written_args"] = [0]              # an argument, not a variable
    (entry / "manifest.json").write_text(json.dumps(manifest))


def _truncated_executable(entry):
    data = (entry / "executable.bin").read_bytes()
    (entry / "executable.bin").write_bytes(data[:len(data) // 3])


@pytest.mark.parametrize("damage", [_unreachable_variable, _written_out_of_range,
                                    _truncated_executable])
def test_a_damaged_entry_with_variables_is_a_clean_miss(cache, tmp_path, damage, caplog):
    tf.config.experimental.disable_compilation_cache()
    reference = _train(_load(tmp_path, "reference_dmg"), 2)
    tf.config.experimental.enable_compilation_cache(str(cache))
    _train(_load(tmp_path, "dmg"), 1)
    damage(cache / _entries(cache)[0])
    again = _load(tmp_path, "dmg")
    with caplog.at_level(logging.WARNING, logger="flowjit"):
        losses, values = _train(again, 2)
    assert len(again.TRACES) == 1
    np.testing.assert_allclose(losses, reference[0], rtol=1e-6)
    np.testing.assert_allclose(values[0], reference[1][0], rtol=1e-6)
    assert any("unusable" in r.getMessage() for r in caplog.records)


def test_a_variable_made_while_tracing_is_not_stored(cache):
    slots = []

    @tf.function(jit_compile=True)
    def step(x):
        if not slots:
            slots.append(tf.Variable(tf.zeros([2])))
        slots[0].assign_add(x)
        return slots[0] * 1.0

    np.testing.assert_array_equal(step(tf.constant([1.0, 2.0])), [1.0, 2.0])
    assert _entries(cache) == []


def test_a_second_process_continues_training_warm(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(MODEL.format(scale_shape="[3]") + textwrap.dedent(f"""
        import sys
        if sys.argv[1] != "none":
            tf.config.experimental.enable_compilation_cache(sys.argv[1])
        for _ in range(3):
            loss = step(tf.constant({X}), tf.constant({Y}))
        print(repr(float(loss)), model.kernel.numpy().tolist(), model.scale.numpy().tolist(),
              step.experimental_get_tracing_count())
    """))
    reference = run_script(script, "none")
    cold = run_script(script, tmp_path / "cache")
    warm = run_script(script, tmp_path / "cache")
    for run in (reference, cold, warm):
        assert run.returncode == 0, run.stderr
    assert reference.stdout == cold.stdout and reference.stdout.rstrip().endswith(" 1")
    assert warm.stdout == reference.stdout.rstrip()[:-1] + "0\n"


SIGNATURE = """
import flowjit as tf

TRACES = []


@tf.function(jit_compile=True, input_signature=[tf.TensorSpec([None], tf.float32)])
def f(x):
    TRACES.append(1)
    return tf.reduce_sum(x * x), x[::-1] * 2.0
"""


def _load_signature(tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(SIGNATURE)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_none_dims_store_an_entry_per_concrete_shape(cache, tmp_path):
    first = _load_signature(tmp_path, "sig")
    for n in (3, 5):
        first.f(tf.range(n, dtype=tf.float32))
    assert len(first.TRACES) == 1 and len(_entries(cache)) == 2
    again = _load_signature(tmp_path, "sig")
    total, flipped = again.f(tf.constant([1.0, -2.0, 0.5, 4.0, 0.0]))
    assert again.TRACES == []
    np.testing.assert_allclose(float(total), 21.25)
    np.testing.assert_array_equal(flipped.numpy(), [0.0, 8.0, 1.0, -4.0, 2.0])
    total, _ = again.f(tf.constant([2.0, 0.0, -1.0, 3.0]))     # a shape not stored: traced
    assert len(again.TRACES) == 1 and float(total) == 14.0 and len(_entries(cache)) == 3
