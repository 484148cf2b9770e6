"""What the TF recorder and the flowjit oracle test share: loading case modules, building a
case's arguments with a framework's `constant`, running it with the gradients the spec asks
for, and encoding results as JSON-safe data. Framework-neutral: the caller passes the module
(`tensorflow` or `flowjit`) as `tf`."""
from __future__ import annotations

import glob
import hashlib
import importlib.util
import json
import math
import os

import numpy as np

from oracle.spec import decode

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data", "tf_oracle")


def case_modules() -> dict:
    """group -> CASES of every tests/oracle/cases_<group>.py."""
    out = {}
    for path in sorted(glob.glob(os.path.join(HERE, "cases_*.py"))):
        group = os.path.basename(path)[len("cases_"):-3]
        spec = importlib.util.spec_from_file_location(f"oracle_cases_{group}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        out[group] = mod.CASES
    return out


def case_id(c: dict, index: int) -> str:
    return f"{c['api']}-{index}"


def fingerprint(c: dict) -> str:
    """A short hash of the case's data: a record made from other data is stale."""
    text = json.dumps(c, sort_keys=True, default=list)
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def resolve(tf, api: str):
    obj = tf
    for part in api.split("."):
        obj = getattr(obj, part)
    return obj


def is_tensor_spec(v) -> bool:
    return isinstance(v, dict) and set(v) == {"tensor", "dtype"}


def make_tensor(tf, spec):
    values, dtype = spec["tensor"], spec["dtype"]
    if dtype == "string":   # "nan" in a string tensor is the text
        return tf.constant(values, dtype=tf.string)
    values = decode(values)
    if dtype.startswith("complex"):
        return tf.constant(np.array(_complex(values), dtype), dtype=getattr(tf, dtype))
    import ml_dtypes  # bfloat16 as NumPy holds it; both frameworks take it
    np_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    return tf.constant(np.array(values, dtype=np.float64 if dtype in ("float16", "bfloat16")
                                else np_dtype).astype(np_dtype), dtype=getattr(tf, dtype))


def _complex(values):
    """Complex values spelled as Python spells them ("1-2j") turned into numbers."""
    if isinstance(values, list):
        return [_complex(v) for v in values]
    return complex(values) if isinstance(values, str) else values


def build(tf, value):
    """A case argument as the framework's value (tensors inside lists too)."""
    if is_tensor_spec(value):
        return make_tensor(tf, value)
    if isinstance(value, list):
        return [build(tf, v) for v in value]
    if isinstance(value, dict):
        return callable_arg(tf, {k: build(tf, v) for k, v in value.items()})
    return value


def callable_arg(tf, value):
    """A dict argument whose tensors are built, as the function it spells (spec.WindowOp)."""
    if not isinstance(value, dict) or "window_op" not in value:
        return value
    fn, args, kwargs = resolve(tf, value["window_op"]), value["args"], value["kwargs"]
    return lambda x, _num_spatial_dims, padding: fn(x, *args, padding=padding, **kwargs)


def flat_outputs(out) -> list:
    """A result as a flat list (a tuple, list, namedtuple, a SparseTensor's three tensors or a
    single tensor)."""
    if hasattr(out, "dense_shape"):
        return [out.indices, out.values, out.dense_shape]
    if isinstance(out, (list, tuple)):
        return [o for x in out for o in flat_outputs(x)]
    return [out]


def weighted_sum(tf, outputs):
    """sum(output * upstream(shape)) over the float outputs: the gradients' target. The
    weights are computed in the graph, as `upstream` spells them, since an output's shape
    may be known only when it runs (boolean_mask, segment ops)."""
    total = None
    for o in outputs:
        if o is None or not hasattr(o, "dtype") or not o.dtype.is_floating:
            continue
        ones = tf.cast(tf.ones_like(tf.reshape(o, [-1])), tf.int32)
        position = tf.cumsum(ones, exclusive=True)
        w = tf.reshape(tf.cast(position % 7 + 1, tf.float64) / 4.0, tf.shape(o))
        term = tf.cast(tf.reduce_sum(tf.cast(o, tf.float64) * w), tf.float64)
        total = term if total is None else total + term
    return total


def encode_value(v):
    if isinstance(v, (complex, np.complexfloating)):
        return [encode_value(v.real), encode_value(v.imag)]
    if isinstance(v, bytes):
        return v.decode("utf-8", "backslashreplace")
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    f = float(v)
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    if f == 0 and math.copysign(1, f) < 0:
        return "-0.0"
    return f


def encode(array, dtype_name: str) -> dict:
    a = np.asarray(array)
    flat = [encode_value(v) for v in a.reshape(-1)]
    return {"dtype": dtype_name, "shape": list(a.shape), "values": flat}
