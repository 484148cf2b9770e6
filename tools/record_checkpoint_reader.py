"""Record TF 2.21's checkpoint-reading API (list_variables, load_checkpoint's reader,
load_variable, get_checkpoint_state) on one checkpoint, for tests/frontend/test_checkpoint_reader.py.

    /path/to/tf/python tools/record_checkpoint_reader.py > tests/data/checkpoint_reader_tf.json
"""
import json
import os
import tempfile

import tensorflow as tf


def _error(fn):
    try:
        fn()
    except Exception as e:   # noqa: BLE001 - recorded
        return [type(e).__name__, str(e)]
    return None


def main():
    folder = tempfile.mkdtemp()
    empty = tempfile.mkdtemp()
    model = tf.Module()
    model.w = tf.Variable([[1.0, 2.0]])
    model.layers = [tf.Variable(3), {"b": tf.Variable([True, False])}]
    tf.train.Checkpoint(model=model).save(os.path.join(folder, "ckpt"))
    reader = tf.train.load_checkpoint(folder)
    state = tf.train.get_checkpoint_state(folder)
    key = "model/w/.ATTRIBUTES/VARIABLE_VALUE"
    out = {
        "list_variables": [[k, s] for k, s in tf.train.list_variables(folder)],
        "shape_map": dict(sorted(reader.get_variable_to_shape_map().items())),
        "dtype_map": {k: v.name for k, v in sorted(reader.get_variable_to_dtype_map().items())},
        "has_tensor": [reader.has_tensor(key), reader.has_tensor("nope")],
        "load_variable": tf.train.load_variable(folder, key).tolist(),
        "load_variable_colon": tf.train.load_variable(folder, key + ":0").tolist(),
        "missing_key": _error(lambda: tf.train.load_variable(folder, "nope")),
        "empty_dir": _error(lambda: tf.train.load_checkpoint(empty)),
        "state": {"model_checkpoint_path": os.path.relpath(state.model_checkpoint_path, folder),
                  "all_model_checkpoint_paths": [os.path.relpath(p, folder)
                                                 for p in state.all_model_checkpoint_paths]},
        "state_of_empty_dir": tf.train.get_checkpoint_state(empty) is None,
    }
    out["empty_dir"][1] = out["empty_dir"][1].replace(empty, "<dir>")
    print(json.dumps(out, separators=(",", ":")))


if __name__ == "__main__":
    main()
