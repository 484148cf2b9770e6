"""`tf.bitcast`: a tensor's bytes read as another type, no data changed. Between types of one
width the shape stays; to a narrower type a last dimension of the width ratio is added, to a
wider one that last dimension is consumed (TF's rule, and XLA's BitcastConvert)."""
from __future__ import annotations

from .. import dtypes as D
from ..errors import InvalidArgumentError
from ..infer import FLOATS, INTS, TT, check_dtype
from ..registry import InferenceError, op
from ..shapes import TensorShape

BITCASTABLE = FLOATS + INTS + D.COMPLEX


@op("bitcast", ("input",), attrs=(("type", "dtype"),), differentiable=False)
def _bitcast(types, attrs):
    x = types[0]
    check_dtype(x, BITCASTABLE)
    dst = D.as_dtype(attrs["type"])
    if dst not in BITCASTABLE:
        raise InferenceError(f"Bitcast: type {dst.name} is not a numeric type", TypeError)
    src_size, dst_size = x.dtype.size, dst.size
    if src_size == dst_size or TensorShape(x.shape).rank is None:
        return TT(dst, x.shape)
    if src_size > dst_size:
        return TT(dst, TensorShape(x.shape).concatenate([src_size // dst_size]))
    dims = TensorShape(x.shape)
    if dims.rank == 0 or dims[-1] not in (None, dst_size // src_size):
        raise InferenceError(f"Cannot bitcast from {x.dtype.name} to {dst.name}: shape "
                             f"{dims} does not end in {dst_size // src_size}",
                             InvalidArgumentError)
    return TT(dst, dims[:-1])
