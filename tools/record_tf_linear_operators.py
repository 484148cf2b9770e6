"""Record TensorFlow's answers to the LinearOperator cases (tests/oracle/linear_operator_cases.py):
`python tools/record_tf_linear_operators.py` (a Python with TensorFlow 2.21) writes
tests/data/tf_linear_operators.json: per operator, its shape and every queried result."""
from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from oracle.linear_operator_cases import ask, build  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "data", "tf_linear_operators.json")


def main():
    import tensorflow as tf
    record = {}
    for name, op in build(tf).items():
        record[name] = {"shape": op.shape.as_list(),
                        **{k: v.numpy().tolist() for k, v in ask(tf, op).items()}}
    with open(OUT, "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": record}, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
