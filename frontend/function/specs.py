"""`TensorSpec`: the type of a tensor argument (shape with `None` dims, dtype, name), and
`tf.type_spec_from_value`."""
from __future__ import annotations

from ...ir import dtypes as D
from ...ir.shapes import TensorShape, as_shape
from ..eager.dispatch import convert_to_tensor
from ..eager.tensor import Tensor
from ..export import tf_export
from .type_spec import NoneTensorSpec, TypeSpec


class TensorSpec(TypeSpec):
    """TF's `tf.TensorSpec(shape, dtype=tf.float32, name=None)`."""

    __slots__ = ("_shape", "_dtype", "_name")
    value_type = property(lambda self: Tensor)

    def __init__(self, shape, dtype=D.float32, name=None):
        self._shape = as_shape(shape)
        self._dtype = D.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        return cls(tensor.shape, tensor.dtype, name)

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def dtype(self) -> D.DType:
        return self._dtype

    @property
    def name(self):
        return self._name

    def is_compatible_with(self, spec_or_value) -> bool:
        """True when a value (or spec) of that dtype and shape fits this spec."""
        dt = getattr(spec_or_value, "dtype", None)
        shape = getattr(spec_or_value, "shape", None)
        if dt is None or shape is None:
            return False
        try:
            return D.as_dtype(dt) is self._dtype and self._shape.is_compatible_with(shape)
        except TypeError:
            return False

    def most_specific_common_supertype(self, others):
        shape = self._shape
        for o in others:
            if not isinstance(o, TensorSpec) or o.dtype is not self._dtype \
                    or o.name != self._name:
                return None
            shape = shape.most_specific_compatible_shape(o.shape)
        return TensorSpec(shape, self._dtype, self._name)

    def __eq__(self, other):
        return (isinstance(other, TensorSpec) and self._shape == other._shape
                and self._dtype is other._dtype and self._name == other._name)

    def __hash__(self):
        return hash((self._shape, self._dtype, self._name))

    def __repr__(self):
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"


@tf_export("type_spec_from_value")
def type_spec_from_value(value) -> TypeSpec:
    """The TypeSpec of `value`: a tensor's (or anything convertible to one) TensorSpec, a
    composite's, a TensorArray's, an Optional's, a dataset's or a variable's own spec, and
    NoneTensorSpec for None."""
    if isinstance(value, Tensor):
        return TensorSpec(value.shape, value.dtype)
    spec = getattr(value, "_type_spec", None)
    if isinstance(spec, TypeSpec):
        return spec
    if value is None:
        return NoneTensorSpec()
    try:
        tensor = convert_to_tensor(value)
    except (TypeError, ValueError):
        raise TypeError(f"Could not build a TypeSpec for {value!r} of unsupported type "
                        f"{type(value)}.") from None
    return TensorSpec(tensor.shape, tensor.dtype)
