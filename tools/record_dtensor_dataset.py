"""Record TF 2.21's `tf.experimental.dtensor.DTensorDataset` for
tests/distributed/dtensor_dataset_cases.py: run with a Python that has `tensorflow-cpu==2.21`,
`python tools/record_dtensor_dataset.py`; it writes tests/data/tf_dtensor_dataset.json.

The cases are tests/distributed/dtensor_dataset_spec.py's. Recorded: for a dataset, every
batch's global shape, layout and the rows each b-replica holds (the component of the first
device of each b index); under "errors", the exception class and message.
"""
import json
import os
import subprocess
import sys

import tensorflow as tf
from tensorflow.experimental import dtensor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "distributed"))
from dtensor_dataset_spec import CASES, ERRORS, scope  # noqa: E402

def describe(dataset, dtensor, first_of_b=(0, 2)):
    """Per batch and component: global shape, sharding specs, rows held by each b index."""
    out = []
    for element in dataset:
        out.append([{"shape": list(t.shape), "specs": dtensor.fetch_layout(t).sharding_specs,
                     "rows": [dtensor.unpack(t)[k].numpy().tolist() for k in first_of_b]}
                    for t in tf.nest.flatten(element)])
    return {"batches": out, "element_spec": [[list(s.shape), s.dtype.name]
                                            for s in tf.nest.flatten(dataset.element_spec)]}


def record_case(name):
    """One dataset case, in a process of its own: a failed DTensor iteration poisons TF's
    eager context for every later operation."""
    names = scope(tf, dtensor)
    try:
        out = describe(eval(CASES[name], names), dtensor)
    except Exception as e:  # noqa: BLE001 - TF 2.21 fails some layouts while iterating
        out = {"error": [type(e).__name__, str(e).split("\n")[0][:120]]}
    print("RESULT " + json.dumps(out))


def main():
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 4)
    if len(sys.argv) > 2 and sys.argv[1] == "--case":
        return record_case(sys.argv[2])
    names = scope(tf, dtensor)
    record = {"cases": {}, "errors": {}}
    for name in CASES:
        run = subprocess.run([sys.executable, __file__, "--case", name], capture_output=True,
                             text=True, check=True)
        line = [ln for ln in run.stdout.splitlines() if ln.startswith("RESULT ")][-1]
        record["cases"][name] = json.loads(line[len("RESULT "):])
    for name, expr in ERRORS.items():
        try:
            eval(expr, names)
            record["errors"][name] = None
        except Exception as e:  # noqa: BLE001 - the class is what is recorded
            record["errors"][name] = [type(e).__name__, str(e).split("\n")[0]]
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "tf_dtensor_dataset.json")
    with open(path, "w") as f:
        json.dump(record, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
