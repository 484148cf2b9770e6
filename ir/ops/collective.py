"""Collectives across the replicas of a per-replica program (MirroredStrategy), and the
layout constraint of a sharded program (DTensor's relayout)."""
from __future__ import annotations

from ..registry import op

REDUCTIONS = ("sum", "mean", "max", "min")


@op("all_reduce", ("input",), attrs=(("reduction", "str"), ("group_size", "int")))
def _all_reduce(types, attrs):
    """The input reduced elementwise over the `group_size` replicas that run the program
    (`reduction`: sum, mean, max or min); every replica gets the same result."""
    if attrs["reduction"] not in REDUCTIONS:
        raise ValueError(f"reduction must be one of {', '.join(REDUCTIONS)}, got "
                         f"{attrs['reduction']!r}")
    return types[0]


@op("relayout", ("input",), attrs=(("sharding", "str"), ("mesh", "str")))
def _relayout(types, attrs):
    """The input, to be laid out over `mesh` ("x=4,y=2") as `sharding` says (per dimension a
    mesh axis or "unsharded", comma-separated); the values are unchanged."""
    specs = attrs["sharding"].split(",") if attrs["sharding"] else []
    shape = types[0].shape
    if shape is not None and len(specs) != len(shape):
        raise ValueError(f"the layout has rank {len(specs)} but the tensor has rank "
                         f"{len(shape)}")
    return types[0]
