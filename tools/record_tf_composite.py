"""Record TF 2.21's answers to the composite-tensor cases (tests/composite/cases.py) into
tests/data/tf_composite.json: per case the encoded result, or the error class and text.

Run with a Python that has TensorFlow: `python tools/record_tf_composite.py`."""
import json
import os
import sys

import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "composite"))
import cases  # noqa: E402  (found through the path above)


def _outcome(fn):
    try:
        staged = fn.__name__ in cases.STAGED
        return {"result": cases.encode(fn(tf, lambda f: f) if staged else fn(tf))}
    except Exception as e:  # noqa: BLE001 - the class and text are what is recorded
        return {"error": type(e).__name__, "message": str(e)}


def record(case_module, file_name: str) -> None:
    """Write TF's outcome of every case of `case_module` to tests/data/`file_name`."""
    data = {"tensorflow": tf.__version__,
            "cases": {name: _outcome(fn) for name, fn in case_module.CASES.items()}}
    path = os.path.join(ROOT, "tests", "data", file_name)
    with open(path, "w") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", path)


if __name__ == "__main__":
    record(cases, "tf_composite.json")
