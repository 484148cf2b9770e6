"""TF's `tf.TypeSpec`: the common base of the types of values a `tf.function` takes
(`TensorSpec`, the composites' specs, `DatasetSpec`, `TensorArraySpec`, `OptionalSpec`,
`NoneTensorSpec`), which user code tests with `isinstance`. A spec names the class of the
values it describes (`value_type`); TF's TypeSpec cannot be instantiated itself."""
from __future__ import annotations

import abc

from ..export import tf_export


@tf_export("TypeSpec")
class TypeSpec(abc.ABC):
    """The type of a value: `value_type`, `is_compatible_with`, and equality by fields."""

    __slots__ = ()

    @property
    @abc.abstractmethod
    def value_type(self):
        """The class of the values this spec describes."""

    def is_subtype_of(self, other) -> bool:
        """True where every value of this spec is one of `other` (equal specs)."""
        return self == other

    def most_specific_common_supertype(self, others):
        """This spec if every one of `others` equals it, else None."""
        return self if all(o == self for o in others) else None


class NoneTensor:
    """TF's value of a `NoneTensorSpec`: the None a function takes or returns."""


@tf_export("NoneTensorSpec")
class NoneTensorSpec(TypeSpec):
    """TF's `tf.NoneTensorSpec()`: the type of a None argument or result."""

    __slots__ = ()
    value_type = property(lambda self: NoneTensor)

    @staticmethod
    def from_value(value):
        return NoneTensorSpec()

    def is_compatible_with(self, spec_or_value) -> bool:
        return spec_or_value is None or isinstance(spec_or_value, NoneTensorSpec)

    def __eq__(self, other):
        return type(other) is NoneTensorSpec

    def __hash__(self):
        return hash(NoneTensorSpec)

    def __repr__(self):
        return "NoneTensorSpec()"
