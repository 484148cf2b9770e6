"""TF's `tf.IndexedSlices`: rows `values[i]` of a dense tensor at row `indices[i]`.

What gradients of `gather` (axis 0) give for the gathered tensor: only the rows touched, a row
repeated as often as it was gathered. A dense conversion (`tf.convert_to_tensor`, any op that
takes a tensor) sums repeated rows; `tf.linalg.global_norm` and `tf.clip_by_norm` measure the
values as they are, repeated rows unsummed, as TF's do.
"""
from __future__ import annotations

import warnings

from ...ir import dtypes as D
from ...ir.shapes import TensorShape
from ..eager.dispatch import apply, convert_to_tensor
from ..eager.shape_args import traced_value
from ..export import tf_export
from ..function.context import context
from ..function.specs import TensorSpec
from .base import CompositeSpec, CompositeTensor

_CTX = context()
# TF warns when a traced conversion densifies at least this many elements
LARGE_DENSE_ELEMENTS = 100_000_000


@tf_export("IndexedSlices")
class IndexedSlices(CompositeTensor):
    """TF's `tf.IndexedSlices(values, indices, dense_shape=None)`."""

    _is_tensor = True

    def __init__(self, values, indices, dense_shape=None):
        self._values = convert_to_tensor(values)
        self._indices = convert_to_tensor(indices)
        self._dense_shape = None if dense_shape is None else \
            convert_to_tensor(dense_shape, dtype_hint=self._indices.dtype)
        self._known_shape = None   # a trace's placeholder knows its trace type's dense shape

    values = property(lambda self: self._values, doc="The rows, `[n] + shape[1:]`.")
    indices = property(lambda self: self._indices, doc="The row of each value, `[n]`.")
    dense_shape = property(lambda self: self._dense_shape,
                           doc="The dense tensor's shape (a 1-D tensor), or None.")
    dtype = property(lambda self: self._values.dtype)
    device = property(lambda self: self._values.device)

    @property
    def name(self):
        return getattr(self._values, "name", None)

    @property
    def shape(self) -> TensorShape:
        """The dense shape as far as it is known (TF's static dense shape)."""
        if self._known_shape is not None:
            return TensorShape.from_tuple(self._known_shape)
        known = None if self._dense_shape is None else traced_value(self._dense_shape)
        if isinstance(known, tuple):
            return TensorShape(list(known))
        return TensorShape([None]).concatenate(self._values.shape[1:]) \
            if self._values.shape.rank is not None else TensorShape(None)

    def _map_values(self, fn):
        return IndexedSlices(fn(self._values), self._indices, self._dense_shape)

    def __neg__(self):
        return IndexedSlices(apply("neg", (self._values,)), self._indices, self._dense_shape)

    def __str__(self):
        dense = "" if self._dense_shape is None else f", dense_shape={self._dense_shape}"
        return f"IndexedSlices(indices={self._indices}, values={self._values}{dense})"

    # --- conversion ------------------------------------------------------------------------
    def _as_tensor(self):
        """The dense tensor, repeated rows summed (TF's conversion function)."""
        if self._dense_shape is None:
            raise ValueError(f"Tensor conversion requested for IndexedSlices for argument "
                             f"without dense_shape: {self}")
        shape = self.shape
        rows = shape[0] if shape.rank else None
        if _CTX.graph_hook is not None:
            _warn_if_large(self, shape)
        if rows is None:
            raise ValueError(f"Converting IndexedSlices to a dense tensor needs the number "
                             f"of rows while tracing; dense_shape is {self._dense_shape}")
        return apply("unsorted_segment_sum", (self._values, self._indices),
                     {"num_segments": int(rows)})

    # --- composite protocol ----------------------------------------------------------------
    def _components(self):
        parts = (self._values, self._indices)
        return parts if self._dense_shape is None else parts + (self._dense_shape,)

    def _static(self):
        return (self.shape.as_tuple(), self._dense_shape is not None)

    @classmethod
    def _from_components(cls, static, components):
        slices = cls(*components)
        slices._known_shape = static[0]
        return slices

    @property
    def _type_spec(self):
        return IndexedSlicesSpec(
            self.shape, self.dtype, self._indices.dtype,
            None if self._dense_shape is None else self._dense_shape.dtype,
            self._indices.shape)


def _warn_if_large(slices, shape):
    if shape.is_fully_defined():
        n = shape.num_elements()
        if n >= LARGE_DENSE_ELEMENTS:
            warnings.warn(f"Converting sparse IndexedSlices to a dense Tensor with {n} "
                          f"elements. This may consume a large amount of memory.",
                          stacklevel=4)
    else:
        warnings.warn(f"Converting sparse IndexedSlices({slices}) to a dense Tensor of "
                      f"unknown shape. This may consume a large amount of memory.",
                      stacklevel=4)


@tf_export("IndexedSlicesSpec")
class IndexedSlicesSpec(CompositeSpec):
    """TF's `tf.IndexedSlicesSpec(shape=None, dtype=tf.float32, indices_dtype=tf.int64,
    dense_shape_dtype=None, indices_shape=None)`."""

    value_type = IndexedSlices

    def __init__(self, shape=None, dtype=D.float32, indices_dtype=D.int64,
                 dense_shape_dtype=None, indices_shape=None):
        self._shape = TensorShape(shape)
        self._dtype = D.as_dtype(dtype)
        self._indices_dtype = D.as_dtype(indices_dtype)
        self._dense_shape_dtype = None if dense_shape_dtype is None else \
            D.as_dtype(dense_shape_dtype)
        self._indices_shape = TensorShape([None] if indices_shape is None else indices_shape)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)

    def _fields(self):
        return (self._shape, self._dtype, self._indices_dtype, self._dense_shape_dtype,
                self._indices_shape)

    def _static(self):
        return (self._shape.as_tuple(), self._dense_shape_dtype is not None)

    def _component_specs(self):
        values = TensorSpec(self._indices_shape.concatenate(self._shape[1:])
                            if self._shape.rank is not None else None, self._dtype)
        specs = (values, TensorSpec(self._indices_shape, self._indices_dtype))
        if self._dense_shape_dtype is None:
            return specs
        return specs + (TensorSpec([self._shape.rank], self._dense_shape_dtype),)
