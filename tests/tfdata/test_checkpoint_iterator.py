"""Checkpointed iterators: `tf.train.Checkpoint(iterator=it)` saves the position (seeds and
elements consumed, in the safetensors checkpoint, no pickle) and a restore continues exactly,
shuffle buffers included; a training process killed mid-epoch resumes with the batches an
uninterrupted run sees."""
import json
import signal
import textwrap

import numpy as np
import pytest

import flowjit as tf
from helpers import run_script


def _pipeline(seed):
    return (tf.data.Dataset.from_tensor_slices(np.arange(40, dtype=np.int64))
            .map(lambda x: x * 2 + 1, num_parallel_calls=tf.data.AUTOTUNE)
            .shuffle(16, seed=seed).batch(3).repeat(2).prefetch(2))


@pytest.mark.parametrize("seed", [None, 5])
def test_restore_continues_exactly(tmp_path, seed):
    ds = _pipeline(seed)
    it = iter(ds)
    ck = tf.train.Checkpoint(iterator=it)
    for _ in range(9):
        next(it)
    path = ck.save(str(tmp_path / "ckpt"))
    rest = [b.numpy().tolist() for b in it]
    assert len(rest) == 2 * 14 - 9
    # a new iterator of a new (identical) pipeline, restored, continues where it was saved
    it2 = iter(_pipeline(seed))
    tf.train.Checkpoint(iterator=it2).restore(path)
    assert [b.numpy().tolist() for b in it2] == rest
    # restoring into the same iterator rewinds it
    ck.restore(path)
    assert [b.numpy().tolist() for b in it] == rest


def _sparse_pipeline():
    # rows of a [24, 5] SparseTensor (some empty) through a shuffle buffer of SparseTensors
    kept = np.arange(24)[np.arange(24) % 3 > 0]
    sparse = tf.sparse.SparseTensor(indices=np.stack([kept, kept % 5], 1),
                                    values=kept.astype(np.float32), dense_shape=[24, 5])
    return (tf.data.Dataset.from_tensor_slices(sparse).map(lambda x: x * 2.0)
            .shuffle(8, seed=4).batch(3).prefetch(2))


def test_restore_of_a_shuffle_buffer_of_sparse_tensors(tmp_path):
    it = iter(_sparse_pipeline())
    ck = tf.train.Checkpoint(iterator=it)
    for _ in range(3):
        next(it)
    path = ck.save(str(tmp_path / "ckpt"))
    rest = [tf.sparse.to_dense(b).numpy().tolist() for b in it]
    assert len(rest) == 5 and any(v for b in rest for row in b for v in row)
    it2 = iter(_sparse_pipeline())
    tf.train.Checkpoint(iterator=it2).restore(path)
    assert [tf.sparse.to_dense(b).numpy().tolist() for b in it2] == rest
    # the checkpoint holds the position as JSON, never a pickled element
    data = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    assert b'"consumed": 3' in data and b"SparseValue" not in data


def test_restore_of_exhausted_and_unstarted_iterators(tmp_path):
    ds = tf.data.Dataset.range(3)
    it = iter(ds)
    ck = tf.train.Checkpoint(it=it)
    start = ck.write(str(tmp_path / "start"))
    assert [int(x) for x in it] == [0, 1, 2]
    end = ck.write(str(tmp_path / "end"))
    ck.restore(start)
    assert [int(x) for x in it] == [0, 1, 2]
    ck.restore(end)
    with pytest.raises(tf.errors.OutOfRangeError):
        it.get_next()


SCRIPT = textwrap.dedent("""
    import json, os, signal, sys
    import numpy as np
    import flowjit as tf

    folder, phase = sys.argv[1], sys.argv[2]
    ds = (tf.data.Dataset.from_tensor_slices(np.arange(60, dtype=np.float32))
          .map(lambda x: x * 0.5).shuffle(20, seed=11).batch(4).repeat(2).prefetch(3))
    w = tf.Variable(0.0)
    it = iter(ds)
    ck = tf.train.Checkpoint(iterator=it, w=w)
    manager = tf.train.CheckpointManager(ck, folder, max_to_keep=2)
    if phase == "resume":
        ck.restore(manager.latest_checkpoint)

    @tf.function
    def train_step(it):
        batch = next(it)
        w.assign_add(tf.reduce_sum(batch))
        return batch

    log = open(os.path.join(folder, phase + ".jsonl"), "w")
    step = 0
    while True:
        try:
            batch = train_step(it)
        except tf.errors.OutOfRangeError:
            break
        step += 1
        log.write(json.dumps([batch.numpy().tolist(), float(w.numpy())]) + "\\n")
        log.flush()
        if phase == "killed" and step == 11:
            manager.save()
        if phase == "killed" and step == 13:
            os.kill(os.getpid(), signal.SIGKILL)
""")


def _read(path):
    return [json.loads(line) for line in open(path)]


def test_killed_pipeline_resumes_with_the_uninterrupted_batches(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    full = run_script(script, tmp_path, "full")
    assert full.returncode == 0, full.stderr
    killed = run_script(script, tmp_path, "killed")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    resumed = run_script(script, tmp_path, "resume")
    assert resumed.returncode == 0, resumed.stderr
    reference = _read(tmp_path / "full.jsonl")
    assert len(reference) == 30
    before = _read(tmp_path / "killed.jsonl")
    assert before == reference[:13]
    # the checkpoint was taken after step 11: the resumed run repeats steps 12 and 13
    assert _read(tmp_path / "resume.jsonl") == reference[11:]
