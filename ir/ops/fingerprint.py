"""`tf.fingerprint`: a 64-bit FarmHash of each row of a tensor (its dim 0 slices), as 8 uint8
bytes. TF's XLA has no kernel for it; it is not differentiable."""
from __future__ import annotations

from .. import dtypes as D
from ..registry import InferenceError, TT, op

METHODS = ("farmhash64",)


@op("fingerprint", ("data",), attrs=(("method", "str", "farmhash64"),), differentiable=False)
def _fingerprint(types, attrs):
    """uint8 [rows, 8]: each row's fingerprint, little-endian."""
    shape = types[0].shape
    if attrs["method"] not in METHODS:
        raise InferenceError(f"Unsupported fingerprint method: {attrs['method']}")
    if shape is not None and len(shape) == 0:
        raise InferenceError("`data` should have at least one dimension: []")
    return TT(D.uint8, (None if shape is None else shape[0], 8))
