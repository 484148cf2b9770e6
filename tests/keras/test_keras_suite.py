"""The sample of Keras's own test files CI runs against flowjit-bound Keras
(`python -m flowjit.testing.keras_suite --quick`; the chosen set is `SUITE` there)."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

if importlib.util.find_spec("keras") is None:
    pytest.skip("Keras 3 is flowjit's `keras` extra", allow_module_level=True)

import flowjit  # noqa: E402

ROOT_PARENT = os.path.dirname(os.path.dirname(flowjit.__file__))


def test_quick_sample_of_keras_tests_passes():
    env = dict(os.environ, PYTHONPATH=ROOT_PARENT)
    result = subprocess.run([sys.executable, "-m", "flowjit.testing.keras_suite", "--quick",
                             "--min-pass-rate", "1.0"], env=env, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "pass rate 100.0%" in result.stdout
