"""The ops behind `ReplicaContext.all_reduce` (frontend/distribute/distribute.py holds the strategy)
and a traced `dtensor.relayout` (frontend/distribute/dtensor.py holds meshes and layouts)."""
from __future__ import annotations

from ..eager.dispatch import apply, convert_to_tensor


def all_reduce(value, reduction: str, group_size: int):
    """`value` reduced over the `group_size` replicas running the program."""
    return apply("all_reduce", (convert_to_tensor(value),),
                 {"reduction": reduction, "group_size": int(group_size)})


def relayout(value, sharding_specs, mesh_axes):
    """`value` constrained to the layout: per dimension a mesh axis or "unsharded"."""
    return apply("relayout", (convert_to_tensor(value),),
                 {"sharding": ",".join(sharding_specs),
                  "mesh": ",".join(f"{n}={s}" for n, s in mesh_axes)})
