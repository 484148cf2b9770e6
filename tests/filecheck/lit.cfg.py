"""lit configuration for the FileCheck tests of flowjit-opt and the df passes.

    python -m pytest tests/test_filecheck.py     (or: lit -v tests/filecheck)

Every `*.mlir` file here is a test: its `// RUN:` lines run in lit's internal shell, where
`flowjit-opt` is the console script installed next to the Python running lit (else
`python -m flowjit.frontend.opt_cli` with that Python; FLOWJIT_OPT overrides both) and
`filecheck` is the PyPI `filecheck` package's command (else `python -m filecheck`).
Nothing depends on PATH, so a clean virtual environment works without activating it.
"""
import hashlib
import os
import shlex
import shutil
import sys
import sysconfig
import tempfile

import lit.formats

config.name = "flowjit"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
# Keep lit's Output/ folders (for %t files) out of the source tree, one per checkout: two
# checkouts sharing one folder overwrite each other's %t files mid-test.
_checkout = hashlib.sha1(config.test_source_root.encode()).hexdigest()[:10]
config.test_exec_root = os.path.join(tempfile.gettempdir(), f"flowjit-lit-{_checkout}")


def _script(name):
    """`name` installed for the Python running lit (its scripts folder or next to it)."""
    exe = ".exe" if sys.platform == "win32" else ""
    for folder in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        path = os.path.join(folder, name + exe)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def _command(script, module):
    override = os.environ.get(script.upper().replace("-", "_"))
    if override:
        return override
    path = _script(script)
    if path:
        return shlex.quote(path)
    return f"{shlex.quote(sys.executable)} -m {module}"


flowjit_opt = _command("flowjit-opt", "flowjit.frontend.opt_cli")
filecheck = _command("filecheck", "filecheck")
if _script("filecheck") is None and shutil.which("filecheck") and "FILECHECK" not in os.environ:
    filecheck = shlex.quote(shutil.which("filecheck"))

# A tool name as a whole word only: not inside paths (`tests/filecheck/x.mlir`) or names.
_WORD = r"(?<![\w/.-]){}(?![\w.-])"
config.substitutions.append((_WORD.format("flowjit-opt"), flowjit_opt))
config.substitutions.append((_WORD.format("filecheck"), filecheck))
config.substitutions.append((_WORD.format("FileCheck"), filecheck))

for var in ("PYTHONPATH", "PYTHONHASHSEED", "VIRTUAL_ENV", "JAX_PLATFORMS", "XLA_FLAGS",
            "JAX_ENABLE_X64"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
for var, value in os.environ.items():
    if var.startswith("FLOWJIT_"):
        config.environment[var] = value
