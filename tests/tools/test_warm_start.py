"""The persistent compilation cache: a second process (or a fresh Function of the same code)
runs the stored executable without tracing; a changed source line, closure value or global
misses; a corrupted or foreign entry is a clean miss with a warning; what cannot be keyed by
content is not stored."""
import importlib.util
import json
import logging
import os
import sys
import textwrap

import numpy as np
import pytest

import flowjit as tf

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from helpers import run_script  # noqa: E402

MODULE = """
import flowjit as tf

SCALE = {scale}
TRACES = []


@tf.function(jit_compile=True)
def f(x, n):
    TRACES.append(1)                # trace-time Python: does not run on a hit
    y = x * SCALE + n
    return tf.tanh(y){tail}, x[::-1]
"""


@pytest.fixture
def cache(tmp_path):
    tf.config.experimental.enable_compilation_cache(str(tmp_path / "cache"))
    yield tmp_path / "cache"
    tf.config.experimental.disable_compilation_cache()


def _load(tmp_path, name, scale=2.0, tail=""):
    path = tmp_path / f"{name}.py"
    path.write_text(MODULE.format(scale=scale, tail=tail))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(module, x=(1.0, -2.0, 0.0)):
    a, b = module.f(tf.constant(x), 3)
    return a.numpy(), b.numpy()


def _expected(x=(1.0, -2.0, 0.0), scale=2.0):
    x = np.asarray(x, np.float32)
    return np.tanh(x * np.float32(scale) + 3), x[::-1]


def _entries(cache):
    return sorted(os.listdir(cache)) if os.path.isdir(cache) else []


def test_a_fresh_function_of_the_same_code_runs_without_tracing(cache, tmp_path):
    first = _load(tmp_path, "first")
    out = _run(first)
    assert len(first.TRACES) == 1 and len(_entries(cache)) == 1
    entry = cache / _entries(cache)[0]
    assert sorted(os.listdir(entry)) == ["executable.bin", "manifest.json", "optimized.mlir",
                                         "stablehlo.bc"]
    assert "df.tanh" in (entry / "optimized.mlir").read_text()
    again = _load(tmp_path, "first")          # same file, same source: a hit
    for got, want in zip(_run(again), out):
        np.testing.assert_array_equal(got, want)
    assert again.TRACES == [] and again.f.experimental_get_tracing_count() == 0
    np.testing.assert_allclose(_run(again, (4.0, 5.0, -6.0))[0], _expected((4.0, 5.0, -6.0))[0],
                               rtol=1e-6)
    # another shape is another entry, traced once
    _run(again, (1.0, 2.0))
    assert again.f.experimental_get_tracing_count() == 1 and len(_entries(cache)) == 2


@pytest.mark.parametrize("change", [{"scale": 3.0}, {"tail": " * 1.0"}])
def test_a_changed_source_line_or_global_misses(cache, tmp_path, change):
    _run(_load(tmp_path, "base"))
    (tmp_path / "base.py").unlink()
    changed = _load(tmp_path, "base", **change)
    a, _ = _run(changed)
    assert len(changed.TRACES) == 1 and len(_entries(cache)) == 2
    np.testing.assert_allclose(a, _expected(scale=change.get("scale", 2.0))[0], rtol=1e-6)


def _corrupt_executable(entry):
    data = bytearray((entry / "executable.bin").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (entry / "executable.bin").write_bytes(bytes(data))


def _foreign_manifest(entry):
    manifest = json.loads((entry / "manifest.json").read_text())
    manifest["key"] = "0" * 64
    (entry / "manifest.json").write_text(json.dumps(manifest))


def _escaping_manifest(entry):
    (entry / "executable.bin").unlink()
    os.symlink("/etc/hostname", entry / "executable.bin")


def _garbage_manifest(entry):
    (entry / "manifest.json").write_bytes(b"\x00{not json")


@pytest.mark.parametrize("damage", [_corrupt_executable, _foreign_manifest,
                                    _escaping_manifest, _garbage_manifest])
def test_a_damaged_entry_is_a_clean_miss_with_a_warning(cache, tmp_path, damage, caplog):
    _run(_load(tmp_path, "dmg"))
    damage(cache / _entries(cache)[0])
    again = _load(tmp_path, "dmg")
    with caplog.at_level(logging.WARNING, logger="flowjit"):
        a, b = _run(again)
    assert len(again.TRACES) == 1             # compiled again, right answer
    np.testing.assert_allclose(a, _expected()[0], rtol=1e-6)
    assert any("compilation cache entry" in r.getMessage() and "unusable" in r.getMessage()
               for r in caplog.records)


def test_what_cannot_be_keyed_by_content_is_not_stored(cache):
    weights = tf.constant([1.0, 2.0])

    @tf.function(jit_compile=True)
    def uses_a_tensor(x):
        return x * weights

    uses_a_tensor(tf.constant([3.0, 4.0]))
    assert _entries(cache) == []


def test_a_second_process_starts_warm(tmp_path):
    script = tmp_path / "warm.py"
    script.write_text(textwrap.dedent("""
        import sys
        import flowjit as tf
        tf.config.experimental.enable_compilation_cache(sys.argv[1])

        @tf.function(jit_compile=True)
        def f(x):
            print("tracing")
            return tf.reduce_sum(tf.exp(x) * 2.0), x + 1.0

        s, y = f(tf.constant([0.0, 1.0, -1.0]))
        print(repr(float(s)), y.numpy().tolist(), f.experimental_get_tracing_count(),
              "flowjit.passes" in sys.modules)
    """))
    cold = run_script(script, tmp_path / "cache")
    warm = run_script(script, tmp_path / "cache")
    assert cold.returncode == 0 and warm.returncode == 0, cold.stderr + warm.stderr
    assert cold.stdout.splitlines()[0] == "tracing"
    result = cold.stdout.splitlines()[1]
    # a hit runs no pass, so it never loads the passes layer (xDSL: about a second)
    assert result.endswith(" 1 True") and \
        warm.stdout.splitlines() == [result[:-len("1 True")] + "0 False"]
