"""Record TF 2.21's tracing and error behaviours that tests/frontend/test_tf_semantics.py
checks flowjit against, into tests/data/tf_semantics.json.

Run with a Python that has TensorFlow: `python tools/record_semantics.py`."""
import json
import os
import sys

import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "tests", "distributed"))
import distribution_cases  # noqa: E402
distribution_cases.split_host(tf)   # before any op starts TF's devices
import error_text_cases  # noqa: E402
import program_cases  # noqa: E402


def _outcome(fn):
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 - the class and text are what is recorded
        return {"error": type(e).__name__, "message": str(e)}
    return {"shape": out.shape.as_list(), "value": out.numpy().tolist()}


def literal_trace_counts():
    """The tracing count after each call of f(x, literal), in order."""
    calls = [2, 2.0, 3, True, 1, 1.0, float("nan"), float("nan"), "a", None, 0, -0.0, False]
    traces = []

    @tf.function
    def f(x, a):
        traces.append(a)
        return x

    counts = []
    for a in calls:
        f(tf.ones([2]), a)
        counts.append(len(traces))
    return {"calls": [repr(a) for a in calls], "counts": counts}


def concrete_function_calls():
    cf = tf.function(lambda x: x * 2).get_concrete_function(tf.TensorSpec([None, 3],
                                                                         tf.float32))
    args = {"other_width": ([2, 4], tf.float32), "other_rank": ([2], tf.float32),
            "float64": ([2, 3], tf.float64), "int32": ([2, 3], tf.int32)}
    return {k: _outcome(lambda s=s, d=d: cf(tf.ones(s, d))) for k, (s, d) in args.items()}


def huge_shapes():
    cases = {"zeros": lambda: tf.zeros([2**40, 2**40]), "eye": lambda: tf.eye(2**40),
             "ones_1d": lambda: tf.ones([2**45]), "eye_columns": lambda: tf.eye(4, 2**45)}
    return {k: _outcome(fn) for k, fn in cases.items()}


def error_texts():
    """Case name -> mode -> [class, text] (or None when TF accepted the call)."""
    return {fn.__name__: {mode: error_text_cases.run(tf, fn, mode)
                          for mode in ("eager", "graph", "xla")}
            for fn in error_text_cases.cases(tf)}


def programs():
    """Case name -> mode -> outcome, for the TensorArray and AutoGraph programs."""
    out = {}
    for name, (fn, value, eager) in program_cases.tensor_array_cases(tf).items():
        modes = ("eager", "graph", "xla") if eager else ("graph", "xla")
        out[name] = {m: program_cases.outcome(tf, fn, value, m) for m in modes}
    for name, (fn, value) in program_cases.autograph_cases(tf).items():
        out[name] = {m: program_cases.outcome(tf, fn, value, m, strict=strict)
                     for m, strict in (("graph", False), ("graph_strict", True))}
    return out


if __name__ == "__main__":
    data = {"tensorflow": tf.__version__, "literal_traces": literal_trace_counts(),
            "concrete_function_calls": concrete_function_calls(), "huge_shapes": huge_shapes(),
            "error_texts": error_texts(), "programs": programs(),
            "distribution": distribution_cases.run(tf)}
    path = os.path.join(ROOT, "tests", "data", "tf_semantics.json")
    with open(path, "w") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", path)
