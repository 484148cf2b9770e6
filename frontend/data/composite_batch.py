"""Batches of dense elements whose shapes vary: `Dataset.ragged_batch` (a RaggedTensor per
batch) and `Dataset.sparse_batch` (a SparseTensor per batch), also as
`tf.data.experimental.dense_to_ragged_batch` / `dense_to_sparse_batch`."""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ...ir.shapes import TensorShape
from ..composite.ragged_tensor import RaggedTensorSpec
from ..composite.sparse_tensor import SparseTensorSpec
from ..export import tf_export
from ..function.specs import TensorSpec
from .. import nest
from . import composites, structure
from .composites import RaggedValue, SparseValue
from .dataset import TRANSFORMATIONS
from .transforms import Batch, Unary, positive_int


def _ragged_spec(spec, row_splits_dtype):
    """TF's element spec before a ragged batch: a tensor whose shape has unknown dims becomes
    ragged up to its last unknown dim (ragged rank 0 when only the first is unknown, so the
    batch is ragged in that dim alone); fully known shapes and composites stay."""
    if not isinstance(spec, TensorSpec) or spec.shape.rank is None or \
            spec.shape.is_fully_defined():
        return spec
    ragged_rank = max(i for i, d in enumerate(spec.shape.as_list()) if d is None)
    return RaggedTensorSpec(spec.shape, spec.dtype, ragged_rank, row_splits_dtype)


def _as_ragged(array, ragged_rank, splits_dtype):
    """A dense array as a ragged value of `ragged_rank` levels (every row full)."""
    shape = array.shape
    splits = [np.arange(int(np.prod(shape[:j + 1])) + 1, dtype=splits_dtype) * shape[j + 1]
              for j in range(ragged_rank)]
    return RaggedValue(array.reshape((-1,) + shape[ragged_rank + 1:]), splits)


class _DenseToRagged(Unary):
    def __init__(self, input_dataset, row_splits_dtype):
        super().__init__(input_dataset)
        dtype = D.as_dtype(row_splits_dtype)
        self.element_spec = nest.map_structure(lambda s: _ragged_spec(s, dtype),
                                               self.element_spec)
        self._levels = [s.ragged_rank if isinstance(s, RaggedTensorSpec) and
                        not isinstance(old, RaggedTensorSpec) else 0
                        for s, old in zip(structure.flat_specs(self.element_spec),
                                          structure.flat_specs(input_dataset.element_spec))]
        self._splits = dtype.np

    def _components(self, ctx):
        levels = self._levels
        if not any(levels):
            return self._input._components(ctx)
        return (tuple(_as_ragged(a, k, self._splits) if k else a for a, k in zip(c, levels))
                for c in self._input._components(ctx))


def ragged_batch(dataset, batch_size, drop_remainder=False, row_splits_dtype=D.int64):
    return Batch(_DenseToRagged(dataset, row_splits_dtype), batch_size, drop_remainder)


class _DenseToSparseBatch(Unary):
    """Each batch one SparseTensor holding every entry of its elements (zeros too), of dense
    shape `[batch] + row_shape`."""

    def __init__(self, input_dataset, batch_size, row_shape):
        super().__init__(input_dataset)
        spec = input_dataset.element_spec
        if not isinstance(spec, TensorSpec):
            types = nest.map_structure(lambda s: s.dtype, spec)
            raise TypeError(f"`dense_to_sparse_batch` requires an input dataset whose "
                            f"elements have a single component, but the given dataset has the "
                            f"following component types: {types}.")
        self._size = positive_int(batch_size, "Batch size")
        dims = [int(d) for d in np.asarray(structure.host(row_shape, D.int64).numpy())
                .reshape(-1)]
        for d in dims:
            if d < 0:
                raise ValueError(f"Dimension {d} must be >= 0")
        self._row = dims
        self.element_spec = SparseTensorSpec(TensorShape([None] + dims), spec.dtype)

    def _components(self, ctx):
        rows = []
        for (a,) in self._input._components(ctx):
            rows.append(a)
            if len(rows) == self._size:
                yield (self._batch(rows),)
                rows = []
        if rows:
            yield (self._batch(rows),)

    def _batch(self, rows):
        for r in rows:
            if r.ndim != len(self._row) or any(n > d for n, d in zip(r.shape, self._row)):
                raise errors.DataLossError(
                    None, None, f"Input element had shape ({_dims(r.shape)}) that is larger "
                                f"than the row shape ({_dims(self._row)}).")
        parts = [SparseValue(np.argwhere(np.ones(r.shape, bool)).astype(np.int64),
                             r.reshape(-1), np.array(r.shape, np.int64)) for r in rows]
        batch = composites.SparseRule.batch(self.element_spec, parts)
        batch.dense_shape = np.array([len(rows)] + self._row, np.int64)
        return batch

    def _cardinality(self):
        n = self._input._cardinality()
        return n if n < 0 else -(-n // self._size)


def _dims(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def sparse_batch(dataset, batch_size, row_shape):
    return _DenseToSparseBatch(dataset, batch_size, row_shape)


@tf_export("data.experimental.dense_to_ragged_batch")
def dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype=D.int64):
    return lambda dataset: ragged_batch(dataset, batch_size, drop_remainder, row_splits_dtype)


@tf_export("data.experimental.dense_to_sparse_batch")
def dense_to_sparse_batch(batch_size, row_shape):
    return lambda dataset: sparse_batch(dataset, batch_size, row_shape)


TRANSFORMATIONS.update(ragged_batch=ragged_batch, sparse_batch=sparse_batch)
