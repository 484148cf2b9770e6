"""`flowjit-opt --load-plugin FILE.py|PACKAGE|module` and the `flowjit.plugins` entry points:
user ops, passes and rules are known before the input is parsed. Every flowjit-opt here runs
in a fresh interpreter, so no plugin registers anything in this process."""
from __future__ import annotations

import glob
import os
import subprocess
import sys
import textwrap

import numpy as np

import flowjit as tf

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "examples")

NOOP_PASS = '''
from dataclasses import dataclass
from xdsl.passes import ModulePass
from flowjit.extend import register_pass


@register_pass
@dataclass(frozen=True)
class Noop(ModulePass):
    """Does nothing ({name})."""
    name = "{name}"

    def apply(self, ctx, module):
        pass
'''


def opt(*args, extra_path=None):
    env = dict(os.environ)
    if extra_path:
        env["PYTHONPATH"] = os.pathsep.join([str(extra_path), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "flowjit.frontend.tools.opt_cli", *map(str, args)],
                          capture_output=True, text=True, timeout=300, env=env)


def test_the_example_pass_runs_on_a_dumped_module(tmp_path, monkeypatch):
    monkeypatch.setenv("FLOWJIT_DUMP_TO", str(tmp_path))
    x = np.array([1.0, -2.0, 5.0], np.float32)
    scale = tf.function(lambda t: t * 2.0 - 1.0)
    np.testing.assert_array_equal(scale(tf.constant(x)).numpy(), x * 2 - 1)
    (dumped,) = glob.glob(str(tmp_path / "*.dataflow.mlir"))
    done = opt("--load-plugin", os.path.join(EXAMPLES, "custom_pass.py"), "-p",
               "default,mul-by-two-to-add", dumped)
    assert done.returncode == 0, done.stderr
    assert "df.add %0, %0" in done.stdout and "df.mul" not in done.stdout


def test_the_example_op_parses_runs_passes_and_lowers(tmp_path):
    src = tmp_path / "log_cosh.mlir"
    src.write_text(textwrap.dedent("""\
        func.func @f(%0: tensor<3xf32>) -> tensor<3xf32> {
          %1 = df.log_cosh %0 : (tensor<3xf32>) -> tensor<3xf32>
          func.return %1 : tensor<3xf32>
        }
        """))
    plugin = os.path.join(EXAMPLES, "custom_op.py")
    done = opt("--load-plugin", plugin, "--default-pipeline", "--lower-to", "stablehlo", src)
    assert done.returncode == 0, done.stderr
    assert "stablehlo.log_plus_one" in done.stdout
    without = opt(src)
    assert without.returncode == 1 and "df.log_cosh" in without.stderr


def test_plugins_from_a_package_folder_a_file_and_a_module_name(tmp_path):
    package = tmp_path / "my_plugin_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from . import passes\n")
    (package / "passes.py").write_text(NOOP_PASS.format(name="noop-from-package"))
    (tmp_path / "noop_file.py").write_text(NOOP_PASS.format(name="noop-from-file"))
    modules = tmp_path / "site"
    modules.mkdir()
    (modules / "noop_module.py").write_text(NOOP_PASS.format(name="noop-from-module"))
    done = opt("--load-plugin", package, "--load-plugin", tmp_path / "noop_file.py",
               "--load-plugin", "noop_module", "--list-passes", extra_path=modules)
    assert done.returncode == 0, done.stderr
    for name in ("noop-from-package", "noop-from-file", "noop-from-module"):
        assert f"  {name}: Does nothing ({name})." in done.stdout


def test_entry_point_plugins_load_without_a_flag(tmp_path):
    (tmp_path / "noop_entry.py").write_text(NOOP_PASS.format(name="noop-from-entry-point"))
    info = tmp_path / "noop_entry-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: noop-entry\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[flowjit.plugins]\nnoop = noop_entry\n")
    done = opt("--list-passes", extra_path=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "noop-from-entry-point" in done.stdout


def test_a_failing_plugin_is_a_diagnostic(tmp_path):
    bad = tmp_path / "bad_plugin.py"
    bad.write_text("raise RuntimeError('no GPU here')\n")
    done = opt("--load-plugin", bad, "--list-passes")
    assert done.returncode == 1
    assert done.stderr == (f"flowjit-opt: error: cannot load plugin '{bad}': "
                           f"RuntimeError: no GPU here\n")
    missing = opt("--load-plugin", tmp_path / "missing.py", "--list-passes")
    assert missing.returncode == 1
    assert missing.stderr == (f"flowjit-opt: error: cannot load plugin '{tmp_path}/missing.py': "
                              f"ImportError: no such file or folder: '{tmp_path}/missing.py'\n")
