"""`tf.keras` is Keras 3 with its TensorFlow backend computing on flowjit, and loading it
leaves a real `tensorflow` (here a fake package) untouched."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

if importlib.util.find_spec("keras") is None:   # not importorskip: that binds Keras to TF
    pytest.skip("Keras 3 is flowjit's `keras` extra", allow_module_level=True)

import flowjit as tf  # noqa: E402

ROOT_PARENT = os.path.dirname(os.path.dirname(tf.__file__))


def test_dense_layer_computes_with_flowjit():
    layer = tf.keras.layers.Dense(3, kernel_initializer="ones", bias_initializer="zeros")
    out = layer(tf.constant([[1.0, 2.0, 0.0, -4.0], [0.5, 0.0, 0.0, 0.0]]))
    assert isinstance(out, tf.Tensor)
    np.testing.assert_array_equal(out.numpy(), [[-1.0] * 3, [0.5] * 3])
    assert isinstance(layer.kernel.value, tf.Variable)


def test_keras_backend_binds_flowjit_not_tensorflow():
    from keras.src.backend.tensorflow import core
    assert core.tf.Variable is tf.Variable
    assert tf.keras.config.backend() == "tensorflow"


def _run(code, tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT_PARENT]))
    env.pop("KERAS_BACKEND", None)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)


def test_real_tensorflow_stays_untouched(tmp_path):
    fake = tmp_path / "tensorflow"
    fake.mkdir()
    (fake / "__init__.py").write_text("IS_REAL_TENSORFLOW = True\n")
    result = _run("""
        import sys
        import flowjit as tf
        y = tf.keras.layers.Dense(2)(tf.ones([1, 3]))
        assert "tensorflow" not in sys.modules, "flowjit imported tensorflow"
        import tensorflow
        assert tensorflow.IS_REAL_TENSORFLOW
        from keras.src.backend.tensorflow import core
        assert core.tf.Variable is tf.Variable
        print("ok", type(y).__module__)
    """, tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "ok flowjit" in result.stdout


def test_keras_imported_first_is_refused(tmp_path):
    result = _run("""
        import os
        os.environ["KERAS_BACKEND"] = "numpy"
        import keras
        import flowjit as tf
        try:
            tf.keras.layers
        except ImportError as e:
            print("refused:", e)
    """, tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "refused: Keras was imported before flowjit.keras (bound to its 'numpy' backend)" \
        in result.stdout
