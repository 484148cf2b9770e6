"""Axis attributes in one form: the df attributes that index dimensions, made non-negative.

TF accepts an axis counted from the end (-1 is the last dim). Every consumer that wants
non-negative axes (the StableHLO rules) gets them from `nonnegative_axes`, applied once when
an op's attributes are decoded, instead of re-normalizing with `% rank` at each use.
"""
from __future__ import annotations

# attribute name -> the operand whose rank the axes count in
AXIS_ATTRS = {"axis": 0, "perm": 0, "a_axes": 0, "b_axes": 1}
# (op, attribute) whose axes count in another rank: expand_dims inserts a dim (its result's
# rank); softmax_cross_entropy_with_logits broadcasts its operands first (the larger rank)
_RANK_OF = {("expand_dims", "axis"): "result",
            ("softmax_cross_entropy_with_logits", "axis"): "widest"}


def axis_source(op_name: str, attr: str):
    """Where the rank of `op_name`'s attribute `attr` comes from (an operand index, "result"
    or "widest"); None when the attribute is no axis."""
    source = AXIS_ATTRS.get(attr)
    if source is None:
        return None
    return _RANK_OF.get((op_name, attr), source)


def _rank(value) -> int:
    return len(value.type.get_shape())


def nonnegative_axes(op, source, value):
    """`value` (an int, a tuple of ints, or None for "all axes") with every axis in
    [0, rank), for the xDSL `op` and the `source` of its rank (see `axis_source`). Range
    errors were raised at trace time by the op's inference."""
    if value is None:
        return None
    if source == "result":
        rank = _rank(op.results[0])
    elif source == "widest":
        rank = max(_rank(v) for v in op.operands)
    else:
        rank = _rank(op.operands[source])
    if not rank:
        return value
    if type(value) is int:
        return value % rank
    return tuple(a % rank for a in value)
