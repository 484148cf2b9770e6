"""Runs the lit + FileCheck suite in tests/filecheck (flowjit-opt and the df passes) and
fails with lit's report when any test fails. Skipped only when lit or filecheck is missing
(both are in the `test` extra)."""
import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

SUITE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "filecheck")


def _lit_command():
    """lit for the Python running pytest: `-m lit` where lit has a __main__, else its
    entry point through this interpreter, else a `lit` command on PATH."""
    if importlib.util.find_spec("lit") is not None:
        if importlib.util.find_spec("lit.__main__") is not None:
            return [sys.executable, "-m", "lit"]
        return [sys.executable, "-c", "import sys; from lit.main import main; sys.exit(main())"]
    exe = shutil.which("lit")
    return [exe] if exe else None


def _have_filecheck() -> bool:
    folder = os.path.dirname(sys.executable)
    return (importlib.util.find_spec("filecheck") is not None or shutil.which("filecheck")
            is not None or os.path.exists(os.path.join(folder, "filecheck")))


def test_filecheck_suite():
    lit = _lit_command()
    if lit is None:
        pytest.skip("lit is not installed (pip install -e '.[test]')")
    if not _have_filecheck():
        pytest.skip("filecheck is not installed (pip install -e '.[test]')")
    proc = subprocess.run(lit + ["-v", SUITE], capture_output=True, text=True,
                          timeout=1800)
    report = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"lit failed (exit {proc.returncode}):\n{report}"
    assert "Passed" in report, report


EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


def _run_user_suite(folder, *plugins):
    if _lit_command() is None or not _have_filecheck():
        pytest.skip("lit or filecheck is not installed (pip install -e '.[test]')")
    args = [a for p in plugins for a in ("--load-plugin", p)]
    return subprocess.run([sys.executable, "-m", "flowjit.testing.filecheck", str(folder),
                           *args, "--", "-v"], capture_output=True, text=True, timeout=600)


def test_a_users_filecheck_tests_run_with_the_project_configuration(tmp_path):
    """examples/filecheck tests the example pass through `python -m flowjit.testing.filecheck`
    (the project's lit configuration, flowjit-opt loading the plugin); a wrong CHECK fails."""
    plugin = os.path.join(EXAMPLES, "custom_pass.py")
    done = _run_user_suite(os.path.join(EXAMPLES, "filecheck"), plugin)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS: flowjit :: mul_by_two_to_add.mlir" in done.stdout
    wrong = tmp_path / "wrong.mlir"
    wrong.write_text(
        '// RUN: flowjit-opt %s -p "default,mul-by-two-to-add" | filecheck %s\n'
        "// CHECK: df.mul\n"
        "func.func @f(%0: tensor<f32>) -> tensor<f32> {\n"
        "  %1 = df.const {value = dense<2.0> : tensor<f32>, dtype = f32} : () -> tensor<f32>\n"
        "  %2 = df.mul %0, %1 : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
        "  func.return %2 : tensor<f32>\n"
        "}\n")
    failed = _run_user_suite(tmp_path, plugin)
    assert failed.returncode == 1
    assert "FAIL: flowjit :: wrong.mlir" in failed.stdout
