"""Record TF 2.21's `tf.experimental.numpy` results for tests/oracle/tnp_cases.py.

Run with TensorFlow installed (flowjit's tests never import it):
    python tools/record_tnp.py        # writes tests/data/tf_oracle/tnp.json
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf
import tensorflow.experimental.numpy as tnp

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "oracle"))
from tnp_cases import CASES  # noqa: E402
from spec import decode, upstream  # noqa: E402

tnp.experimental_enable_numpy_behavior()


def encode(arr):
    arr = np.asarray(arr)
    if arr.dtype.kind == "f" or arr.dtype.kind == "c":
        flat = [None if np.isnan(v) else ("inf" if v == np.inf else "-inf" if v == -np.inf
                else ("-0.0" if v == 0 and np.signbit(v) else float(v)))
                for v in arr.real.ravel().tolist()]
    else:
        flat = arr.ravel().tolist()
    return {"dtype": arr.dtype.name, "shape": list(arr.shape), "values": flat}


def main():
    out = {}
    for cid, fn, inputs, grad in CASES:
        args = [tnp.asarray(np.asarray(decode(v), dtype=d)) for v, d in inputs]
        try:
            with tf.GradientTape() as tape:
                tape.watch(args[0])
                y = fn(tnp, *args)
            rec = encode(y.numpy())
            if grad:
                w = tf.constant(upstream(y.shape), y.dtype)
                g = tape.gradient(y, args[0], output_gradients=w)
                rec["grad"] = encode(g.numpy())
        except Exception as e:   # recorded: the test expects the same class
            rec = {"error": type(e).__name__, "message": str(e).splitlines()[0][:200]}
        out[cid] = rec
    path = os.path.join(ROOT, "tests", "data", "tf_oracle", "tnp.json")
    with open(path, "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": out}, f, separators=(",", ":"))
        f.write("\n")
    print(f"{len(out)} cases -> {path}")


if __name__ == "__main__":
    main()
