"""Record TF 2.21's tf.data behaviour over SparseTensor and RaggedTensor elements
(tests/tfdata/composite_cases.py): `python tools/record_tfdata_composite.py` with a Python that
has `tensorflow-cpu==2.21`; it writes tests/data/tfdata_composite.json."""
import os
import sys

import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from tfdata import composite_cases as cases  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "tools"))
from record_tfdata import write_grouped  # noqa: E402


def record():
    out = {"datasets": {name: cases.dataset_record(tf, expr)
                        for name, expr in cases.DATASETS.items()},
           "errors": {name: cases.error_record(tf, expr) for name, expr in cases.ERRORS.items()}}
    path = os.path.join(ROOT, "tests", "data", "tfdata_composite.json")
    write_grouped(path, out)
    print(f"{len(out['datasets'])} datasets, {len(out['errors'])} errors -> {path}")


if __name__ == "__main__":
    record()
