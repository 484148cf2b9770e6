"""Record TF 2.21's ImageProjectiveTransformV3 outputs for tests/ops/raw_ops_cases.py into
tests/data/tf_raw_ops.json. Run with a Python that has TensorFlow:
`python tools/record_tf_raw_ops.py`."""
import json
import os
import sys

import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "ops"))
import raw_ops_cases as cases  # noqa: E402  (found through the path above)


def main():
    out = {"tensorflow": tf.__version__,
           "cases": {"/".join(c): cases.transform(tf, *c).numpy().tolist()
                     for c in cases.CASES}}
    path = os.path.join(ROOT, "tests", "data", "tf_raw_ops.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
