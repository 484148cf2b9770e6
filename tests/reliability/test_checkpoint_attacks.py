"""Crafted and damaged checkpoint files: every load path (restore, latest_checkpoint,
list_variables, CheckpointManager) answers with a clean DataLossError naming the file, fast,
without hanging on a FIFO, exhausting memory on a device or a sparse file, or touching files
outside the checkpoint folder. Also: killed-save leftovers, file modes, version 1 files."""
from __future__ import annotations

import json
import os
import random

import numpy as np
import pytest

import flowjit as tf
from helpers import finishes
from flowjit.errors import DataLossError

KEY = "v/.ATTRIBUTES/VARIABLE_VALUE"
V = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5


def _saved(folder):
    """A checkpoint of one (3, 4) float variable; returns (prefix, file bytes)."""
    ck = tf.train.Checkpoint(v=tf.Variable(V))
    prefix = ck.save(os.path.join(str(folder), "ckpt"))
    return prefix, open(prefix + ".safetensors", "rb").read()


def _restore(prefix):
    v = tf.Variable(np.zeros((3, 4), np.float32))
    tf.train.Checkpoint(v=v).restore(prefix)
    return v.numpy()


def _finishes(fn, seconds=10.0):
    return finishes(fn, seconds)


def test_every_sampled_bit_flip_and_truncation_is_data_loss(tmp_path):
    prefix, data = _saved(tmp_path)
    path = prefix + ".safetensors"
    header_end = 8 + int.from_bytes(data[:8], "little")
    rng = random.Random(0)
    offsets = rng.sample(range(header_end), 30) + rng.sample(range(header_end, len(data)), 20)
    for offset in offsets:
        flipped = bytearray(data)
        flipped[offset] ^= 1 << rng.randrange(8)
        open(path, "wb").write(bytes(flipped))
        with pytest.raises(DataLossError, match=os.path.basename(path)):
            _restore(prefix)
    for length in [0, 7, 8, header_end - 1, header_end, len(data) - 1]:
        open(path, "wb").write(data[:length])
        with pytest.raises(DataLossError, match=os.path.basename(path)):
            _restore(prefix)
    open(path, "wb").write(data)
    np.testing.assert_array_equal(_restore(prefix), V)


def _raw(header, body=b"", metadata=None):
    """Safetensors bytes of a hand-written header (a dict, or JSON text), version 1 (no
    checksums), so only the structural checks stand in the way."""
    if isinstance(header, dict):
        header = dict(header, __metadata__=metadata or {"format": "flowjit.checkpoint/1"})
        header = json.dumps(header)
    head = header.encode()
    return len(head).to_bytes(8, "little") + head + body


def _entry(shape, offsets, dtype="F32"):
    return {"dtype": dtype, "shape": shape, "data_offsets": offsets}


BODY = V.tobytes()
CRAFTED = {
    "overlapping": ({KEY: _entry([3, 4], [0, 48]), "w": _entry([2], [40, 48])}, BODY),
    "aliased": ({KEY: _entry([3, 4], [0, 48]), "w": _entry([3, 4], [0, 48])}, BODY),
    "gap": ({KEY: _entry([3, 4], [8, 56])}, bytes(8) + BODY),
    "float shape": ({KEY: _entry([2.9, 3.1], [0, 48])}, BODY),
    "string shape": ({KEY: _entry("23", [0, 48])}, BODY),
    "string dim": ({KEY: _entry(["3", 4], [0, 48])}, BODY),
    "bool dim": ({KEY: _entry([True, 12], [0, 48])}, BODY),
    "negative dims": ({KEY: _entry([-3, -4], [0, 48])}, BODY),
    "2**64": ({KEY: _entry([2**64], [0, 48])}, BODY),
    "int64 wrap": ({KEY: _entry([2**32, 2**32], [0, 0])}, b""),
    "unknown dtype": ({KEY: _entry([3, 4], [0, 48], "F128")}, BODY),
    "extra field": ({KEY: dict(_entry([3, 4], [0, 48]), code="x")}, BODY),
    "offsets past the end": ({KEY: _entry([3, 4], [0, 48])}, BODY[:40]),
    "trailing bytes": ({KEY: _entry([3, 4], [0, 48])}, BODY + bytes(1000)),
    "garbage object graph": ({KEY: _entry([3, 4], [0, 48])}, BODY,
                             {"format": "flowjit.checkpoint/1", "object_graph": "[[[1"}),
    "object graph of numbers": ({KEY: _entry([3, 4], [0, 48])}, BODY,
                                {"format": "flowjit.checkpoint/1",
                                 "object_graph": '{"objects": [[1, 2]]}'}),
    "checksums stripped from version 2": ({KEY: _entry([3, 4], [0, 48])}, BODY,
                                          {"format": "flowjit.checkpoint/2"}),
    "duplicate keys": ('{"%s": %s, "%s": %s, "__metadata__": {"format": '
                       '"flowjit.checkpoint/1"}}' % (KEY, json.dumps(_entry([3, 4], [0, 48])),
                                                     KEY, json.dumps(_entry([2], [0, 8]))),
                       BODY),
    "deep header": ("[" * 1000 + "]" * 1000, b""),
    "not an object": ("[1, 2]", b""),
}


@pytest.mark.parametrize("case", sorted(CRAFTED))
def test_crafted_headers_are_data_loss(tmp_path, case):
    prefix = str(tmp_path / "ckpt-1")
    open(prefix + ".safetensors", "wb").write(_raw(*CRAFTED[case]))
    with pytest.raises(DataLossError, match="ckpt-1.safetensors"):
        _restore(prefix)


def test_version_1_files_without_checksums_still_load(tmp_path):
    prefix = str(tmp_path / "old-1")
    open(prefix + ".safetensors", "wb").write(_raw({KEY: _entry([3, 4], [0, 48])}, BODY))
    np.testing.assert_array_equal(_restore(prefix), V)
    assert tf.train.list_variables(prefix) == [("_CHECKPOINTABLE_OBJECT_GRAPH", []),
                                               (KEY, [3, 4])]


def _state(folder, **state):
    open(os.path.join(folder, "checkpoint"), "w").write(json.dumps(state))


def test_state_and_checkpoint_files_that_are_not_regular_files(tmp_path):
    prefix, _ = _saved(tmp_path)
    state = tmp_path / "checkpoint"
    os.unlink(state)
    os.mkfifo(state)
    for call in (lambda: tf.train.latest_checkpoint(str(tmp_path)),
                 lambda: tf.train.list_variables(str(tmp_path)),
                 lambda: tf.train.CheckpointManager(tf.train.Checkpoint(), str(tmp_path), 1)):
        error = _finishes(call)
        assert isinstance(error, DataLossError) and "not a regular file" in str(error), error
    for device in ("/dev/zero", "/dev/urandom"):
        os.unlink(state)
        os.symlink(device, state)
        error = _finishes(lambda: tf.train.latest_checkpoint(str(tmp_path)))
        assert isinstance(error, DataLossError) and "checkpoint" in str(error), error
        os.unlink(prefix + ".safetensors")
        os.symlink(device, prefix + ".safetensors")
        error = _finishes(lambda: _restore(prefix))
        assert isinstance(error, DataLossError), error
    os.unlink(prefix + ".safetensors")
    os.mkfifo(prefix + ".safetensors")
    assert isinstance(_finishes(lambda: _restore(prefix)), DataLossError)


def test_sparse_16_gib_tail_is_refused_before_reading(tmp_path):
    prefix, data = _saved(tmp_path)
    with open(prefix + ".safetensors", "r+b") as f:
        f.truncate(16 << 30)   # sparse: no disk used
    error = _finishes(lambda: _restore(prefix))
    assert isinstance(error, DataLossError) and "trailing bytes" in str(error), error


@pytest.mark.parametrize("state", [
    {"model_checkpoint_path": 5, "all_model_checkpoint_paths": []},
    {"model_checkpoint_path": "ckpt-1", "all_model_checkpoint_paths": "ckpt-1"},
    {"model_checkpoint_path": "ckpt-1", "all_model_checkpoint_paths": [None]},
    [1, 2],
], ids=["number", "string list", "null entry", "not an object"])
def test_malformed_state_files(tmp_path, state):
    _saved(tmp_path)
    open(tmp_path / "checkpoint", "w").write(json.dumps(state))
    with pytest.raises(DataLossError, match="checkpoint"):
        tf.train.latest_checkpoint(str(tmp_path))
    open(tmp_path / "checkpoint", "w").write("[" * 5000 + "]" * 5000)
    with pytest.raises(DataLossError, match="checkpoint"):
        tf.train.latest_checkpoint(str(tmp_path))


@pytest.mark.parametrize("escape", ["../outside/victim", "{abs}", "link/victim"])
def test_state_file_paths_outside_the_folder(tmp_path, escape):
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.safetensors"
    victim.write_bytes(b"precious")
    folder = tmp_path / "ckpts"
    folder.mkdir()
    os.symlink(outside, folder / "link")
    name = escape.format(abs=str(outside / "victim"))
    _state(str(folder), model_checkpoint_path=name, all_model_checkpoint_paths=[name])
    with pytest.raises(DataLossError, match="outside|not a relative path"):
        tf.train.latest_checkpoint(str(folder))
    with pytest.raises(DataLossError, match="outside|not a relative path"):
        tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), str(folder), 1)
    assert victim.read_bytes() == b"precious"


def test_manager_deletes_only_its_own_checkpoints(tmp_path):
    ck = tf.train.Checkpoint(v=tf.Variable(1.0))
    other = tf.train.Checkpoint(v=tf.Variable(2.0)).write(str(tmp_path / "keepme"))
    _state(str(tmp_path), model_checkpoint_path="keepme", all_model_checkpoint_paths=["keepme"])
    manager = tf.train.CheckpointManager(ck, str(tmp_path), max_to_keep=1)
    for _ in range(3):
        manager.save()
    assert os.path.exists(other + ".safetensors")
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-3.safetensors",
                                            "keepme.safetensors"]


def test_leftovers_of_dead_writers_are_removed_live_ones_kept(tmp_path):
    ck = tf.train.Checkpoint(v=tf.Variable(1.0))
    manager = tf.train.CheckpointManager(ck, str(tmp_path), max_to_keep=2)
    manager.save()
    dead = 2 ** 22 + 7   # above the default pid_max: no such process
    (tmp_path / f"ckpt-2.safetensors.{dead}.x1.tmp").write_bytes(b"half")
    (tmp_path / f"checkpoint.{dead}.x2.tmp").write_bytes(b"half")
    (tmp_path / f"ckpt-9.safetensors.{os.getppid()}.x3.tmp").write_bytes(b"writing")
    tf.train.CheckpointManager(ck, str(tmp_path), max_to_keep=2)
    assert sorted(os.listdir(tmp_path)) == [
        "checkpoint", "ckpt-1.safetensors", f"ckpt-9.safetensors.{os.getppid()}.x3.tmp"]


def test_files_get_the_umask_mode(tmp_path):
    old = os.umask(0o027)
    try:
        prefix, _ = _saved(tmp_path)
    finally:
        os.umask(old)
    assert os.stat(prefix + ".safetensors").st_mode & 0o777 == 0o640
    assert os.stat(tmp_path / "checkpoint").st_mode & 0o777 == 0o640
    prefix, _ = _saved(tmp_path / "default")
    assert os.stat(prefix + ".safetensors").st_mode & 0o777 == 0o666 & ~old


def test_checkpoint_save_replaces_a_damaged_state_file(tmp_path):
    open(tmp_path / "checkpoint", "w").write('{"model_checkpoint_path": 5}')
    ck = tf.train.Checkpoint(v=tf.Variable(V))
    with pytest.warns(UserWarning, match="checkpoint state file"):
        path = ck.save(str(tmp_path / "ckpt"))
    assert tf.train.latest_checkpoint(str(tmp_path)) == path
    np.testing.assert_array_equal(_restore(path), V)
