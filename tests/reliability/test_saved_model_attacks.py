"""Crafted and damaged SavedModels: `tf.saved_model.load` answers with a clean error (mostly
DataLossError naming the folder and the file), fast, for flipped bits, swapped or foreign
artifacts, paths leading out of the folder, FIFOs and devices, manifests that disagree with
their modules (re-signed by a forger so the checksums match), versions from the future and
Python functions. Save side: files get the umask's mode, no absolute paths of the saving
machine unless asked, a failed save leaves nothing behind."""
from __future__ import annotations

import json
import os
import random
import shutil

import numpy as np
import pytest

import flowjit as tf
from flowjit.errors import DataLossError, InvalidArgumentError, UnimplementedError
from helpers import finishes
from saved_model_forge import resign


class Affine(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(np.array([[1.0, -2.0], [0.5, 3.0]], np.float32))

    @tf.function(input_signature=[tf.TensorSpec([4, 2], tf.float32)])
    def __call__(self, x):
        return x @ self.w + 1.0

    @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
    def other(self, x):
        return x * 2.0


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("attacks") / "model")
    tf.saved_model.save(Affine(), path)
    return path


def _copy(saved, tmp_path, name="copy"):
    dst = str(tmp_path / name)
    shutil.copytree(saved, dst, symlinks=True)
    return dst


def _manifest(path):
    return json.load(open(os.path.join(path, "saved_model.json")))


def _fn(manifest, attr="__call__"):
    return manifest["functions"][manifest["root"]["functions"][attr][0]]


def _load_error(path, seconds=20.0):
    """The exception `load(path)` raises (failing the test if it loads or blocks)."""
    error = finishes(lambda: tf.saved_model.load(path), seconds)
    assert error is not None, f"load({path}) accepted a damaged SavedModel"
    return error


def test_intact_copy_loads(saved, tmp_path):
    loaded = tf.saved_model.load(_copy(saved, tmp_path))
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    np.testing.assert_allclose(loaded(tf.constant(x)).numpy(),
                               x @ np.array([[1.0, -2.0], [0.5, 3.0]], np.float32) + 1.0)


def test_sampled_bit_flips_in_every_file(saved, tmp_path):
    rng = random.Random(0)
    files = sorted(os.path.relpath(os.path.join(d, f), saved)
                   for d, _, fs in os.walk(saved) for f in fs)
    assert len(files) >= 5   # manifest, variables, captures, modules, a StableHLO artifact
    for rel in files:
        data = open(os.path.join(saved, rel), "rb").read()
        for offset in rng.sample(range(len(data)), min(4, len(data))):
            path = _copy(saved, tmp_path, f"flip{len(os.listdir(tmp_path))}")
            flipped = bytearray(data)
            flipped[offset] ^= 1 << rng.randrange(8)
            open(os.path.join(path, rel), "wb").write(bytes(flipped))
            error = _load_error(path)
            assert isinstance(error, DataLossError), (rel, offset, error)
            shutil.rmtree(path)


@pytest.mark.parametrize("target", ["../../../../etc/passwd", "/etc/passwd",
                                    "functions/../../outside"])
def test_artifact_paths_outside_the_folder(saved, tmp_path, target):
    path = _copy(saved, tmp_path)
    manifest = _manifest(path)
    _fn(manifest)["stablehlo"]["file"] = target
    manifest["checksums"][target] = 0
    resign(path, manifest)
    error = _load_error(path)
    assert isinstance(error, DataLossError) and "not a relative path inside" in str(error), error


def test_symlink_leading_out(saved, tmp_path):
    path = _copy(saved, tmp_path)
    outside = tmp_path / "outside.mlir"
    shutil.copy(os.path.join(path, "functions", "fn_0.mlir"), outside)
    os.unlink(os.path.join(path, "functions", "fn_0.mlir"))
    os.symlink(outside, os.path.join(path, "functions", "fn_0.mlir"))
    error = _load_error(path)
    assert isinstance(error, DataLossError) and "outside" in str(error), error


@pytest.mark.parametrize("rel", ["functions/fn_0.mlir", "functions/captures.safetensors",
                                 "variables/variables.safetensors", "saved_model.json"])
def test_fifos_and_devices(saved, tmp_path, rel):
    path = _copy(saved, tmp_path)
    os.unlink(os.path.join(path, rel))
    os.mkfifo(os.path.join(path, rel))
    error = _load_error(path)
    assert isinstance(error, DataLossError) and "not a regular file" in str(error), error
    os.unlink(os.path.join(path, rel))
    os.symlink("/dev/zero", os.path.join(path, rel))   # outside the folder, and a device
    assert isinstance(_load_error(path), DataLossError)


def test_missing_files(saved, tmp_path):
    for rel in ["functions/fn_0.mlir", "functions/fn_0.stablehlo",
                "variables/variables.safetensors"]:
        path = _copy(saved, tmp_path, rel.replace("/", "_"))
        os.unlink(os.path.join(path, rel))
        error = _load_error(path)
        assert isinstance(error, DataLossError) and "missing" in str(error), (rel, error)


def _forged(saved, tmp_path, change):
    path = _copy(saved, tmp_path)
    manifest = _manifest(path)
    change(manifest, path)
    resign(path, manifest)
    return path


def _set_key(shape, dtype="float32"):
    def change(manifest, path):
        _fn(manifest)["input_key"] = {"tuple": [{"tensor": [dtype, shape]}]}
    return change


def _set_output(index):
    def change(manifest, path):
        _fn(manifest)["outputs"] = {"out": index}
    return change


def _swap_module(manifest, path):
    other = _fn(manifest, "other")
    fid = manifest["root"]["functions"]["__call__"][0]
    shutil.copy(os.path.join(path, "functions", manifest["root"]["functions"]["other"][0]
                             + ".mlir"), os.path.join(path, "functions", fid + ".mlir"))
    assert other is not _fn(manifest)


def _random_artifact(manifest, path):
    open(os.path.join(path, _fn(manifest)["stablehlo"]["file"]), "wb").write(
        random.Random(1).randbytes(3000))


FORGED = {
    "shape [5, 2] vs [4, 2]": _set_key([5, 2]),
    "int32 vs float32": _set_key([4, 2], "int32"),
    "negative dim": _set_key([-4, 2]),
    "float dim": _set_key([4.0, 2]),
    "string dim": _set_key(["4", 2]),
    "unknown dtype": _set_key([4, 2], "float128"),
    "output 7": _set_output(7),
    "output -1": _set_output(-1),
    "output 0.5": _set_output(0.5),
    "module swapped": _swap_module,
    "random StableHLO": _random_artifact,
    "captures not a list": lambda m, p: _fn(m).update(captures=5),
    "unknown function": lambda m, p: m["root"]["functions"].update(__call__=["fn_99"]),
}


@pytest.mark.parametrize("case", sorted(FORGED))
def test_manifest_that_disagrees_with_its_files(saved, tmp_path, case):
    error = _load_error(_forged(saved, tmp_path, FORGED[case]))
    assert isinstance(error, DataLossError) and "is damaged" in str(error), error


def test_deeply_nested_manifest(saved, tmp_path):
    path = _copy(saved, tmp_path)
    manifest = os.path.join(path, "saved_model.json")
    text = open(manifest).read()
    open(manifest, "w").write(text.replace('"root": {', '"deep": ' + "[" * 2000 + "]" * 2000
                                           + ', "root": {', 1))
    error = _load_error(path)
    assert isinstance(error, DataLossError) and "nested" in str(error), error


def test_unsigned_edit_is_a_checksum_mismatch(saved, tmp_path):
    path = _copy(saved, tmp_path)
    manifest = _manifest(path)
    _fn(manifest)["input_key"] = {"tuple": [{"tensor": ["float32", [5, 2]]}]}
    json.dump(manifest, open(os.path.join(path, "saved_model.json"), "w"))
    error = _load_error(path)
    assert isinstance(error, DataLossError) and "checksum mismatch" in str(error), error


def test_versions_from_the_future(saved, tmp_path):
    def stablehlo(manifest, path):
        _fn(manifest)["stablehlo"]["version"] = "99.0.0"
    error = _load_error(_forged(saved, tmp_path, stablehlo))
    assert isinstance(error, UnimplementedError) and "reads versions" in str(error), error

    path = _copy(saved, tmp_path, "format")
    manifest = _manifest(path)
    manifest["format"] = "flowjit.saved_model/99"
    resign(path, manifest)
    error = _load_error(path)
    assert isinstance(error, UnimplementedError) and "versions 1 to 2" in str(error), error


def test_python_functions_are_refused_on_load(tmp_path):
    class Calls(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
        def __call__(self, x):
            return tf.py_function(lambda a: a * 2.0, [x], tf.float32)

    path = str(tmp_path / "py")
    tf.saved_model.save(Calls(), path)   # XLA refuses py_function: saved without StableHLO
    assert _fn(_manifest(path))["stablehlo"] is None
    error = _load_error(path)
    assert isinstance(error, InvalidArgumentError) and "Could not find callback" in str(error)


def test_save_modes_debug_info_and_failures(tmp_path):
    old = os.umask(0o027)
    try:
        tf.saved_model.save(Affine(), str(tmp_path / "m"))
    finally:
        os.umask(old)
    for d, dirs, fs in os.walk(tmp_path / "m"):
        assert os.stat(d).st_mode & 0o777 == 0o750, d
        for f in fs:
            assert os.stat(os.path.join(d, f)).st_mode & 0o777 == 0o640, f
    here = os.path.abspath(__file__).encode()
    texts = [open(os.path.join(d, f), "rb").read() for d, _, fs in os.walk(tmp_path / "m")
             for f in fs]
    assert not any(here in t for t in texts)
    tf.saved_model.save(Affine(), str(tmp_path / "debug"),
                        options=tf.saved_model.SaveOptions(save_debug_info=True))
    assert here in open(tmp_path / "debug" / "functions" / "fn_0.mlir", "rb").read()

    class Broken(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
        def __call__(self, x):
            raise RuntimeError("boom")

    before = sorted(os.listdir(tmp_path))
    with pytest.raises(RuntimeError, match="boom"):
        tf.saved_model.save(Broken(), str(tmp_path / "broken"))
    with pytest.raises(RuntimeError, match="boom"):
        tf.saved_model.save(Broken(), str(tmp_path / "m"))   # the old model stays whole
    assert sorted(os.listdir(tmp_path)) == before
    assert tf.saved_model.load(str(tmp_path / "m")).w.shape == (2, 2)


def test_resave_replaces_the_whole_folder_and_refuses_foreign_files(tmp_path):
    path = str(tmp_path / "m")
    tf.saved_model.save(Affine(), path)
    open(os.path.join(path, "functions", "fn_7.mlir"), "w").write("stale")

    class Small(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(3.0)
    tf.saved_model.save(Small(), path)
    assert not os.path.exists(os.path.join(path, "functions", "fn_7.mlir"))
    assert float(tf.saved_model.load(path).v) == 3.0
    open(os.path.join(path, "notes.txt"), "w").write("mine")
    with pytest.raises(ValueError, match="notes.txt"):
        tf.saved_model.save(Small(), path)
    assert os.path.exists(os.path.join(path, "notes.txt"))
