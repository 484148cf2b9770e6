"""`ensure_shape`: the identity that checks its input against a (partial) shape."""
from __future__ import annotations

from ..registry import TT, op
from ..shapes import TensorShape


@op("ensure_shape", ("input",), attrs=(("shape", "shape"),))
def _ensure_shape(types, attrs):
    """The input, typed with what it and `shape` agree on. A mismatch is reported by the API
    while tracing (TF's ValueError) and by the kernel or the XLA rule at run time (TF's
    InvalidArgumentError), so inference itself never rejects it (specialization re-infers)."""
    x = types[0]
    given, wanted = TensorShape.from_tuple(x.shape), TensorShape.from_tuple(attrs["shape"])
    if not given.is_compatible_with(wanted):
        return TT(x.dtype, wanted.as_tuple())
    return TT(x.dtype, given.merge_with(wanted).as_tuple())
