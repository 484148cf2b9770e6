"""`PerReplica`, below both the strategy (distribute.py) and the datasets it distributes
(data/distribute.py), which make such values."""
from __future__ import annotations


class PerReplica:
    """One value per replica (TF's `PerReplica`): `values` in device order."""

    def __init__(self, values):
        self.values = tuple(values)

    def __repr__(self):
        return "PerReplica:{\n" + ",\n".join(f"  {i}: {v!r}" for i, v in
                                           enumerate(self.values)) + "\n}"
