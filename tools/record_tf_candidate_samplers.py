"""Record TF 2.21's deterministic answers to the candidate-sampler cases
(tests/oracle/candidate_sampler_cases.py) into tests/data/tf_candidate_samplers.json: per case
each output's dtype and shape, the expected counts where no draw decides them (non-unique
draws; every count of all_candidate_sampler), or the error's class and text.

Run with a Python that has TensorFlow: `python tools/record_tf_candidate_samplers.py`."""
import json
import os
import sys

import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from oracle.candidate_sampler_cases import cases  # noqa: E402


def _outcome(fn, kwargs):
    kwargs = dict(kwargs, true_classes=tf.constant(kwargs["true_classes"], tf.int64), seed=7)
    try:
        out = getattr(tf.random, fn)(**kwargs)
    except Exception as e:  # noqa: BLE001 - the class and text are what is recorded
        return {"error": type(e).__name__,
                "message": str(e).split(" [Op:")[0].split("} ")[-1].split("\n")[0]}
    record = {"outputs": [[t.dtype.name, t.shape.as_list()] for t in out]}
    if not kwargs["unique"] or fn == "all_candidate_sampler":
        record["true_expected_count"] = out[1].numpy().tolist()
    if fn == "all_candidate_sampler":
        record["sampled"] = out[0].numpy().tolist()
        record["sampled_expected_count"] = out[2].numpy().tolist()
    return record


if __name__ == "__main__":
    data = {"tensorflow": tf.__version__,
            "cases": {k: _outcome(fn, kw) for k, (fn, kw) in cases().items()}}
    path = os.path.join(ROOT, "tests", "data", "tf_candidate_samplers.json")
    with open(path, "w") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", path)
