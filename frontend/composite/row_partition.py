"""TF's `tf.experimental.RowPartition`: how a ragged dimension divides values into rows, held
as row splits (row i is `values[row_splits[i]:row_splits[i + 1]]`), with the other encodings
computed from them."""
from __future__ import annotations

from ...ir import dtypes as D
from ..eager.dispatch import convert_to_tensor
from ..eager.tensor import Tensor
from ..export import tf_export
from ..function import func_graph
from ..ops import array as A
from ..ops import math as M
from .ragged_tensor import _splits_from_lengths, rowids_from_splits, splits_from_value_rowids

_PRIVATE = object()


def _encoding(value, dtype, dtype_hint):
    """`value` as an int64 tensor, and the partition's dtype: `dtype`, else a tensor's own,
    else `dtype_hint`, else int64 (TF's rule)."""
    own = value.dtype if isinstance(value, Tensor) else None
    out = D.as_dtype(dtype or own or dtype_hint or D.int64)
    if out not in (D.int32, D.int64):
        raise ValueError(f"dtype must be int32 or int64, got {out.name}")
    t = convert_to_tensor(value, dtype_hint=D.int64)
    return (t if t.dtype is D.int64 else M.cast(t, D.int64)), out


@tf_export("experimental.RowPartition")
class RowPartition:
    """Build one with a factory: `from_row_splits`, `from_row_lengths`, `from_value_rowids`."""

    def __init__(self, row_splits, dtype=D.int64, internal=None, value_rowids=None):
        if internal is not _PRIVATE:
            raise ValueError("RowPartition constructor is private; please use one of the "
                             "factory methods instead (e.g., RowPartition.from_row_lengths())")
        self._splits = row_splits   # int64; read out in `dtype`
        # kept when given, as TF keeps each encoding it was built from: their count is a
        # shape (static under XLA), not the value splits[-1]
        self._rowids = value_rowids
        self._dtype = dtype

    @classmethod
    def from_row_splits(cls, row_splits, validate=True, dtype=None, dtype_hint=None):
        splits, dtype = _encoding(row_splits, dtype, dtype_hint)
        return cls(splits, dtype, _PRIVATE)

    @classmethod
    def from_row_lengths(cls, row_lengths, validate=True, dtype=None, dtype_hint=None):
        lengths, dtype = _encoding(row_lengths, dtype, dtype_hint)
        return cls(_splits_from_lengths(lengths), dtype, _PRIVATE)

    @classmethod
    def from_value_rowids(cls, value_rowids, nrows=None, validate=True, dtype=None,
                          dtype_hint=None):
        """Row `value_rowids[j]` holds value j (ids sorted); `nrows` defaults to the last
        id + 1."""
        rowids, dtype = _encoding(value_rowids, dtype, dtype_hint)
        splits = splits_from_value_rowids(rowids, nrows, "RowPartition.from_value_rowids")
        return cls(splits, dtype, _PRIVATE, value_rowids=rowids)

    @property
    def dtype(self):
        return self._dtype

    def _out(self, t):
        return t if self._dtype is D.int64 else M.cast(t, self._dtype)

    def row_splits(self):
        return self._out(self._splits)

    def row_lengths(self):
        return self._out(M.subtract(self._splits[1:], self._splits[:-1]))

    def nrows(self):
        return self._out(M.subtract(A.shape(self._splits, out_type=D.int64)[0], 1))

    def nvals(self):
        if self._rowids is not None:
            return self._out(A.shape(self._rowids, out_type=D.int64)[0])
        return self._out(self._splits[-1])

    def value_rowids(self):
        """The row of each value (from row splits or lengths their count is a value, so
        XLA, like TF's, compiles this only for a partition made from value_rowids)."""
        if self._rowids is not None:
            return self._out(self._rowids)
        return self._out(rowids_from_splits(self._splits, self._splits[-1]))

    def __repr__(self):
        splits = self.row_splits()
        shown = splits if func_graph.current() is not None else splits.numpy()
        return f"tf.RowPartition(row_splits={shown})"
