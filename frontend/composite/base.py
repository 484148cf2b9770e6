"""What every composite tensor shares: its components for nest and tracing, and its spec.

A composite class defines `_components()` (its tensors, in TF's order), `_static()` (what its
trace type holds besides the components' types: a static dense shape, a ragged rank) and
`_from_components(static, components)`. `tf.nest` walks the components only with
`expand_composites=True`; tracing always does (`frontend/nest.py`, `trace_type.py`).
"""
from __future__ import annotations

from ..function.type_spec import TypeSpec


class CompositeTensor:
    """TF's `CompositeTensor`: a value made of component tensors."""

    _tf_composite = True
    # whether tf.math's elementwise functions map over this value's flat values (TF's ragged
    # dispatch); such a class defines `_elementwise(fn, args, kwargs)`
    _maps_elementwise = False
    # whether tf.is_tensor counts this value (TF: its sparse, ragged and IndexedSlices values,
    # not a PerReplica or a Dataset)
    _is_tensor = False

    def _components(self) -> tuple:
        raise NotImplementedError

    def _static(self):
        raise NotImplementedError

    @classmethod
    def _from_components(cls, static, components):
        raise NotImplementedError

    # the nest protocol (frontend/nest.py): tracing flattens arguments and results with it
    def _nest_components(self):
        return self._components()

    def _nest_rebuild(self, components):
        return type(self)._from_components(self._static(), list(components))


class CompositeKind:
    """The container kind of a composite in a trace type (`trace_type.key_and_flat`): its
    spec (TF's trace type of a CompositeTensor); the components' trace types are the
    children."""

    __slots__ = ("spec",)

    def __init__(self, spec):
        self.spec = spec

    @property
    def __name__(self):
        return self.spec.value_type.__name__

    def rebuild(self, components):
        """The composite a trace's body sees, over its placeholder components."""
        return self.spec.placeholder_from(components)

    def __eq__(self, other):
        return isinstance(other, CompositeKind) and self.spec == other.spec

    def __hash__(self):
        return hash(self.spec)

    def __repr__(self):
        return repr(self.spec)


class CompositeSpec(TypeSpec):
    """TF's `TypeSpec` of a composite: `_component_specs()` (TensorSpecs of the components,
    what a trace makes placeholders for) and `_static()` (the kind's static part). Equal specs
    have equal `_fields()`."""

    value_type = CompositeTensor

    def _component_specs(self) -> tuple:
        raise NotImplementedError

    def _static(self):
        raise NotImplementedError

    def _fields(self) -> tuple:
        raise NotImplementedError

    def placeholder_from(self, components):
        return self.value_type._from_components(self._static(), list(components))

    def is_compatible_with(self, spec_or_value) -> bool:
        other = getattr(spec_or_value, "_type_spec", spec_or_value)
        if type(other) is not type(self):
            return False
        if other.dtype is not self.dtype or not self.shape.is_compatible_with(other.shape):
            return False
        mine, theirs = self._component_specs(), other._component_specs()
        return len(mine) == len(theirs) and all(
            a.dtype is b.dtype and a.shape.is_compatible_with(b.shape)
            for a, b in zip(mine, theirs))

    def __eq__(self, other):
        return type(other) is type(self) and self._fields() == other._fields()

    def __hash__(self):
        return hash((type(self), self._fields()))

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(map(repr, self._fields()))})"
