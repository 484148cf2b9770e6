"""Record TF 2.21's answers to the scenarios of tests/top_level_cases.py (TF's top-level
non-op names) into tests/data/tf_top_level.json, which
tests/frontend/test_top_level_names.py checks flowjit against.

Run with a Python that has TensorFlow: `python tools/record_tf_top_level.py`."""
import json
import os
import sys

import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
import top_level_cases  # noqa: E402

records = {name: top_level_cases.outcome(fn, tf)
           for name, fn in top_level_cases.SCENARIOS.items()}
with open(os.path.join(ROOT, "tests", "data", "tf_top_level.json"), "w") as f:
    json.dump(records, f, separators=(",", ":"))
    f.write("\n")
