"""`fit`/`evaluate`/`predict` of Keras 3 on flowjit give Keras-on-TF's recorded losses and
metrics (tools/record_keras.py) in the graph executor and under XLA; a saved model loads in a
fresh process and predicts the same."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

if importlib.util.find_spec("keras") is None:   # not importorskip: that binds Keras to TF
    pytest.skip("Keras 3 is flowjit's `keras` extra", allow_module_level=True)

import flowjit as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import fit_cases  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "keras_fit.json")
RECORDED = json.load(open(DATA))["cases"]
ROOT_PARENT = os.path.dirname(os.path.dirname(tf.__file__))


@pytest.mark.parametrize("jit_compile", [False, True], ids=["executor", "xla"])
@pytest.mark.parametrize("case", list(fit_cases.CASES))
def test_fit_matches_keras_on_tensorflow(case, jit_compile):
    got = fit_cases.fit(tf.keras, case, jit_compile=jit_compile)
    want = RECORDED[case]
    # float16 compute rounds each op (the oracle's float16 tolerance); float32 to 1e-5
    tol = 2e-3 if case in fit_cases.POLICIES else 1e-5
    assert sorted(got["history"]) == sorted(want["history"])
    for key, values in want["history"].items():
        np.testing.assert_allclose(got["history"][key], values, rtol=tol, atol=tol,
                                   err_msg=key)
    for key, value in want["evaluate"].items():
        np.testing.assert_allclose(got["evaluate"][key], value, rtol=tol, atol=tol,
                                   err_msg=key)
    np.testing.assert_allclose(got["predict"], want["predict"], rtol=tol, atol=tol)
    assert got.get("loss_scale") == want.get("loss_scale")


def test_saved_model_predicts_the_same_in_a_fresh_process(tmp_path):
    keras = tf.keras
    model, optimizer, loss = fit_cases.build(keras, "conv_sgd")
    model.compile(optimizer=optimizer, loss=loss)
    (x, y), (vx, _) = fit_cases.data("conv_sgd")
    model.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    model.save(tmp_path / "model.keras")
    model.save_weights(tmp_path / "model.weights.h5")
    np.save(tmp_path / "x.npy", vx)
    np.save(tmp_path / "want.npy", model.predict(vx, verbose=0))
    code = textwrap.dedent("""
        import numpy as np
        import flowjit as tf
        import fit_cases
        x, want = np.load("x.npy"), np.load("want.npy")
        loaded = tf.keras.models.load_model("model.keras")
        np.testing.assert_allclose(loaded.predict(x, verbose=0), want, rtol=0, atol=0)
        fresh, _, _ = fit_cases.build(tf.keras, "conv_sgd")
        assert not np.allclose(fresh.predict(x, verbose=0), want)
        fresh.load_weights("model.weights.h5")
        np.testing.assert_allclose(fresh.predict(x, verbose=0), want, rtol=0, atol=0)
        print("same")
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT_PARENT, os.path.dirname(__file__)]))
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "same" in result.stdout
