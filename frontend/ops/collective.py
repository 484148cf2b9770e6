"""The op behind `ReplicaContext.all_reduce` (frontend/distribute.py holds the strategy)."""
from __future__ import annotations

from ..dispatch import apply, convert_to_tensor


def all_reduce(value, reduction: str, group_size: int):
    """`value` reduced over the `group_size` replicas running the program."""
    return apply("all_reduce", (convert_to_tensor(value),),
                 {"reduction": reduction, "group_size": int(group_size)})


EXPORTS: dict = {}
API_FOR_OP = {"all_reduce": "distribute.ReplicaContext.all_reduce"}
