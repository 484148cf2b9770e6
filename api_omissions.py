"""TF's public names flowjit does not provide, by choice or not yet.

`tests/test_api_coverage.py` checks every name of TF 2.21's namespaces in scope (recorded in
tests/data/tf_api.json by tools/record_tf_api.py) against flowjit: a name is provided, or
omitted on purpose (`OMITTED`, with the reason), or still to do (`NOT_YET`). An entry for a
name flowjit provides is stale and fails the test too. README's "Not provided" section is
checked against this module; `python tools/update_api_not_yet.py` rewrites `NOT_YET` (and the
README section) after names are added.
"""
from __future__ import annotations

import importlib
import json
import os

ROOT = os.path.dirname(os.path.abspath(__file__))
TF_API = os.path.join(ROOT, "tests", "data", "tf_api.json")

# The namespaces checked: "" is the top level `tf`.
NAMESPACES = ("", "math", "nn", "linalg", "random", "signal", "image", "strings", "bitwise",
              "debugging", "dtypes", "experimental.numpy")

_QUANTIZED = "quantized dtypes: TF's kernels for them are fake-quant helpers, not arithmetic"
_HANDLE = "runtime handle dtype: flowjit's variables and lists are Python objects"
_CODEC = "needs an image codec"
_TF_KERNELS = "loads TF's C++ kernels; flowjit is extended with flowjit.extend"
_PROTO = "TF's protobuf formats; flowjit's graphs and tensors have no protos"
_KERAS2 = "Keras 2 RNN cell wrapper, deprecated in TF; tf.keras is Keras 3, which has none"

# "<namespace>.<name>" (a bare name for the top level) -> why flowjit leaves it out.
OMITTED = {
    **{f"{ns}{q}": _QUANTIZED for ns in ("", "dtypes.")
       for q in ("qint8", "qint16", "qint32", "quint8", "quint16")},
    "dtypes.QUANTIZED_DTYPES": _QUANTIZED,
    "resource": _HANDLE, "dtypes.resource": _HANDLE,
    "variant": _HANDLE, "dtypes.variant": _HANDLE,
    "load_library": _TF_KERNELS, "load_op_library": _TF_KERNELS,
    "import_graph_def": _PROTO, "make_tensor_proto": _PROTO, "make_ndarray": _PROTO,
    "guarantee_const": "deprecated in TF (a no-op hint for TF1 graphs)",
    "nondifferentiable_batch_function": "TF Serving's request batching",
    "Graph": "TF1 graph building: ops built under Graph().as_default() run only through "
             "tf.compat.v1.Session, which flowjit omits; traced graphs are "
             "ConcreteFunction.graph",
    **{f"image.{n}": _CODEC for n in (
        "decode_and_crop_jpeg", "decode_bmp", "decode_gif", "decode_image", "decode_jpeg",
        "decode_jxl", "decode_png", "decode_webp", "encode_jpeg", "encode_png",
        "extract_jpeg_shape", "is_jpeg", "adjust_jpeg_quality", "random_jpeg_quality",
        "stateless_random_jpeg_quality")},
    **{f"nn.{n}": _KERAS2 for n in (
        "RNNCellDeviceWrapper", "RNNCellDropoutWrapper", "RNNCellResidualWrapper")},
}

# Names still to do, per namespace (written by tools/update_api_not_yet.py).
# BEGIN NOT_YET
NOT_YET = {
}
# END NOT_YET


def qualified(ns: str, name: str) -> str:
    return f"{ns}.{name}" if ns else name


def tf_api() -> dict:
    """{namespace: {name: entry}} of TF's public API (tests/data/tf_api.json)."""
    with open(TF_API) as f:
        return json.load(f)["names"]


def namespace_module(ns: str):
    """flowjit's module for TF namespace `ns`, or None where flowjit has none yet."""
    try:
        return importlib.import_module("flowjit" + ("." + ns if ns else ""))
    except ModuleNotFoundError:
        return None


def missing(ns: str) -> list[str]:
    """TF's names in `ns` that flowjit does not provide."""
    mod = namespace_module(ns)
    return [n for n in tf_api()[ns] if mod is None or not hasattr(mod, n)]


def counts() -> dict[str, tuple[int, int, int, int]]:
    """namespace -> (provided, TF's, omitted, not yet)."""
    api, out = tf_api(), {}
    for ns in NAMESPACES:
        gone = missing(ns)
        omitted = sum(qualified(ns, n) in OMITTED for n in gone)
        out[ns] = (len(api[ns]) - len(gone), len(api[ns]), omitted, len(gone) - omitted)
    return out


def count_table() -> str:
    rows = ["| namespace | provided | TF 2.21 | omitted | not yet |",
            "| --- | ---: | ---: | ---: | ---: |"]
    for ns, (have, tf, omitted, todo) in counts().items():
        rows.append(f"| `tf{'.' + ns if ns else ''}` | {have} | {tf} | {omitted} | {todo} |")
    return "\n".join(rows) + "\n"


def not_provided_section() -> str:
    """README's "Not provided" section (between its markers)."""
    omitted = "".join(f"| `tf.{name}` | {why} |\n" for name, why in sorted(OMITTED.items()))
    return ("<!-- BEGIN NOT PROVIDED -->\n" + count_table() + "\nLeft out on purpose:\n\n"
            "| name | why |\n| --- | --- |\n" + omitted + "<!-- END NOT PROVIDED -->")
