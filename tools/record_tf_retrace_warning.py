"""Record when TensorFlow's frequent-retracing warning fires and its text, as test data:
`python tools/record_tf_retrace_warning.py` (a Python with TensorFlow 2.21) writes
tests/data/tf_retrace_warning.json.

Each scenario is a list of calls; a call is the length of a 1-d float argument (a new length
traces, a repeated one does not under TF's default shape-specific tracing), or "new:<n>" for
a call through a fresh `tf.function` of the same Python function, or "def:<n>" for a fresh
`tf.function` of a fresh Python function with the same code (TF counts calls per code
object). Recorded per scenario: the 0-based indices of the calls that logged the warning
and each message, the Python function's repr replaced by "{function}".
"""
from __future__ import annotations

import json
import logging
import os
import re

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "tf_retrace_warning.json")

SCENARIOS = {
    "five_new_shapes": [1, 2, 3, 4, 5],
    "twelve_new_shapes": list(range(1, 13)),
    "cached_calls_between": [1, 2, 2, 3, 3, 4, 4, 5, 5, 6],
    "cached_first": [1, 1, 1, 2, 3, 4, 5, 6],
    "one_cached_in_ten": [1, 2, 3, 4, 1, 5, 6, 7, 8, 9],
    "history_window": [1, 1, 1, 1, 1, 1, 1, 2, 3, 4, 5, 1, 1, 1, 1, 1, 1, 6],
    "new_function_each_call": ["new:1"] * 6,
    "python_function_each_call": ["def:1"] * 6,
}


class _Capture(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def main():
    import tensorflow as tf
    capture = _Capture()
    logger = tf.get_logger()
    logger.addHandler(capture)
    logger.propagate = False
    result = {"tensorflow": tf.__version__, "scenarios": {}}
    for number, (name, calls) in enumerate(SCENARIOS.items()):
        namespace = {}
        # An unequal code object per scenario (its constant): TF keeps one detector per code
        # object, and code objects compare by content.
        exec(f"def body(x):\n    return x * {number}.0\n", namespace)
        body = namespace["body"]
        shared = tf.function(body, autograph=False)
        fired = []
        for i, call in enumerate(calls):
            before = len(capture.messages)
            if isinstance(call, str):
                kind, n = call.split(":")
                fn = body if kind == "new" else type(body)(body.__code__, namespace)
                tf.function(fn, autograph=False)(tf.zeros([int(n)]))
            else:
                shared(tf.zeros([call]))
            for m in capture.messages[before:]:
                if "triggered tf.function retracing" in m:
                    text = re.sub(r"<function body at 0x[0-9a-f]+>", "{function}", m)
                    fired.append({"call": i, "message": text})
        result["scenarios"][name] = {"calls": calls, "warnings": fired}
    with open(OUT, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
