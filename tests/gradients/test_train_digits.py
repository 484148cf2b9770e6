"""The digits example trains: a short run reaches a reasonable accuracy under XLA and on the
graph executor, and --dump writes the train step's compiler stages."""
import importlib.util
import os

import pytest

pytest.importorskip("sklearn")

_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "train_digits.py")


def _example():
    spec = importlib.util.spec_from_file_location("train_digits", _PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_two_epochs_under_xla():
    result = _example().train(epochs=2, verbose=False)
    assert result["accuracy"] >= 0.9
    assert result["history"][1][0] < result["history"][0][0]     # the loss went down
    assert result["traces"] == 2   # TF 2.21: Adam's slots are created on the first call,
    # whose trace TF redoes with variable creation refused; no later call retraces


def test_graph_executor_and_dump(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("FLOWJIT_DUMP_TO", "")   # restored (removed) after the test
    result = _example().main(["--epochs", "1", "--no-jit", "--dump", str(tmp_path)])
    assert result["accuracy"] >= 0.85
    out = capsys.readouterr().out
    assert "epoch  1/1" in out and "test accuracy" in out and "graph executor" in out
    names = os.listdir(tmp_path)
    assert any(n.startswith("train_step.") for n in names), names
