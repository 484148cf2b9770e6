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
