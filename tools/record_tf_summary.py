"""Record what TF 2.21's tf.summary writes for tests/oracle/summary_program.py
(run with TensorFlow and TensorBoard installed): tests/data/tf_summary.json."""
import json
import os
import sys
import tempfile

import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "oracle"))
from summary_program import program, read_events  # noqa: E402

with tempfile.TemporaryDirectory() as d:
    results, errors = program(tf, d)
    events = read_events(d)
# images: TF's PNG bytes depend on its encoder; record the decoded pixels instead
for ev in events.get("img", []):
    ev[3] = ev[3][:2] + [tf.io.decode_png(v.encode("latin-1")).numpy().ravel().tolist()
                         for v in ev[3][2:]]
with open(os.path.join(ROOT, "tests", "data", "tf_summary.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "results": results, "errors": errors,
               "events": events}, f, separators=(",", ":"))
    f.write("\n")
print(sorted(events))
