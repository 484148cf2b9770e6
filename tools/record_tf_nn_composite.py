"""Record TF 2.21's answers to the tf.nn composite cases (tests/composite/nn_cases.py) into
tests/data/tf_nn_composite.json: per case the encoded result, or the error class and text.

Run with a Python that has TensorFlow: `python tools/record_tf_nn_composite.py`."""
import json
import os
import sys

import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "composite"))
import cases  # noqa: E402  (found through the path above)
import nn_cases  # noqa: E402


def _outcome(fn):
    try:
        return {"result": cases.encode(fn(tf))}
    except Exception as e:  # noqa: BLE001 - the class and text are what is recorded
        return {"error": type(e).__name__, "message": str(e)}


if __name__ == "__main__":
    data = {"tensorflow": tf.__version__,
            "cases": {name: _outcome(fn) for name, fn in nn_cases.CASES.items()}}
    path = os.path.join(ROOT, "tests", "data", "tf_nn_composite.json")
    with open(path, "w") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", path)
