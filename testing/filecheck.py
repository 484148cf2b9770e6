"""FileCheck tests of `flowjit-opt` with lit: the configuration the project's own suite
(tests/filecheck/lit.cfg.py) uses, and a runner for a user's `.mlir` tests with their plugins:

    python -m flowjit.testing.filecheck my_tests/ --load-plugin my_pass.py [-- -v]

Every `*.mlir` file under the folder is a test: its `// RUN:` lines run in lit's internal
shell, where `flowjit-opt` is the console script installed next to the Python running lit
(else `python -m flowjit.frontend.tools.opt_cli` with that Python; FLOWJIT_OPT overrides both), with
each `--load-plugin` added, and `filecheck` is the PyPI `filecheck` package's command (else
`python -m filecheck`; FILECHECK overrides). Nothing depends on PATH, so a clean virtual
environment works without activating it.

lit loads this file by its path (it imports nothing of flowjit, so loading it is cheap).
"""
from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile

# A tool name as a whole word only: not inside paths (`tests/filecheck/x.mlir`) or names.
_WORD = r"(?<![\w/.-]){}(?![\w.-])"
_PASSED_ENV = ("PYTHONPATH", "PYTHONHASHSEED", "VIRTUAL_ENV", "JAX_PLATFORMS", "XLA_FLAGS",
               "JAX_ENABLE_X64")


def configure(config, source_root: str, plugins=()) -> None:
    """Fill a lit `config` for the `.mlir` tests under `source_root`, with `flowjit-opt`
    loading each of `plugins` (files, package folders or module names)."""
    import lit.formats
    config.name = "flowjit"
    config.test_format = lit.formats.ShTest(execute_external=False)
    config.suffixes = [".mlir"]
    config.test_source_root = os.path.abspath(source_root)
    # Keep lit's Output/ folders (for %t files) out of the source tree, one folder per test
    # folder so two checkouts tested at once never share %t files.
    tree = hashlib.sha1(config.test_source_root.encode()).hexdigest()[:10]
    config.test_exec_root = os.path.join(tempfile.gettempdir(), f"flowjit-lit-{tree}")

    flowjit_opt = _command("flowjit-opt", "flowjit.frontend.tools.opt_cli")
    for plugin in plugins:
        path = os.path.abspath(plugin)
        flowjit_opt += " --load-plugin " + shlex.quote(path if os.path.exists(path) else plugin)
    filecheck = _command("filecheck", "filecheck")
    if _script("filecheck") is None and shutil.which("filecheck") and \
            "FILECHECK" not in os.environ:
        filecheck = shlex.quote(shutil.which("filecheck"))
    config.substitutions.append((_WORD.format("flowjit-opt"), flowjit_opt))
    config.substitutions.append((_WORD.format("filecheck"), filecheck))
    config.substitutions.append((_WORD.format("FileCheck"), filecheck))

    for var in _PASSED_ENV:
        if var in os.environ:
            config.environment[var] = os.environ[var]
    for var, value in os.environ.items():
        if var.startswith("FLOWJIT_"):
            config.environment[var] = value


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


# lit finds this as the suite's site configuration: the suite's tests live elsewhere
# (`test_source_root`), as LLVM's build folders point at their source folders.
_SITE_CONFIG = """\
import importlib.util
_spec = importlib.util.spec_from_file_location("flowjit_lit_config", {here!r})
_config = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_config)
_config.configure(config, {source_root!r}, {plugins!r})
"""


def run(folder: str, plugins=(), lit_args=()) -> int:
    """Run lit on the `.mlir` tests under `folder`; returns lit's exit status."""
    with tempfile.TemporaryDirectory(prefix="flowjit-lit-site-") as site:
        with open(os.path.join(site, "lit.site.cfg.py"), "w", encoding="utf-8") as f:
            f.write(_SITE_CONFIG.format(here=os.path.abspath(__file__),
                                        source_root=os.path.abspath(folder),
                                        plugins=[os.path.abspath(p) if os.path.exists(p)
                                                 else p for p in plugins]))
        return subprocess.call([sys.executable, "-c",
                                "import sys; from lit.main import main; sys.exit(main())",
                                site, *lit_args])


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python -m flowjit.testing.filecheck",
                                 description="Run the .mlir FileCheck tests under a folder "
                                             "with flowjit-opt (and plugins) under lit.",
                                 epilog="Options after `--` go to lit (e.g. `-- -v`).")
    ap.add_argument("folder")
    ap.add_argument("--load-plugin", action="append", default=[], metavar="PLUGIN",
                    help="a .py file, package folder or module flowjit-opt loads (repeatable)")
    argv = sys.argv[1:] if argv is None else list(argv)
    lit_args = argv[argv.index("--") + 1:] if "--" in argv else []
    args = ap.parse_args(argv[:len(argv) - len(lit_args) - (1 if "--" in argv else 0)])
    return run(args.folder, args.load_plugin, lit_args)


if __name__ == "__main__":
    sys.exit(main())
