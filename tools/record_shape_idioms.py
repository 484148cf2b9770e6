"""Record TF 2.21's static shapes and values of the shape idioms in
tests/shape_idiom_cases.py into tests/data/shape_idioms.json.

Run with a Python that has TensorFlow: `python tools/record_shape_idioms.py`."""
import json
import os
import sys

import numpy as np
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from shape_idiom_cases import INPUT_SHAPES, SIGNATURES, idioms  # noqa: E402


def _shape(t):
    return None if t.shape.rank is None else t.shape.as_list()


def _leaves(out):
    return out if isinstance(out, (list, tuple)) else [out]


def record():
    data = {}
    for name, fn in idioms(tf).items():
        static = {}
        for sig, spec in SIGNATURES.items():
            shape = list(INPUT_SHAPES[0]) if spec == "input" else spec
            cf = tf.function(fn).get_concrete_function(tf.TensorSpec(shape, tf.float32))
            static[sig] = [_shape(t) for t in _leaves(cf.structured_outputs)]
        values = []
        for s in INPUT_SHAPES:
            x = np.arange(np.prod(s), dtype=np.float32).reshape(s)
            out = tf.function(fn)(tf.constant(x))
            values.append([{"shape": list(t.shape), "dtype": t.dtype.name,
                            "value": t.numpy().tolist()} for t in _leaves(out)])
        data[name] = {"static_shapes": static, "values": values}
    return data


if __name__ == "__main__":
    path = os.path.join(ROOT, "tests", "data", "shape_idioms.json")
    with open(path, "w") as f:
        json.dump({"tensorflow": tf.__version__, "idioms": record()}, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", path)
