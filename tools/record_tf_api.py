"""Record TensorFlow's public API (names per namespace, and each function's parameters) as
test data: `python tools/record_tf_api.py` (a Python with TensorFlow 2.21) writes tests/data/tf_api.json.

Run with a Python that has TensorFlow installed; flowjit and its tests never import it.
The file maps namespace ("" for the top level) to {name: entry}, where an entry is
["function", [[param, default or null], ...]] (a default as its repr; "*args"/"**kw" for the
variadic ones), ["class"], ["dtype"] or ["other"].
"""
from __future__ import annotations

import inspect
import json
import os
import sys
import types

NAMESPACES = ("", "math", "nn", "linalg", "random", "signal", "image", "strings", "bitwise",
              "debugging", "dtypes", "experimental.numpy")
OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "tf_api.json")


def _params(fn):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    out = []
    for p in sig.parameters.values():
        name = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "") + p.name
        out.append([name, None if p.default is p.empty else repr(p.default)])
    return out


def _entry(tf, obj):
    if isinstance(obj, tf.dtypes.DType):
        return ["dtype"]
    if inspect.isclass(obj):
        return ["class"]
    if callable(obj):
        params = _params(obj)
        return ["function"] if params is None else ["function", params]
    return ["other"]


def record(tf) -> dict:
    names = {}
    for ns in NAMESPACES:
        mod = tf
        for part in filter(None, ns.split(".")):
            mod = getattr(mod, part)
        names[ns] = {name: _entry(tf, getattr(mod, name)) for name in sorted(dir(mod))
                     if not name.startswith("_")
                     and not isinstance(getattr(mod, name), types.ModuleType)}
    return {"tensorflow": tf.__version__, "names": names}


def main():
    import tensorflow as tf
    data = record(tf)
    with open(OUT, "w") as f:
        json.dump(data, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    counts = {ns or "tf": len(v) for ns, v in data["names"].items()}
    print(f"wrote {OUT}: {counts}", file=sys.stderr)


if __name__ == "__main__":
    main()
