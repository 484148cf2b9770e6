"""Collectives across the replicas of a per-replica program (MirroredStrategy)."""
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
