"""Record TF 2.21's results of the tf.data guides' cells (tests/tfdata/guide_cells.py):
`python tools/record_tfdata_guide.py [CELL ...]` with a Python that has
`tensorflow-cpu==2.21`; it writes tests/data/tfdata_guide.json ({cell: result}). Named cells
are recorded into the existing file, the others kept as they were; no names records all."""
import json
import os
import sys
import tempfile

import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from tfdata import guide_cells  # noqa: E402

PATH = os.path.join(ROOT, "tests", "data", "tfdata_guide.json")


def record(names):
    out = {}
    if names:
        with open(PATH) as f:
            out = {k: v for k, v in json.load(f).items() if k in guide_cells.CELLS}
    for name in names or guide_cells.CELLS:
        with tempfile.TemporaryDirectory() as folder:
            out[name] = guide_cells.run(name, tf, folder)
    with open(PATH, "w") as f:
        json.dump(out, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    print(f"{len(names or out)} cells -> {PATH}")


if __name__ == "__main__":
    unknown = [n for n in sys.argv[1:] if n not in guide_cells.CELLS]
    if unknown:
        sys.exit(f"no such cells: {unknown}")
    record(sys.argv[1:])
