"""`df.const` and type helpers that the passes share: read a constant's value, build one,
and the registry type (TT) of an xDSL type.

Memoized functions here are keyed by values (xDSL types and attribute bytes are immutable),
never by object ids, so a cached answer can never belong to another, newer object.
"""
from __future__ import annotations

import functools

import numpy as np
from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr
from xdsl.ir import OpResult

from . import dtypes as D
from .dialect import (
    OP_CLASSES,
    StringsAttr,
    element_type,
    encode_attr,
    from_xdsl_type,
    to_xdsl_type,
)
from .registry import TT

ConstOp = OP_CLASSES["const"]
CONST_NAME = ConstOp.name


@functools.lru_cache(maxsize=4096)
def type_info(ty):
    """(TT, fully static) of an xDSL type. A token (or any type the registry does not know)
    gives (None, True): nothing to refine. Cached: a type's hash costs a fifth of the
    conversion, and passes ask for the same few types over and over."""
    try:
        tt = from_xdsl_type(ty)
    except Exception:  # noqa: BLE001
        return None, True
    shape = getattr(getattr(tt, "value", tt), "shape", None)
    return tt, tt is None or (shape is not None and None not in shape)


def tt_of(value):
    """The TT of an SSA value (None for a token)."""
    return type_info(value.type)[0]


def is_static(tt) -> bool:
    """A TT whose rank and every dim are known."""
    return tt is not None and tt.shape is not None and None not in tt.shape


def numel(tt):
    """Elements of a fully static TT, else None."""
    if not is_static(tt):
        return None
    n = 1
    for d in tt.shape:
        n *= d
    return n


def const_op(value):
    """The `df.const` op defining `value`, or None."""
    if isinstance(value, OpResult) and value.op.name == CONST_NAME:
        return value.op
    return None


def const_raw(op):
    """(TT of the value, raw little-endian element bytes) of a `df.const`."""
    attr = op.attributes["value"]
    return type_info(attr.type)[0], attr.data.data


def const_value(op) -> np.ndarray:
    """The value of a `df.const` as a (read-only) array of its dtype. The attribute holds the
    raw little-endian element bytes (one byte per i1), read directly: decoding through a
    Python list costs about 0.2 us per element."""
    if isinstance(op.attributes["value"], StringsAttr):  # no raw buffer: bytes elements
        return op.python_attrs()["value"]
    tt, raw = const_raw(op)
    shape = tt.shape
    n = numel(tt)
    stored, native = _stored(tt.dtype)
    if stored is None:  # bool
        if len(raw) == n:
            return (np.frombuffer(raw, np.uint8) != 0).reshape(shape)
    elif len(raw) == n * stored.itemsize:
        arr = np.frombuffer(raw, stored).reshape(shape)
        return arr if native else arr.astype(tt.dtype.np)
    elif len(raw) == stored.itemsize:  # a splat stored once
        return np.broadcast_to(np.frombuffer(raw, stored).astype(tt.dtype.np)[0], shape)
    return op.python_attrs()["value"]


def value_of(value):
    """The NumPy value of an SSA value defined by a `df.const`, else None."""
    op = const_op(value)
    return None if op is None else const_value(op)


@functools.cache
def _stored(dt):
    """(little-endian numpy dtype of the stored elements, is it the native one); (None, _)
    for bool, stored as one byte per element."""
    if dt is D.bool_:
        return None, False
    stored = np.dtype(dt.np).newbyteorder("<")
    return stored, stored == np.dtype(dt.np)


def dense_attr(arr: np.ndarray) -> DenseIntOrFPElementsAttr:
    """`arr` as the attribute `encode_attr` would build (same bytes, so CSE still merges equal
    constants), straight from its buffer; small ones are shared (building and verifying an
    attribute costs more than folding a scalar op)."""
    dt = D.from_numpy(arr.dtype)
    if dt is D.string:
        return encode_attr(arr)
    if dt is D.bool_:
        raw = np.where(arr, np.uint8(0xFF), np.uint8(0)).tobytes()
    else:
        raw = np.ascontiguousarray(arr, dtype=_stored(dt)[0]).tobytes()
    if len(raw) <= 512:
        return _shared_dense_attr(dt, arr.shape, raw)
    return _new_dense_attr(dt, arr.shape, raw)


def _new_dense_attr(dt, shape, raw):
    return DenseIntOrFPElementsAttr(to_xdsl_type(TT(dt, tuple(shape))), BytesAttr(raw))


_shared_dense_attr = functools.lru_cache(maxsize=4096)(_new_dense_attr)


def make_const(arr: np.ndarray, result_type, location=None):
    """A `df.const` holding `arr` (its dtype must be the op's) typed `result_type`."""
    dt = D.from_numpy(arr.dtype)
    return ConstOp.create(result_types=[result_type], location=location,
                          attributes={"value": dense_attr(arr), "dtype": element_type(dt)})
