"""Shared pieces of type inference: dtype checks, broadcasting, axes. All work on `TT` with
`None` dims, so the same rules serve eager values (fully known) and symbolic tensors."""
from __future__ import annotations

from . import dtypes as D
from .registry import TT, InferenceError
from .shapes import format_shape

FLOATS = D.FLOATS
INTS = D.INTS
SIGNED = (D.int8, D.int16, D.int32, D.int64)
NUMERIC = D.NUMERIC
SIGNED_NUMERIC = FLOATS + SIGNED
ALL = D.ALL
WITH_STRING = ALL + (D.string,)  # ops that move, compare or select values of any type
COMPLEX = D.COMPLEX
INDEX = (D.int32, D.int64)


def _names(allowed):
    return ", ".join(d.name for d in allowed)


def check_dtype(t: TT, allowed, what="input") -> None:
    if t.dtype not in allowed:
        raise InferenceError(f"{what} has dtype {t.dtype.name}, which this op does not "
                             f"support; allowed: {_names(allowed)}", dtype_error=True)


def same_dtype(types, allowed=ALL) -> D.DType:
    """TF never promotes: every input must have the first input's dtype."""
    first = types[0].dtype
    for i, t in enumerate(types[1:], 1):
        if t.dtype is not first:
            raise InferenceError(
                f"cannot compute op as input #{i}(zero-based) was expected to be a "
                f"{D.runtime_name(first)} tensor but is a {D.runtime_name(t.dtype)} tensor",
                dtype_error=True, mismatch=(i, first, t.dtype))
    if first not in allowed:
        raise InferenceError(f"dtype {first.name} is not supported; allowed: {_names(allowed)}",
                             dtype_error=True)
    return first


def broadcast(a, b):
    """NumPy broadcasting of two shape tuples with `None` dims (unknown rank -> unknown)."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x == 1:
            out.append(y)
        elif y == 1 or x == y:
            out.append(x)
        elif x is None:
            out.append(y)
        elif y is None:
            out.append(x)
        else:
            raise InferenceError(f"Incompatible shapes: {format_shape(a)} vs. {format_shape(b)}",
                                 graph_message=f"Dimensions must be equal, but are {x} and {y}")
    return tuple(out)


def broadcast_all(shapes):
    out = shapes[0]
    for s in shapes[1:]:
        out = broadcast(out, s)
    return out


def unary(types, allowed) -> TT:
    check_dtype(types[0], allowed)
    return types[0]


def binary(types, allowed) -> TT:
    dt = same_dtype(types, allowed)
    return TT(dt, broadcast(types[0].shape, types[1].shape))


def compare(types, allowed=ALL) -> TT:
    same_dtype(types, allowed)
    return TT(D.bool_, broadcast(types[0].shape, types[1].shape))


def rank_of(t: TT):
    return None if t.shape is None else len(t.shape)


def norm_axis(axis: int, rank: int, what="axis") -> int:
    if not -rank <= axis < rank:
        raise InferenceError(f"{what} {axis} is out of bounds for a tensor of rank {rank}; "
                             f"expected a value in [{-rank}, {rank})")
    return axis % rank


def norm_axes(axis, rank: int):
    """A reduction's `axis` attribute (None, int or tuple) as a sorted tuple of non-negative
    axes; duplicates raise as in TF."""
    if axis is None:
        return tuple(range(rank))
    if isinstance(axis, int):
        axis = (axis,)
    out = []
    for a in axis:
        if not -rank <= a < rank:
            raise InferenceError(f"Invalid reduction dimension ({a} for input with {rank} "
                                 f"dimension(s)", graph_message=f"Invalid reduction dimension "
                                                                f"{a} for input with {rank} "
                                                                f"dimensions.")
        a %= rank
        if a in out:
            raise InferenceError(f"Invalid reduction arguments: Axes contains duplicate "
                                 f"dimension: {a}")
        out.append(a)
    return tuple(sorted(out))


def reduce_shape(shape, axis, keepdims: bool):
    if shape is None:
        return None
    axes = norm_axes(axis, len(shape))
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def num_elements(shape):
    if shape is None or None in shape:
        return None
    n = 1
    for d in shape:
        n *= d
    return n
