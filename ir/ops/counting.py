"""Counting and searching: `unique`, `unique_with_counts`, `bincount` and `searchsorted`.

`unique*` and a `bincount` whose length is not pinned by `minlength == maxlength` have a size
that depends on the values: the eager and executor paths run them, XLA refuses them. None of
them is differentiable (TF registers no gradient for any): a gradient through bincount's
weights raises TF's LookupError (frontend/gradients/counting.py).
"""
from __future__ import annotations

from .. import dtypes as D
from ..infer import ALL, INDEX, NUMERIC, TT, check_dtype
from ..registry import InferenceError, op
from ..shapes import format_shape

def _unique_input(types, attrs):
    x = types[0]
    check_dtype(x, ALL + (D.string,))
    if attrs["out_idx"] not in INDEX:
        raise InferenceError(f"out_idx must be int32 or int64, got {attrs['out_idx'].name}")
    if x.shape is not None and len(x.shape) != 1:
        raise InferenceError(f"unique expects a 1D vector, got shape {format_shape(x.shape)}")
    n = None if x.shape is None else x.shape[0]
    return TT(x.dtype, (None,)), TT(attrs["out_idx"], (n,))


op("unique", ("x",), attrs=(("out_idx", "dtype", D.int32),), differentiable=False)(
    _unique_input)


@op("unique_with_counts", ("x",), attrs=(("out_idx", "dtype", D.int32),),
    differentiable=False)
def _unique_with_counts(types, attrs):
    y, idx = _unique_input(types, attrs)
    return y, idx, TT(attrs["out_idx"], (None,))


BINCOUNT_OUT = (D.int32, D.int64, D.float32, D.float64)


@op("bincount", ("arr", "weights"), attrs=(("minlength", "int", 0), ("maxlength", "int", -1),
                                          ("per_row", "bool", False),
                                          ("binary_output", "bool", False)))
def _bincount(types, attrs):
    """Counts (or summed weights) of each value of `arr` in [0, length), length =
    max(arr) + 1 raised to `minlength` and capped at `maxlength` (-1: no cap); `per_row`
    counts each row of a 2-D `arr` separately. `weights` has arr's shape (the result takes
    its dtype)."""
    arr, w = types
    check_dtype(arr, INDEX, "arr")
    check_dtype(w, BINCOUNT_OUT, "weights")
    lo, hi = attrs["minlength"], attrs["maxlength"]
    length = hi if 0 <= hi <= lo else None
    if arr.shape is not None and w.shape is not None and len(w.shape) and \
            any(a is not None and b is not None and a != b for a, b in zip(arr.shape, w.shape)):
        raise InferenceError(f"arr and weights must have the same shape, got "
                             f"{format_shape(arr.shape)} and {format_shape(w.shape)}")
    if not attrs["per_row"]:
        return TT(w.dtype, (length,))
    if arr.shape is not None and len(arr.shape) != 2:
        raise InferenceError(f"bincount with axis=-1 needs a 2-D arr, got shape "
                             f"{format_shape(arr.shape)}")
    return TT(w.dtype, (None if arr.shape is None else arr.shape[0], length))


@op("searchsorted", ("sorted_sequence", "values"), attrs=(("side", "str", "left"),
                                                         ("out_type", "dtype", D.int32)),
    differentiable=False)
def _searchsorted(types, attrs):
    """For each of `values` (last axis), the index in the matching row of `sorted_sequence`
    where it would be inserted: before equal entries ("left") or after them ("right")."""
    seq, vals = types
    check_dtype(seq, NUMERIC, "sorted_sequence")
    if seq.dtype is not vals.dtype:
        raise InferenceError(f"sorted_sequence and values must have one dtype, got "
                             f"{seq.dtype.name} and {vals.dtype.name}", dtype_error=True)
    if attrs["side"] not in ("left", "right"):
        raise InferenceError(f"Argument `side` must be either 'right' or 'left'. Received: "
                             f"`side` = '{attrs['side']}'.", ValueError)
    if attrs["out_type"] not in INDEX:
        raise InferenceError(f"out_type must be int32 or int64, got {attrs['out_type'].name}")
    for what, t in (("sorted_sequence", seq), ("values", vals)):
        if t.shape is not None and not t.shape:
            raise InferenceError(f"{what} must have rank >= 1, got a scalar")
    if seq.shape is not None and vals.shape is not None and (
            len(seq.shape) != len(vals.shape) or any(
                a is not None and b is not None and a != b
                for a, b in zip(seq.shape[:-1], vals.shape[:-1]))):
        raise InferenceError(f"Leading dim_size of both tensors must match: "
                             f"{format_shape(seq.shape)} vs. {format_shape(vals.shape)}")
    return TT(attrs["out_type"], vals.shape)
