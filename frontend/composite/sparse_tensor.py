"""TF's `tf.SparseTensor`: `values[i]` at `indices[i]` of a dense tensor of `dense_shape`,
every other element zero (the ops in sparse_ops.py).

The dense shape's value is part of the trace type (TF's SparseTensorSpec shape), so a traced
function knows it statically: densifying and reducing need it, and XLA compiles per shape.
"""
from __future__ import annotations

from ...ir import dtypes as D
from ...ir.shapes import TensorShape
from ..eager.dispatch import apply, convert_to_tensor
from ..eager.shape_args import traced_value
from ..export import tf_export
from ..function.specs import TensorSpec
from .base import CompositeSpec, CompositeTensor


@tf_export("sparse.SparseTensor", "SparseTensor")
class SparseTensor(CompositeTensor):
    """TF's `tf.sparse.SparseTensor(indices, values, dense_shape)`."""

    _is_tensor = True

    def __init__(self, indices, values, dense_shape):
        self._indices = convert_to_tensor(indices, dtype_hint=D.int64)
        if self._indices.dtype is not D.int64:
            self._indices = apply("cast", (self._indices,), {"dtype": D.int64})
        self._values = convert_to_tensor(values)
        shape = convert_to_tensor(dense_shape, dtype_hint=D.int64)
        self._dense_shape = shape if shape.dtype is D.int64 else \
            apply("cast", (shape,), {"dtype": D.int64})
        self._known_shape = None   # a trace's placeholder knows its trace type's dense shape

    @classmethod
    def from_value(cls, value):
        return value

    indices = property(lambda self: self._indices, doc="int64 `[N, rank]` coordinates.")
    values = property(lambda self: self._values, doc="`[N]` values at the coordinates.")
    dense_shape = property(lambda self: self._dense_shape, doc="int64 `[rank]` dense shape.")
    dtype = property(lambda self: self._values.dtype)
    device = property(lambda self: self._values.device)

    @property
    def shape(self) -> TensorShape:
        """The dense shape as far as it is known while tracing."""
        if self._known_shape is not None:
            return TensorShape.from_tuple(self._known_shape)
        known = traced_value(self._dense_shape)
        if isinstance(known, tuple):
            return TensorShape(list(known))
        return TensorShape(None) if self._indices.shape[1] is None else \
            TensorShape([None] * self._indices.shape[1])

    def get_shape(self) -> TensorShape:
        return self.shape

    def with_values(self, new_values):
        """The same coordinates holding `new_values`."""
        out = SparseTensor(self._indices, new_values, self._dense_shape)
        out._known_shape = self._known_shape
        return out

    def __str__(self):
        return (f"SparseTensor(indices={self._indices}, values={self._values}, "
                f"dense_shape={self._dense_shape})")

    __repr__ = __str__   # as TF's (a PerReplica or a list shows it this way)

    def _map_values(self, fn):
        return self.with_values(fn(self._values))

    # elementwise with a dense tensor (broadcast to the dense shape) or a scalar: the result
    # keeps this tensor's coordinates, as TF's sparse_dense_cwise ops
    def _cwise(self, other, opname):
        shape = self.shape
        if not shape.is_fully_defined():
            raise ValueError(f"SparseTensor {opname}: the dense shape must be known while "
                             f"tracing, got {shape}")
        dense = convert_to_tensor(other, dtype=self.dtype)
        dense = apply("broadcast_to", (dense,), {"shape": tuple(shape.as_list())})
        return self.with_values(apply(opname, (self._values,
                                               apply("gather_nd", (dense, self._indices),
                                                     {"batch_dims": 0}))))

    def __mul__(self, other):
        return self._cwise(other, "mul")

    def __truediv__(self, other):
        return self._cwise(other, "div")

    # --- composite protocol ----------------------------------------------------------------
    def _components(self):
        return (self._indices, self._values, self._dense_shape)

    def _static(self):
        return self.shape.as_tuple()

    @classmethod
    def _from_components(cls, static, components):
        st = cls(*components)
        st._known_shape = static
        return st

    @property
    def _type_spec(self):
        return SparseTensorSpec(self.shape, self.dtype)


@tf_export("SparseTensorSpec")
class SparseTensorSpec(CompositeSpec):
    """TF's `tf.SparseTensorSpec(shape=None, dtype=tf.float32)`."""

    value_type = SparseTensor

    def __init__(self, shape=None, dtype=D.float32):
        self._shape = TensorShape(shape)
        self._dtype = D.as_dtype(dtype)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)

    @classmethod
    def from_value(cls, value):
        return value._type_spec

    def _fields(self):
        return (self._shape, self._dtype)

    def _static(self):
        return self._shape.as_tuple()

    def _component_specs(self):
        rank = self._shape.rank
        return (TensorSpec([None, rank], D.int64), TensorSpec([None], self._dtype),
                TensorSpec([rank], D.int64))
