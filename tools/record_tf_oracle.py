"""Record TensorFlow's answers to the oracle cases (tests/oracle/cases_<group>.py) as test
data: `python tools/record_tf_oracle.py [group ...]` (a Python with TensorFlow 2.21) writes
tests/data/tf_oracle/<group>.json.

Per case: its outputs (dtype, shape, row-major values; NaN, +-inf and -0.0 spelled as
strings), or the error class and the first line of its message; and for each argument listed
in `grad`, d(sum(output * upstream))/d(argument) (tests/oracle/spec.py), null where TF's is
None. Run with a Python that has TensorFlow installed; flowjit's tests never import it.
"""
from __future__ import annotations

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from oracle import runner  # noqa: E402

# TF's eager messages: "{{function_node __wrapped__Op_device_...}} text [Op:Name] name: "
_NODE_PREFIX = re.compile(r"^\{\{function_node [^}]*\}\}\s*")
_OP_SUFFIX = re.compile(r"\s*\[Op:[^\]]*\](\s*name:.*)?$")


def _message(e) -> str:
    text = str(getattr(e, "message", None) or e).strip().splitlines()
    first = text[0] if text else ""
    return _OP_SUFFIX.sub("", _NODE_PREFIX.sub("", first))


def _run(tf, c):
    fn = runner.resolve(tf, c["api"])
    args = [runner.build(tf, a) for a in c["args"]]
    kwargs = {k: runner.build(tf, v) for k, v in c["kwargs"].items()}
    with tf.GradientTape(persistent=True) as tape:
        for i in c["grad"]:
            tape.watch(args[i])
        outputs = runner.flat_outputs(fn(*args, **kwargs))
        target = runner.weighted_sum(tf, outputs) if c["grad"] else None
    record = {"outputs": [None if o is None else runner.encode(o.numpy(), o.dtype.name)
                          for o in outputs]}
    if c["grad"]:
        grads = [tape.gradient(target, args[i]) if target is not None else None
                 for i in c["grad"]]
        record["grads"] = [None if g is None else runner.encode(
            tf.convert_to_tensor(g).numpy(), g.dtype.name) for g in grads]
    return record


def record_case(tf, c) -> dict:
    try:
        record = _run(tf, c)
    except Exception as e:  # the error is the answer
        record = {"error": type(e).__name__, "message": _message(e)}
    record["fingerprint"] = runner.fingerprint(c)
    return record


def main(groups):
    import tensorflow as tf
    modules = runner.case_modules()
    for group in groups or sorted(modules):
        cases = modules[group]
        data = {runner.case_id(c, i): record_case(tf, c) for i, c in enumerate(cases)}
        path = os.path.join(runner.DATA, f"{group}.json")
        with open(path, "w") as f:
            json.dump({"tensorflow": tf.__version__, "cases": data}, f,
                      separators=(",", ":"))
            f.write("\n")
        errors = sum("error" in r for r in data.values())
        print(f"{group}: {len(data)} cases ({errors} errors) -> {path}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
