"""lit configuration for the FileCheck tests of flowjit-opt and the df passes.

    python -m pytest tests/test_filecheck.py     (or: lit -v tests/filecheck)

The configuration itself is flowjit's `testing/filecheck.py` (users run their own `.mlir`
tests with it: `python -m flowjit.testing.filecheck DIR --load-plugin X`); it is loaded by
path, so lit needs no installed flowjit to read it.
"""
import importlib.util
import os

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "flowjit_lit_config", os.path.join(_here, "..", "..", "testing", "filecheck.py"))
_config = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_config)
_config.configure(config, _here)
