"""`PerReplica`, below both the strategy (distribute.py) and the datasets it distributes
(data/distribute.py), which make such values.

A PerReplica of tensors is a composite tensor (TF's `DistributedValues` are): a
`tf.function` takes it as an argument, traced by its replicas' specs, and `strategy.run`
inside that function hands each replica its own value."""
from __future__ import annotations

from ..composite.base import CompositeSpec, CompositeTensor


class PerReplica(CompositeTensor):
    """One value per replica (TF's `PerReplica`): `values` in device order."""

    def __init__(self, values):
        self.values = tuple(values)

    def __repr__(self):
        return "PerReplica:{\n" + ",\n".join(f"  {i}: {v!r}" for i, v in
                                           enumerate(self.values)) + "\n}"

    # --- composite protocol: the replicas' tensors -------------------------------------------
    def _components(self):
        return self.values

    def _static(self):
        return len(self.values)

    @classmethod
    def _from_components(cls, static, components):
        return cls(components)

    @property
    def _type_spec(self):
        from ..function.specs import TensorSpec
        return PerReplicaSpec(tuple(TensorSpec(v.shape, v.dtype) for v in self.values))

    @property
    def _tf_composite(self):
        # only a PerReplica of tensors travels as components; one of nests stays an object
        return all(hasattr(v, "dtype") and hasattr(v, "shape") and
                   not isinstance(v, CompositeTensor) for v in self.values)


class PerReplicaSpec(CompositeSpec):
    """The trace type of a PerReplica: its replicas' TensorSpecs."""

    value_type = PerReplica

    def __init__(self, replica_specs):
        self._replica_specs = tuple(replica_specs)

    dtype = property(lambda self: self._replica_specs[0].dtype)
    shape = property(lambda self: self._replica_specs[0].shape)

    def _component_specs(self):
        return self._replica_specs

    def _static(self):
        return len(self._replica_specs)

    def _fields(self):
        return self._replica_specs
