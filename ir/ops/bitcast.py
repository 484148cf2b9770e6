"""bitcast: a tensor's bytes read as another dtype. Same width: the shape is kept; a narrower
target adds a last dim of width ratio; a wider one consumes a last dim of exactly that ratio
(TF's Bitcast)."""
from __future__ import annotations

from .. import dtypes as D
from ..errors import InvalidArgumentError
from ..infer import COMPLEX, TT, check_dtype
from ..registry import InferenceError, op

BITCASTABLE = (D.bfloat16, D.float16, D.float32, D.float64, D.int64, D.int32, D.uint8,
               D.uint16, D.uint32, D.uint64, D.int8, D.int16) + COMPLEX
# TF's DataType enum values, which its error message names
_TF_ENUM = {D.float32: 1, D.float64: 2, D.int32: 3, D.uint8: 4, D.int16: 5, D.int8: 6,
            D.complex64: 8, D.int64: 9, D.bfloat16: 14, D.uint16: 17, D.complex128: 18,
            D.float16: 19, D.uint32: 22, D.uint64: 23}


def bitcast_shape(shape, src: D.DType, dst: D.DType):
    """The result shape of bitcasting `shape` (with None dims) from `src` to `dst`."""
    if shape is None or src.size == dst.size:
        return shape
    if src.size > dst.size:
        return tuple(shape) + (src.size // dst.size,)
    if not shape or shape[-1] not in (None, dst.size // src.size):
        raise InferenceError(f"Cannot bitcast from {_TF_ENUM[src]} to {_TF_ENUM[dst]}",
                             InvalidArgumentError)
    return tuple(shape[:-1])


@op("bitcast", ("input",), attrs=(("type", "dtype"),), differentiable=False)
def _bitcast(types, attrs):
    src, dst = types[0].dtype, D.as_dtype(attrs["type"])
    check_dtype(types[0], BITCASTABLE)
    if dst not in BITCASTABLE:
        raise InferenceError(f"Value for attr 'type' of {dst.name} is not in the list of "
                             f"allowed values", dtype_error=True)
    return TT(dst, bitcast_shape(types[0].shape, src, dst))
