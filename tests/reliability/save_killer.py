"""Kill saves at random moments and check what survives (run as a script by
test_save_kills.py; `python tests/reliability/save_killer.py checkpoint,savedmodel 50 0` runs 50 trials of each).

Each trial forks a writer that saves in a loop (checkpoint: a CheckpointManager with
`max_to_keep=1`; savedmodel: one folder saved over and over), SIGKILLs it after a random delay,
then checks the folder: the newest complete save must be found and restore consistently (every
value of save N equals N). One JSON line per trial: {"kind", "trial", "saves", "found", "error"}.
Forking after the import makes a trial cost milliseconds instead of an interpreter start.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sys
import tempfile
import time

import numpy as np

import flowjit as tf

_SIZE = 1 << 16   # floats per variable: a save takes a few milliseconds


def _checkpoint_writer(folder, done):
    v = tf.Variable(np.zeros(_SIZE, np.float32))
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), folder, max_to_keep=1)
    for n in range(1, 1 << 30):
        v.assign(np.full(_SIZE, n, np.float32))
        manager.save(checkpoint_number=n)
        os.write(done, b"+")


def _checkpoint_check(folder):
    """The number of the checkpoint that restores, or None; raises on an inconsistent one."""
    path = tf.train.latest_checkpoint(folder)
    if path is None:
        return None
    v = tf.Variable(np.zeros(_SIZE, np.float32))
    tf.train.Checkpoint(v=v).restore(path)
    n = int(path.rsplit("-", 1)[1])
    if not (v.numpy() == n).all():
        raise AssertionError(f"{path} restored {v.numpy()[:3]}, not {n}")
    # the next manager cleans the killed save's temporary files up
    tf.train.CheckpointManager(tf.train.Checkpoint(v=v), folder, max_to_keep=1).save(n + 1)
    left = [f for f in os.listdir(folder) if f.endswith(".tmp")]
    if left:
        raise AssertionError(f"temporary files left after the next save: {left}")
    return n


class _Model(tf.Module):
    def __init__(self, n):
        super().__init__()
        self.v = tf.Variable(np.full(_SIZE, n, np.float32))
        self.n = tf.constant(np.float32(n))   # captured by value: saved with the function

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def probe(self, x):
        return self.v[0] - self.n + x


def _savedmodel_writer(folder, done):
    model_dir = os.path.join(folder, "model")
    for n in range(1, 1 << 30):
        tf.saved_model.save(_Model(n), model_dir)
        os.write(done, b"+")


def _savedmodel_check(folder):
    model_dir = os.path.join(folder, "model")
    if not os.path.exists(model_dir):
        return None
    loaded = tf.saved_model.load(model_dir)
    n = int(loaded.v.numpy()[0])
    if float(loaded.probe(tf.constant(0.0))) != 0.0 or not (loaded.v.numpy() == n).all():
        raise AssertionError(f"the function and the variables come from different saves")
    tf.saved_model.save(_Model(n + 1), model_dir)   # cleans the killed save's folder up
    left = [f for f in os.listdir(folder) if f != "model"]
    if left:
        raise AssertionError(f"temporary folders left after the next save: {left}")
    return n


# kind -> (writer, check, longest delay before the kill: a few saves' time)
_KINDS = {"checkpoint": (_checkpoint_writer, _checkpoint_check, 0.4),
          "savedmodel": (_savedmodel_writer, _savedmodel_check, 1.2)}


# one save of number 1 holding 1s, which the kind's check accepts
_ONE_SAVE = {
    "checkpoint": lambda folder: tf.train.CheckpointManager(
        tf.train.Checkpoint(v=tf.Variable(np.ones(_SIZE, np.float32))), folder,
        max_to_keep=1).save(1),
    "savedmodel": lambda folder: tf.saved_model.save(_Model(1), os.path.join(folder, "model")),
}


def main(kinds, trials, seed):
    rng = random.Random(seed)
    for kind in kinds:
        _trials(kind, trials, rng)


def _trials(kind, trials, rng):
    writer, check, longest = _KINDS[kind]
    warmup = tempfile.mkdtemp()
    # a save and a check import the lazily loaded modules once, before the forks: timing a
    # cold save would count those imports and stretch every trial's delay (on a loaded
    # machine, past the test's timeout)
    _ONE_SAVE[kind](warmup)
    check(warmup)
    started = time.perf_counter()
    _ONE_SAVE[kind](warmup)   # a warm save, as fast as this machine runs now
    # on a loaded machine a save takes longer: kill within a few saves' time all the same
    longest = max(longest, 3 * (time.perf_counter() - started))
    shutil.rmtree(warmup)
    for trial in range(trials):
        folder = tempfile.mkdtemp()
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            try:
                writer(folder, write_end)
            finally:
                os._exit(1)
        os.close(write_end)
        time.sleep(rng.uniform(0.0, longest))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        saves = len(os.read(read_end, 1 << 20))
        os.close(read_end)
        record = {"kind": kind, "trial": trial, "saves": saves, "found": None, "error": None}
        try:
            record["found"] = check(folder)
            if saves and (record["found"] is None or record["found"] < saves):
                record["error"] = f"{saves} saves completed, the newest found is " \
                                  f"{record['found']}"
        except Exception as e:
            record["error"] = f"{type(e).__name__}: {e}"
        print(json.dumps(record), flush=True)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1].split(","), int(sys.argv[2]), int(sys.argv[3]))
