"""The extension examples run as programs (each in a fresh interpreter, so what they register
never reaches this process) and print numbers that match NumPy."""
from __future__ import annotations

import ast
import os
import re

import numpy as np

from helpers import run_script

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


def _run(name: str) -> str:
    done = run_script(os.path.join(EXAMPLES, name), timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _printed(stdout: str, label: str) -> np.ndarray:
    """The list printed after `label`, as an array."""
    m = re.search(re.escape(label) + r" = (\[.*?\])", stdout)
    assert m, f"no '{label} = [...]' in:\n{stdout}"
    return np.array(ast.literal_eval(m.group(1)))


def test_custom_op_example():
    out = _run("custom_op.py")
    x = np.array([-30.0, -1.5, 0.0, 0.25, 2.0])
    for mode in ("eager", "graph", "xla"):
        np.testing.assert_allclose(_printed(out, f"{mode}: log_cosh(x)"), np.log(np.cosh(x)),
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(_printed(out, f"{mode}: d/dx"), np.tanh(x), rtol=1e-5,
                                   atol=1e-6)
    assert "df.log_cosh" in out


def test_custom_pass_example():
    out = _run("custom_pass.py")
    traced, optimized = out.split("optimized (")
    assert "df.mul" in traced and "df.add" not in traced
    assert "df.add %0, %0" in optimized and "df.mul" not in optimized
    x = np.array([0.5, -3.0, 4.0], np.float32)
    np.testing.assert_array_equal(_printed(out, "scale(x)"), x * 2 - 1)


def test_custom_lowering_example():
    out = _run("custom_lowering.py")
    builtin, user = out.split("user rule:")
    assert "stablehlo.logistic" in builtin and "stablehlo.tanh" not in builtin
    assert "stablehlo.tanh" in user and "stablehlo.logistic" not in user
    x = np.array([-4.0, -0.5, 0.0, 1.0, 3.0])
    np.testing.assert_allclose(_printed(out, "sigmoid(x)"), 1 / (1 + np.exp(-x)), rtol=1e-6)
