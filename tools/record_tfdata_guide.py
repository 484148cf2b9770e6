"""Record TF 2.21's results of the tf.data guides' cells (tests/tfdata/guide_cells.py):
`python tools/record_tfdata_guide.py` with a Python that has `tensorflow-cpu==2.21`; it
writes tests/data/tfdata_guide.json ({cell: result}, or {"error": class} where TF raises)."""
import json
import os
import sys
import tempfile

import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from tfdata import guide_cells  # noqa: E402


def record():
    out = {}
    for name in guide_cells.CELLS:
        with tempfile.TemporaryDirectory() as folder:
            out[name] = guide_cells.run(name, tf, folder)
    path = os.path.join(ROOT, "tests", "data", "tfdata_guide.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    print(f"{len(out)} cells -> {path}")


if __name__ == "__main__":
    record()
