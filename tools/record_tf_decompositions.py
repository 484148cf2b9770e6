"""Record TensorFlow's SVD and symmetric-eigen answers in sign-free form, as test data:
`python tools/record_tf_decompositions.py` (a Python with TensorFlow 2.21) writes
tests/data/tf_decompositions.json.

Singular and eigen vectors are unique only up to each vector's sign, which differs between
TF's Eigen kernels and LAPACK. Recorded per input: the values, |vectors|, and the gradient of
sum(W1 * values) + sum(W2 * |vectors|) (W non-uniform weights): |v| and its gradient do not
depend on the sign, so the gradients of the vectors are checked too.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from oracle.decomp_cases import INPUTS, sign_free_loss  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "data", "tf_decompositions.json")


def main():
    import tensorflow as tf
    record = {}
    for name, (kind, value, kwargs) in INPUTS.items():
        x = tf.constant(value, tf.float64)
        with tf.GradientTape() as tape:
            tape.watch(x)
            outs = tf.linalg.svd(x, **kwargs) if kind == "svd" else tf.linalg.eigh(x)
            loss = sign_free_loss(tf, kind, outs)
        record[name] = {"values": outs[0].numpy().tolist(),
                        "abs_vectors": [np.abs(v.numpy()).tolist() for v in outs[1:]],
                        "grad": tape.gradient(loss, x).numpy().tolist()}
    with open(OUT, "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": record}, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
