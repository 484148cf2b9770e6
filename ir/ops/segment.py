"""Segment reductions: `data` rows combined per segment id.

`unsorted_segment_*` take the number of segments as an attribute (TF's XLA kernels need it
at compile time too), so their result shape is static; one computed in the graph
(`tf.shape(x)[0]`) is a tensor attribute, folded per concrete shape under XLA. The sorted
`segment_*` ops have `segment_ids[-1] + 1` segments: a size known only at run time, so XLA refuses them (as TF's
XLA does: it has no SegmentSum kernel).
"""
from __future__ import annotations

from ..infer import INDEX, NUMERIC, TT, check_dtype
from ..registry import InferenceError, op
from ..shapes import format_shape

SORTED = ("segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod")
UNSORTED = ("unsorted_segment_sum", "unsorted_segment_max", "unsorted_segment_min",
            "unsorted_segment_prod")


def _row_shape(data: TT, ids: TT):
    """The shape of one segment: `data`'s dims after the ones `segment_ids` spans."""
    check_dtype(data, NUMERIC, "data")
    check_dtype(ids, INDEX, "segment_ids")
    if data.shape is None or ids.shape is None:
        return None
    lead = data.shape[:len(ids.shape)]
    if len(lead) < len(ids.shape) or any(a is not None and b is not None and a != b
                                         for a, b in zip(lead, ids.shape)):
        raise InferenceError(f"data.shape = {format_shape(data.shape)} does not start with "
                             f"segment_ids.shape = {format_shape(ids.shape)}")
    return data.shape[len(ids.shape):]


def _sorted(types, attrs):
    data, ids = types
    if ids.shape is not None and len(ids.shape) != 1:
        raise InferenceError(f"segment_ids should be a vector, got shape "
                             f"{format_shape(ids.shape)}")
    row = _row_shape(data, ids)
    return TT(data.dtype, None if row is None else (None,) + row)


def _unsorted(types, attrs):
    data, ids = types
    n = attrs["num_segments"]
    if n is not None and n < 0:
        raise InferenceError(f"num_segments must be non-negative, got {n}")
    row = _row_shape(data, ids)
    return TT(data.dtype, None if row is None else (n,) + row)


for _name in SORTED:
    op(_name, ("data", "segment_ids"))(_sorted)
for _name in UNSORTED:
    op(_name, ("data", "segment_ids"), attrs=(("num_segments", "int"),),
       tensor_attrs=("num_segments",))(_unsorted)
