"""`tf.train.load_checkpoint` / `load_variable` / `list_variables` / `get_checkpoint_state`
against TF 2.21's answers on the same checkpoint (tests/data/checkpoint_reader_tf.json, from
tools/record_checkpoint_reader.py): a module holding a variable, and a list holding a scalar
int and a dict of a bool vector (tracked as TF tracks them). Also `optimizer.build(var_list)`,
which creates the slots a pending restore fills."""
import json
import os

import numpy as np
import pytest

import flowjit as tf

TF = json.load(open(os.path.join(os.path.dirname(__file__), "..", "data",
                                 "checkpoint_reader_tf.json")))
KEY = "model/w/.ATTRIBUTES/VARIABLE_VALUE"


@pytest.fixture
def folder(tmp_path):
    model = tf.Module()
    model.w = tf.Variable([[1.0, 2.0]])
    model.layers = [tf.Variable(3), {"b": tf.Variable([True, False])}]
    tf.train.Checkpoint(model=model).save(str(tmp_path / "ckpt"))
    return str(tmp_path)


def test_reader_matches_tf(folder):
    assert [[k, s] for k, s in tf.train.list_variables(folder)] == TF["list_variables"]
    reader = tf.train.load_checkpoint(folder)
    assert dict(sorted(reader.get_variable_to_shape_map().items())) == TF["shape_map"]
    assert {k: v.name for k, v in sorted(reader.get_variable_to_dtype_map().items())} == \
        TF["dtype_map"]
    assert [reader.has_tensor(KEY), reader.has_tensor("nope")] == TF["has_tensor"]
    assert tf.train.load_variable(folder, KEY).tolist() == TF["load_variable"]
    assert tf.train.load_variable(folder, KEY + ":0").tolist() == TF["load_variable_colon"]
    value = reader.get_tensor(KEY)
    value[...] = 0   # a copy: the reader's value stays
    np.testing.assert_array_equal(reader.get_tensor(KEY), [[1.0, 2.0]])
    assert ["model/w", "Variable"] in json.loads(
        reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"))["objects"]


def test_errors_match_tf(folder, tmp_path):
    cls, text = TF["missing_key"]
    with pytest.raises(getattr(tf.errors, cls), match=f"^{text}$"):
        tf.train.load_variable(folder, "nope")
    empty = tmp_path / "empty"
    empty.mkdir()
    cls, text = TF["empty_dir"]
    with pytest.raises(ValueError, match="^" + text.replace("<dir>", str(empty)) + "$"):
        tf.train.load_checkpoint(str(empty))
    assert (tf.train.get_checkpoint_state(str(empty)) is None) == TF["state_of_empty_dir"]


def test_checkpoint_state_matches_tf(folder):
    state = tf.train.get_checkpoint_state(folder)
    assert os.path.relpath(state.model_checkpoint_path, folder) == \
        TF["state"]["model_checkpoint_path"]
    assert [os.path.relpath(p, folder) for p in state.all_model_checkpoint_paths] == \
        TF["state"]["all_model_checkpoint_paths"]


def test_optimizer_build_creates_slots_a_restore_fills(tmp_path):
    w = tf.Variable([1.0, -2.0])
    opt = tf.optimizers.Adam(0.1)
    opt.apply_gradients([(tf.constant([0.5, 3.0]), w)])
    path = tf.train.Checkpoint(w=w, optimizer=opt).save(str(tmp_path / "ckpt"))
    saved = [v.numpy() for v in opt.variables]

    w2 = tf.Variable([0.0, 0.0])
    opt2 = tf.optimizers.Adam(0.1)
    status = tf.train.Checkpoint(w=w2, optimizer=opt2).restore(path)
    assert len(opt2.variables) == 2            # no slots before build
    opt2.build([w2])
    status.assert_consumed()                   # the slots took their saved values
    assert len(opt2.variables) == len(saved) == 4
    for got, want in zip(opt2.variables, saved):
        np.testing.assert_array_equal(got.numpy(), want)
    assert np.any(saved[2] != 0)               # a slot value a fresh build would not have
