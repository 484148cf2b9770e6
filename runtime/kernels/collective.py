"""Kernels of the collective ops. `all_reduce`: one replica (eager code and the graph
executor run one) holds the whole group, so the reduction is the value itself. `relayout`
changes where values live, never what they are; the kernel runs only for one-device meshes
(programs over larger meshes are compiled, frontend/distribute/dtensor.py)."""
from __future__ import annotations

from ...ir.errors import UnimplementedError
from . import kernel


@kernel("all_reduce")
def all_reduce(x, *, reduction, group_size):
    if group_size != 1:
        raise UnimplementedError(None, "all_reduce", f"all_reduce over {group_size} replicas "
                                 f"runs only in a program compiled for them "
                                 f"(MirroredStrategy.run)")
    return x


@kernel("relayout")
def relayout(x, *, sharding, mesh):
    return x
