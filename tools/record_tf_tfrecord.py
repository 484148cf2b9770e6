"""Record TF 2.21's answers to the TFRecord, tf.train.Example and parsing cases
(tests/tfdata/tfrecord_cases.py): `python tools/record_tf_tfrecord.py` with a Python that has
`tensorflow-cpu==2.21`; it writes tests/data/tf_tfrecord.json ({case: answer})."""
import json
import os
import sys
import tempfile

import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from tfdata import tfrecord_cases  # noqa: E402


def record():
    out = {}
    for name in tfrecord_cases.CASES:
        with tempfile.TemporaryDirectory() as folder:
            out[name] = tfrecord_cases.run(name, tf, folder)
    path = os.path.join(ROOT, "tests", "data", "tf_tfrecord.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    print(f"{len(out)} cases -> {path} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    record()
