"""Records Keras-on-TensorFlow's answers to tests/keras/fit_cases.py (losses and metrics of
two epochs of `fit`, `evaluate`, `predict`) as tests/data/keras_fit.json.

Run with a Python that has TensorFlow and Keras 3:  python tools/record_keras.py
"""
import json
import os
import sys

os.environ["KERAS_BACKEND"] = "tensorflow"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "keras"))

import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

import fit_cases  # noqa: E402


def main():
    out = {"tensorflow": tf.__version__, "keras": keras.__version__,
           "cases": {case: fit_cases.fit(keras, case) for case in fit_cases.CASES}}
    path = os.path.join(ROOT, "tests", "data", "keras_fit.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
