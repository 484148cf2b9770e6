"""`tf.train.Checkpoint` / `CheckpointManager`: safetensors + JSON object graph, TF's keys,
counters, state file and error texts (recorded from TF 2.21), deferred restoration, optimizer
slots, atomic writes, tampered files; and the acceptance test: an MLP trained under
`jit_compile=True`, checkpointed, killed, restored in a new process, continues bit-identically."""
import json
import os
import signal
import textwrap

import numpy as np
import pytest

import flowjit as tf
from flowjit.runtime import safetensors
from helpers import run_script


class M(tf.Module):
    def __init__(self, w=(1.0, 2.0)):
        super().__init__()
        self.w = tf.Variable(np.array(w))
        self.layers = [tf.Variable(3.0)]


def test_save_write_keys_and_state(tmp_path):
    ck = tf.train.Checkpoint(model=M([1.0, 2.0]))
    p = ck.save(str(tmp_path / "ckpt"))
    # TF 2.21: save -> prefix-1 and a 'checkpoint' state file; write -> the prefix unchanged.
    assert p == str(tmp_path / "ckpt-1")
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-1.safetensors"]
    assert ck.write(str(tmp_path / "w")) == str(tmp_path / "w")
    assert tf.train.latest_checkpoint(str(tmp_path)) == p
    assert tf.train.latest_checkpoint(str(tmp_path / "nonexist")) is None
    # TF 2.21's keys
    assert [k for k, _ in tf.train.list_variables(p)] == [
        "_CHECKPOINTABLE_OBJECT_GRAPH", "model/layers/0/.ATTRIBUTES/VARIABLE_VALUE", "model/w/.ATTRIBUTES/VARIABLE_VALUE",
        "save_counter/.ATTRIBUTES/VARIABLE_VALUE"]
    tensors, meta = safetensors.read(p + ".safetensors")
    np.testing.assert_array_equal(tensors["model/w/.ATTRIBUTES/VARIABLE_VALUE"], [1.0, 2.0])
    assert ["model/w", "Variable"] in json.loads(meta["object_graph"])["objects"]


def test_restore_roundtrip_and_errors(tmp_path):
    m = M([1.0, 2.0])
    p = tf.train.Checkpoint(model=m).save(str(tmp_path / "ckpt"))
    m2 = M([5.0, 6.0])
    m2.layers[0].assign(0.0)
    tf.train.Checkpoint(model=m2).restore(p).assert_consumed()
    np.testing.assert_array_equal(m2.w.numpy(), [1.0, 2.0])
    assert float(m2.layers[0]) == 3.0
    # TF 2.21: ValueError "Received incompatible tensor with shape (2,) when attempting to
    # restore variable with shape (3,) and name Variable:0."
    bad = M([0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"Received incompatible tensor with shape \(2,\) when "
                                         r"attempting to restore variable with shape \(3,\) and "
                                         r"name Variable:0"):
        tf.train.Checkpoint(model=bad).restore(p)
    assert list(bad.w.numpy()) == [0, 0, 0]
    # TF 2.21: InvalidArgumentError "... tensor_name = model/w/.ATTRIBUTES/VARIABLE_VALUE;
    # expected dtype int32 does not equal original dtype float"
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="tensor_name = model/w/.ATTRIBUTES/VARIABLE_VALUE; expected dtype "
                             "int32 does not equal original dtype"):
        tf.train.Checkpoint(model=M(np.array([1, 2], np.int32))).restore(p)
    # TF 2.21: NotFoundError naming the prefix and the missing '-1' hint.
    with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files for "
                                                      ".*nothere"):
        tf.train.Checkpoint(model=m).restore(str(tmp_path / "nothere"))


def test_bad_restore_changes_nothing(tmp_path):
    m = M([1.0, 2.0])
    p = tf.train.Checkpoint(model=m).save(str(tmp_path / "ckpt"))
    other = tf.Module()
    other.layers = [tf.Variable(7.0)]
    other.w = tf.Variable(np.zeros(5))
    with pytest.raises(ValueError):
        tf.train.Checkpoint(model=other).restore(p)
    assert float(other.layers[0]) == 7.0   # checked everything before assigning anything


def test_assert_consumed_messages(tmp_path):
    p = tf.train.Checkpoint(model=M()).save(str(tmp_path / "ckpt"))

    class Fewer(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(np.array([1.0, 2.0]))

    status = tf.train.Checkpoint(model=Fewer()).restore(p)
    # TF 2.21: "Unresolved object in checkpoint (root).model.layers.0: attributes {..."
    with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint "
                                             r"\(root\)\.model\.layers\.0: attributes"):
        status.assert_consumed()
    status.expect_partial()

    more = M()
    more.extra = tf.Variable(1.0)
    status = tf.train.Checkpoint(model=more).restore(p)
    # TF 2.21's text.
    with pytest.raises(AssertionError, match=r"Found 1 Python objects that were not bound to "
                                             r"checkpointed values, likely due to changes in the "
                                             r"Python program. Showing 1 of 1 unmatched objects: "
                                             r"\[<tf.Variable 'Variable:0' shape=\(\) "):
        status.assert_consumed()


def test_deferred_restoration(tmp_path):
    p = tf.train.Checkpoint(model=M([1.0, 2.0])).save(str(tmp_path / "ckpt"))

    class Lazy(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = None

    lazy = Lazy()
    status = tf.train.Checkpoint(model=lazy).restore(p)
    lazy.w = tf.Variable(np.zeros(2))
    np.testing.assert_array_equal(lazy.w.numpy(), [1.0, 2.0])   # TF 2.21: [1. 2.]
    lazy.layers = [tf.Variable(0.0)]
    assert float(lazy.layers[0]) == 3.0                           # TF 2.21: 3.0
    status.assert_consumed()


def test_manager(tmp_path):
    ck = tf.train.Checkpoint(model=M())
    ck.save(str(tmp_path / "first"))
    mgr = tf.train.CheckpointManager(ck, str(tmp_path / "mgr"), max_to_keep=2)
    assert mgr.latest_checkpoint is None
    # TF 2.21: the shared save_counter numbers the files: ckpt-2, -3, -4; two kept.
    assert [os.path.basename(mgr.save()) for _ in range(3)] == ["ckpt-2", "ckpt-3", "ckpt-4"]
    assert mgr.checkpoints == [str(tmp_path / "mgr" / f"ckpt-{i}") for i in (3, 4)]
    assert sorted(os.listdir(tmp_path / "mgr")) == ["checkpoint", "ckpt-3.safetensors",
                                                    "ckpt-4.safetensors"]
    assert mgr.save(checkpoint_number=10) == str(tmp_path / "mgr" / "ckpt-10")
    assert int(ck.save_counter) == 5
    assert tf.train.latest_checkpoint(str(tmp_path / "mgr")) == mgr.latest_checkpoint
    again = tf.train.CheckpointManager(ck, str(tmp_path / "mgr"), max_to_keep=2)
    assert again.checkpoints == mgr.checkpoints
    model = M([0.0, 0.0])
    restored = tf.train.CheckpointManager(tf.train.Checkpoint(model=model), str(tmp_path / "mgr"),
                                          max_to_keep=2)
    assert restored.restore_or_initialize() == mgr.latest_checkpoint
    assert list(model.w.numpy()) == [1.0, 2.0]
    calls = []
    empty = tf.train.CheckpointManager(ck, str(tmp_path / "empty"), max_to_keep=1,
                                       init_fn=lambda: calls.append(1))
    assert empty.restore_or_initialize() is None and calls == [1]
    with pytest.raises(NotImplementedError, match="keep_checkpoint_every_n_hours"):
        tf.train.CheckpointManager(ck, str(tmp_path / "x"), 1, keep_checkpoint_every_n_hours=1)


def test_tampered_files_raise_data_loss(tmp_path):
    p = tf.train.Checkpoint(model=M()).save(str(tmp_path / "ckpt"))
    data = open(p + ".safetensors", "rb").read()
    cases = {"truncated": data[:-4], "huge header": (10**9).to_bytes(8, "little") + data[8:],
             "not json": data[:8] + b"\xff" * (len(data) - 8)}
    for name, blob in cases.items():
        with open(p + ".safetensors", "wb") as f:
            f.write(blob)
        with pytest.raises(tf.errors.DataLossError, match="not a valid safetensors file"):
            tf.train.Checkpoint(model=M()).restore(p)


def test_failed_write_keeps_previous_file(tmp_path, monkeypatch):
    m = M([1.0, 2.0])
    ck = tf.train.Checkpoint(model=m)
    p = ck.write(str(tmp_path / "c"))
    m.w.assign([8.0, 9.0])

    def crash(*a):
        raise OSError("disk full")
    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(OSError, match="disk full"):
        ck.write(p)
    monkeypatch.undo()
    assert os.listdir(tmp_path) == ["c.safetensors"]   # no temp file left behind
    m2 = M([0.0, 0.0])
    tf.train.Checkpoint(model=m2).restore(p)
    np.testing.assert_array_equal(m2.w.numpy(), [1.0, 2.0])


def test_optimizer_slots_and_iterations_restore_deferred(tmp_path):
    def make():
        model = tf.Module()
        model.w = tf.Variable(np.array([0.5, -0.5], np.float32))
        return model, tf.optimizers.Adam(0.1)

    def step(model, opt):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(model.w - np.float32(2.0)))
        opt.apply_gradients([(tape.gradient(loss, model.w), model.w)])
        return float(loss)

    model, opt = make()
    step(model, opt)
    p = tf.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "ckpt"))
    keys = [k for k, _ in tf.train.list_variables(p)]
    assert "model/w/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE" in keys  # TF's key
    uninterrupted = [step(model, opt) for _ in range(2)]
    model2, opt2 = make()
    status = tf.train.Checkpoint(model=model2, optimizer=opt2).restore(p)
    assert [step(model2, opt2) for _ in range(2)] == uninterrupted   # slots restored on creation
    assert int(opt2.iterations) == 3
    status.assert_consumed()


_TRAINING = textwrap.dedent("""
    import os, signal, sys
    import numpy as np
    import flowjit as tf

    class MLP(tf.Module):
        def __init__(self):
            super().__init__()
            rng = np.random.default_rng(0)
            self.layers = [
                (tf.Variable(rng.normal(0, 0.5, (4, 8)).astype(np.float32)),
                 tf.Variable(np.zeros(8, np.float32))),
                (tf.Variable(rng.normal(0, 0.5, (8, 1)).astype(np.float32)),
                 tf.Variable(np.zeros(1, np.float32)))]

        def __call__(self, x):
            (w1, b1), (w2, b2) = self.layers
            return tf.nn.relu(x @ w1 + b1) @ w2 + b2

    model, opt = MLP(), tf.optimizers.Adam(0.05)
    rng = np.random.default_rng(1)
    x = rng.normal(size=(16, 4)).astype(np.float32)
    y = (x.sum(axis=1, keepdims=True) > 0).astype(np.float32)

    @tf.function(jit_compile=True)
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    mode, folder = sys.argv[1], sys.argv[2]
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    manager = tf.train.CheckpointManager(ckpt, folder, max_to_keep=2)
    if mode == "resume":
        ckpt.restore(manager.latest_checkpoint)
    for step in range(6 if mode == "full" else 3):
        print(repr(float(train_step(x, y))), flush=True)
    if mode == "first":
        manager.save()
        os.kill(os.getpid(), signal.SIGKILL)
""")


def test_acceptance_killed_training_resumes_identically(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(_TRAINING)
    first = run_script(script, "first", str(tmp_path / "ck"))
    assert first.returncode == -signal.SIGKILL, first.stderr
    resumed = run_script(script, "resume", str(tmp_path / "ck"))
    assert resumed.returncode == 0, resumed.stderr
    full = run_script(script, "full", str(tmp_path / "full"))
    assert full.returncode == 0, full.stderr
    losses = full.stdout.split()
    assert first.stdout.split() + resumed.stdout.split() == losses
    assert float(losses[-1]) < float(losses[0])


def test_deferred_restore_of_variable_created_in_jit_first_call(tmp_path):
    class Lazy(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = None

        @tf.function(jit_compile=True)
        def __call__(self, x):
            if self.w is None:
                self.w = tf.Variable(np.ones([3, 1], np.float32))
            return x @ self.w

    trained = Lazy()
    x = np.array([[1.0, 2.0, 3.0]], np.float32)
    trained(x)
    trained.w.assign(np.array([[1.0], [-1.0], [2.0]], np.float32))
    p = tf.train.Checkpoint(model=trained).save(str(tmp_path / "ckpt"))
    fresh = Lazy()
    status = tf.train.Checkpoint(model=fresh).restore(p)
    assert float(fresh(x)[0, 0]) == 5.0          # created while tracing, restored before use
    status.assert_consumed()


def test_trackable_view_lists_what_a_checkpoint_reaches():
    """TF 2.21: children by name (a Module's trackable attributes, a list as one child),
    descendants from the root, each object once; flowjit orders children by name (the
    checkpoint's order), TF by assignment."""
    module = tf.Module()
    module.v = tf.Variable(1.0)
    module.layers = [tf.Variable(2.0), module.v]
    module.note = "not trackable"
    view = tf.train.TrackableView(module)
    children = view.children(module)
    assert sorted(children) == ["layers", "v"] and children["v"] is module.v
    found = view.descendants()
    assert found[0] is module and len(found) == 4
    assert {id(o) for o in found} == {id(module), id(module.v), id(module.layers),
                                      id(module.layers[0])}



def test_trackable_resource_creates_its_resource_once_on_first_use():
    made = []

    class Table(tf.saved_model.experimental.TrackableResource):
        def _create_resource(self):
            made.append("created")
            return {"rows": 0}

        def _initialize(self):
            made.append("initialized")

    table = Table()
    assert made == []
    assert table.resource_handle is table.resource_handle == {"rows": 0}
    assert made == ["created", "initialized"]
    with pytest.raises(NotImplementedError, match="_create_resource"):
        tf.saved_model.experimental.TrackableResource().resource_handle
