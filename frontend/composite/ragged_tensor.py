"""TF's `tf.RaggedTensor`: rows of different lengths, as `values` partitioned by `row_splits`
(row i is `values[row_splits[i]:row_splits[i + 1]]`); `values` may itself be ragged.

Its components are the flat values and the row splits of every ragged level (TF's order),
so tracing and `tf.function` calls see dense tensors only. The ops are compositions of dense
ops: a value's row is a `searchsorted` of its position in the splits.
"""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...ir.shapes import TensorShape
from ..eager.dispatch import convert_to_tensor
from ..eager.shape_args import traced_value
from ..eager.tensor import Tensor
from ..export import tf_export
from ..function.specs import TensorSpec
from ..ops import array as A
from ..ops import counting as C
from ..ops import math as M
from ..ops import reduce as R
from ..ops import segment as S
from .base import CompositeSpec, CompositeTensor


def _int64(t):
    t = convert_to_tensor(t, dtype_hint=D.int64)
    return t if t.dtype is D.int64 else M.cast(t, D.int64)


def _splits_from_lengths(lengths):
    lengths = _int64(lengths)
    return A.concat([A.zeros([1], D.int64), R.cumsum(lengths)], 0)


def splits_from_value_rowids(rowids, nrows, what):
    """The row splits of int64 `rowids` (sorted) over `nrows` rows (None: the last id + 1)."""
    if nrows is None:
        known = traced_value(rowids)
        if not isinstance(known, tuple) or None in known:
            raise ValueError(f"{what}: nrows must be given when value_rowids is not known "
                             f"while tracing")
        nrows = known[-1] + 1 if known else 0
    lengths = S.unsorted_segment_sum(A.ones_like(rowids), rowids, int(nrows))
    return _splits_from_lengths(lengths)


def rowids_from_splits(row_splits, nvals):
    """The row of each of `nvals` values: its position searched in the splits."""
    positions = A.range(nvals, dtype=row_splits.dtype)
    return C.searchsorted(row_splits[1:], positions, side="right", out_type=row_splits.dtype)


@tf_export("RaggedTensor")
class RaggedTensor(CompositeTensor):
    """TF's `tf.RaggedTensor` (build one with a `from_*` factory or `tf.ragged.constant`)."""

    _is_tensor = True

    def __init__(self, values, row_splits):
        self._values = values
        self._row_splits = row_splits

    # --- factories --------------------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        return cls(_values(values), _int64(row_splits))

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        return cls(_values(values), _splits_from_lengths(row_lengths))

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        """Row `value_rowids[j]` holds `values[j]` (ids sorted); `nrows` defaults to the last
        id + 1."""
        return cls(_values(values),
                   splits_from_value_rowids(_int64(value_rowids), nrows,
                                            "RaggedTensor.from_value_rowids"))

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None,
                    row_splits_dtype=D.int64):
        """The rows of a dense tensor, each cut to `lengths[i]`, or before its trailing
        `padding` values, or whole."""
        t = convert_to_tensor(tensor)
        nrows, ncols = A.shape(t, out_type=D.int64)[0], A.shape(t, out_type=D.int64)[1]
        if lengths is None and padding is None:
            return cls(A.reshape(t, [-1] + t.shape.as_list()[2:]),
                       M.multiply(A.range(nrows + 1, dtype=D.int64), ncols))
        if lengths is None:
            kept = M.not_equal(t, convert_to_tensor(padding, dtype=t.dtype))
            if t.shape.rank > 2:
                kept = R.reduce_any(kept, axis=list(range(2, t.shape.rank)))
            # a row's length: one past its last non-padding column
            cols = M.multiply(M.cast(kept, D.int64), A.range(1, ncols + 1, dtype=D.int64))
            lengths = R.reduce_max(cols, axis=1)
        lengths = _int64(lengths)
        mask = M.less(A.reshape(A.range(ncols, dtype=D.int64), [1, -1]),
                      A.reshape(lengths, [-1, 1]))
        return cls(A.boolean_mask(t, mask), _splits_from_lengths(lengths))

    # --- partition ----------------------------------------------------------------------------
    values = property(lambda self: self._values, doc="The concatenated rows.")
    row_splits = property(lambda self: self._row_splits, doc="int64 `[nrows + 1]` offsets.")

    @property
    def flat_values(self):
        v = self._values
        return v.flat_values if isinstance(v, RaggedTensor) else v

    @property
    def nested_row_splits(self) -> tuple:
        inner = self._values.nested_row_splits if isinstance(self._values, RaggedTensor) else ()
        return (self._row_splits,) + inner

    @property
    def ragged_rank(self) -> int:
        return 1 + (self._values.ragged_rank if isinstance(self._values, RaggedTensor) else 0)

    dtype = property(lambda self: self.flat_values.dtype)
    row_splits_dtype = property(lambda self: self._row_splits.dtype)

    @property
    def shape(self) -> TensorShape:
        n = self._row_splits.shape[0]
        inner = self._values.shape[1:]
        return TensorShape([None if n is None else n - 1, None]).concatenate(inner)

    def get_shape(self) -> TensorShape:
        return self.shape

    def nrows(self, out_type=None, name=None):
        n = M.subtract(A.shape(self._row_splits, out_type=D.int64)[0], np.int64(1))
        return n if out_type is None else M.cast(n, out_type)

    def row_lengths(self, axis=1, name=None):
        return M.subtract(self._row_splits[1:], self._row_splits[:-1])

    def value_rowids(self, name=None):
        """The row of each value: its position searched in the splits."""
        return rowids_from_splits(self._row_splits, _length(self._values))

    def bounding_shape(self, axis=None, name=None, out_type=None):
        rows = A.reshape(self.nrows(), [1])
        longest = A.reshape(R.reduce_max(A.concat([self.row_lengths(), A.zeros([1], D.int64)],
                                                  0)), [1])
        inner = self._values.bounding_shape()[1:] if isinstance(self._values, RaggedTensor) \
            else A.shape(self._values, out_type=D.int64)[1:]
        shape = A.concat([rows, longest, inner], 0)
        return shape if axis is None else A.gather(shape, axis)

    def with_values(self, new_values):
        return RaggedTensor(new_values, self._row_splits)

    def with_flat_values(self, new_values):
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def _map_values(self, fn):
        return self.with_flat_values(fn(self.flat_values))

    # --- conversion ---------------------------------------------------------------------------
    def to_tensor(self, default_value=None, name=None, shape=None):
        """The dense tensor, rows padded with `default_value` (zero) to the longest; with
        `shape`, padded or cut to it."""
        values = self._values.to_tensor(default_value) if isinstance(
            self._values, RaggedTensor) else self._values
        default = convert_to_tensor(0 if default_value is None else default_value,
                                    dtype=self.dtype)
        rowids = self.value_rowids()
        columns = M.subtract(A.range(_length(values), dtype=D.int64),
                             A.gather(self._row_splits, rowids))
        inner = A.shape(values, out_type=D.int64)[1:]
        want = None if shape is None else \
            [None if d is None or d == -1 else int(d) for d in TensorShape(shape)]
        if want is not None and None not in want[:2]:
            # A static canvas with one spare row and column, where every value outside the
            # requested shape lands (no size here depends on the row lengths: XLA compiles it)
            rows, cols = want[0], want[1]
            outside = M.logical_or(M.greater_equal(rowids, np.int64(rows)),
                                   M.greater_equal(columns, np.int64(cols)))
            rowids = M.where(outside, A.fill(A.shape(rowids), np.int64(rows)), rowids)
            columns = M.where(outside, A.fill(A.shape(columns), np.int64(cols)), columns)
            canvas = A.fill(A.concat([convert_to_tensor(np.asarray([rows + 1, cols + 1],
                                                                   np.int64)), inner], 0),
                            default)
            dense = A.tensor_scatter_nd_update(canvas, A.stack([rowids, columns], axis=1),
                                               values)
            return dense[:rows, :cols]
        rows = self.nrows()
        longest = R.reduce_max(A.concat([self.row_lengths(), A.zeros([1], D.int64)], 0))
        if want is not None:
            rows = rows if want[0] is None else M.maximum(rows, np.int64(want[0]))
            longest = longest if want[1] is None else M.maximum(longest, np.int64(want[1]))
        canvas = A.fill(A.concat([A.stack([rows, longest]), inner], 0), default)
        dense = A.tensor_scatter_nd_update(canvas, A.stack([rowids, columns], axis=1), values)
        if want is not None:
            dense = dense[:want[0], :want[1]]
        return dense

    def __str__(self):
        return f"<tf.RaggedTensor {self.to_list()}>" if self.flat_values._value is not None \
            else f"tf.RaggedTensor(values={self._values}, row_splits={self._row_splits})"

    __repr__ = __str__

    def to_list(self):
        splits = self._row_splits.numpy().tolist()
        inner = self._values.to_list() if isinstance(self._values, RaggedTensor) else \
            self._values.numpy().tolist()
        return [inner[a:b] for a, b in zip(splits[:-1], splits[1:])]

    def numpy(self):
        """TF's: rows of one length stack into one array of the values' dtype; ragged rows
        are a 1-D object array of per-row arrays (of that dtype)."""
        values, splits = self.values.numpy(), self.row_splits.numpy()
        rows = [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]
        if not rows:
            return np.zeros((0, 0) + values.shape[1:], values.dtype)
        if len({len(r) for r in rows}) == 1:
            return np.array(rows)
        out = np.empty(len(rows), object)
        for i, r in enumerate(rows):
            out[i] = r
        return out

    # --- rows ---------------------------------------------------------------------------------
    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        first, rest = key[0], key[1:]
        if isinstance(first, slice):
            picked = self._rows(first)
            if rest:
                raise NotImplementedError("RaggedTensor: indexing inside the rows of a row "
                                          "slice is not supported")
            return picked
        row = self._row(first)
        return row[rest] if rest else row

    def _row(self, i):
        i = int(i)
        n = self.nrows()
        index = M.add(n, np.int64(i)) if i < 0 else convert_to_tensor(np.int64(i))
        start, stop = A.gather(self._row_splits, index), A.gather(self._row_splits, index + 1)
        positions = A.range(start, stop, dtype=D.int64)
        if isinstance(self._values, RaggedTensor):
            return self._values._take(positions)
        return A.gather(self._values, positions)

    def _rows(self, sl):
        n = self._row_splits.shape[0]
        if n is None:
            raise ValueError("RaggedTensor: slicing rows needs the number of rows while "
                             "tracing")
        return self._take(convert_to_tensor(np.arange(n - 1, dtype=np.int64)[sl]))

    def _take(self, rows):
        """The rows `rows` (a 1-D int64 tensor), in that order."""
        splits = _splits_from_lengths(A.gather(self.row_lengths(), rows))
        positions = A.range(splits[-1], dtype=D.int64)
        new_rows = rowids_from_splits(splits, splits[-1])
        source = M.add(A.gather(A.gather(self._row_splits, rows), new_rows),
                       M.subtract(positions, A.gather(splits, new_rows)))
        inner = self._values._take(source) if isinstance(self._values, RaggedTensor) \
            else A.gather(self._values, source)
        return RaggedTensor(inner, splits)

    def _gather(self, indices, axis, batch_dims):
        """tf.gather of rows, as TF's ragged dispatch: a vector of indices picks rows (a
        RaggedTensor), a scalar one row (its values)."""
        if axis not in (None, 0) or batch_dims != 0:
            raise NotImplementedError("tf.gather of a RaggedTensor: flowjit gathers rows "
                                      "(axis 0, batch_dims 0) only")
        ix = _int64(indices)
        if ix.shape.rank == 0:
            return self._take(A.reshape(ix, [1])).values
        if ix.shape.rank != 1:
            raise NotImplementedError("tf.gather of a RaggedTensor: flowjit takes a scalar or "
                                      "a vector of indices")
        return self._take(ix)

    # --- elementwise ops (tf.math's elementwise functions dispatch here) ---------------------
    _maps_elementwise = True

    def _elementwise(self, fn, args, kwargs):
        """`fn` over the flat values: a ragged operand shares this one's row partition (TF
        checks the splits at run time; the ragged ranks are checked here), a dense one
        broadcasts against the uniform inner dims, or per row when it has this one's rank."""
        return self.with_flat_values(fn(*[self._flat_operand(a) for a in args], **kwargs))

    def _flat_operand(self, a):
        if isinstance(a, RaggedTensor):
            if a.ragged_rank != self.ragged_rank:
                raise ValueError(f"RaggedTensors with ragged ranks {self.ragged_rank} and "
                                 f"{a.ragged_rank} do not share a row partition")
            return a.flat_values
        if not hasattr(a, "shape") or a.shape.rank is None:
            return a                 # a Python value: the op converts it as TF's do
        if a.shape.rank < self.flat_values.shape.rank:
            return a
        if a.shape.rank == self.shape.rank and self.ragged_rank == 1 and a.shape[1] == 1:
            rows = A.broadcast_to(a[:, 0], A.concat([A.reshape(self.nrows(), [1]),
                                                     A.shape(a, out_type=D.int64)[2:]], 0))
            return A.gather(rows, self.value_rowids())
        raise ValueError(f"A dense operand of shape {a.shape} does not broadcast against a "
                         f"RaggedTensor of shape {self.shape}")

    __add__ = lambda self, o: M.add(self, o)  # noqa: E731
    __radd__ = lambda self, o: M.add(o, self)  # noqa: E731
    __sub__ = lambda self, o: M.subtract(self, o)  # noqa: E731
    __rsub__ = lambda self, o: M.subtract(o, self)  # noqa: E731
    __mul__ = lambda self, o: M.multiply(self, o)  # noqa: E731
    __rmul__ = lambda self, o: M.multiply(o, self)  # noqa: E731
    __truediv__ = lambda self, o: M.truediv(self, o)  # noqa: E731
    __rtruediv__ = lambda self, o: M.truediv(o, self)  # noqa: E731
    __floordiv__ = lambda self, o: M.floordiv(self, o)  # noqa: E731
    __rfloordiv__ = lambda self, o: M.floordiv(o, self)  # noqa: E731
    __mod__ = lambda self, o: M.floormod(self, o)  # noqa: E731
    __rmod__ = lambda self, o: M.floormod(o, self)  # noqa: E731
    __pow__ = lambda self, o: M.pow(self, o)  # noqa: E731
    __rpow__ = lambda self, o: M.pow(o, self)  # noqa: E731
    __lt__ = lambda self, o: M.less(self, o)  # noqa: E731
    __le__ = lambda self, o: M.less_equal(self, o)  # noqa: E731
    __gt__ = lambda self, o: M.greater(self, o)  # noqa: E731
    __ge__ = lambda self, o: M.greater_equal(self, o)  # noqa: E731
    __and__ = lambda self, o: M.logical_and(self, o)  # noqa: E731
    __or__ = lambda self, o: M.logical_or(self, o)  # noqa: E731
    __neg__ = lambda self: M.negative(self)  # noqa: E731
    __abs__ = lambda self: M.abs(self)  # noqa: E731
    __invert__ = lambda self: M.logical_not(self)  # noqa: E731

    # --- reductions (tf.reduce_* hand a composite input here) --------------------------------
    def _reduce(self, opname, axis, keepdims):
        if keepdims:
            raise NotImplementedError(f"{opname} of a RaggedTensor with keepdims=True is not "
                                      f"supported")
        if axis is None:
            return getattr(R, opname)(self.flat_values)
        axis = int(axis) + 1 + self.ragged_rank if int(axis) < 0 else int(axis)
        if self.ragged_rank != 1 or axis not in (0, 1):
            raise NotImplementedError(f"{opname} of a RaggedTensor: flowjit reduces over axis "
                                      f"0 or 1 of a ragged rank 1 tensor")
        if axis == 1:
            return _ROW_REDUCTIONS[opname](self)
        return _COLUMN_REDUCTIONS[opname](self)

    # --- composite protocol ----------------------------------------------------------------
    def _components(self):
        return (self.flat_values,) + self.nested_row_splits

    def _static(self):
        return (self.ragged_rank,)

    @classmethod
    def _from_components(cls, static, components):
        flat, splits = components[0], components[1:]
        out = flat
        for s in reversed(splits):
            out = cls(out, s)
        return out

    @property
    def _type_spec(self):
        return RaggedTensorSpec(self.shape, self.dtype, self.ragged_rank, self.row_splits_dtype,
                                flat_values_spec=None)


def _length(values):
    """How many rows `values` has, from shapes only (so XLA knows it statically)."""
    if isinstance(values, RaggedTensor):
        return values.nrows()
    return A.shape(values, out_type=D.int64)[0]


def _values(v):
    return v if isinstance(v, RaggedTensor) else convert_to_tensor(v)


def _segments(opname):
    """A row reduction: the segment reduction of the values by row, into nrows segments (a
    count computed in the graph when the number of rows is unknown while tracing)."""
    def reduce(rt):
        return getattr(S, opname)(rt.values, rt.value_rowids(), rt.nrows())
    return reduce


def _row_mean(rt):
    total = _segments("unsorted_segment_sum")(rt)
    return M.truediv(total, M.cast(rt.row_lengths(), total.dtype))


def _row_any(rt):
    """Whether a row holds a True: a count of them (an empty row holds none)."""
    trues = _segments("unsorted_segment_sum")(rt.with_flat_values(M.cast(rt.flat_values,
                                                                          D.int32)))
    return M.greater(trues, 0)


def _row_all(rt):
    return M.logical_not(_row_any(M.logical_not(rt)))


def _column(opname, fill):
    def reduce(rt):
        return getattr(R, opname)(rt.to_tensor(default_value=fill(rt.dtype)), axis=0)
    return reduce


def _column_mean(rt):
    total = R.reduce_sum(rt.to_tensor(), axis=0)
    count = R.reduce_sum(rt.with_flat_values(A.ones_like(rt.flat_values)).to_tensor(), axis=0)
    return M.truediv(total, count)


_ROW_REDUCTIONS = {
    "reduce_sum": _segments("unsorted_segment_sum"),
    "reduce_max": _segments("unsorted_segment_max"),
    "reduce_min": _segments("unsorted_segment_min"),
    "reduce_prod": _segments("unsorted_segment_prod"),
    "reduce_mean": _row_mean,
    "reduce_any": _row_any,
    "reduce_all": _row_all,
}
_COLUMN_REDUCTIONS = {
    "reduce_sum": _column("reduce_sum", lambda dt: 0),
    "reduce_max": _column("reduce_max", lambda dt: dt.min),
    "reduce_min": _column("reduce_min", lambda dt: dt.max),
    "reduce_prod": _column("reduce_prod", lambda dt: 1),
    "reduce_mean": _column_mean,
    "reduce_any": _column("reduce_any", lambda dt: False),
    "reduce_all": _column("reduce_all", lambda dt: True),
}


@tf_export("RaggedTensorSpec")
class RaggedTensorSpec(CompositeSpec):
    """TF's `tf.RaggedTensorSpec(shape=None, dtype=tf.float32, ragged_rank=None,
    row_splits_dtype=tf.int64, flat_values_spec=None)`."""

    def __init__(self, shape=None, dtype=D.float32, ragged_rank=None, row_splits_dtype=D.int64,
                 flat_values_spec=None):
        self._shape = TensorShape(shape)
        self._dtype = D.as_dtype(dtype)
        rank = self._shape.rank
        self._ragged_rank = (rank - 1 if rank is not None else 1) if ragged_rank is None \
            else int(ragged_rank)
        self._row_splits_dtype = D.as_dtype(row_splits_dtype)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    ragged_rank = property(lambda self: self._ragged_rank)
    row_splits_dtype = property(lambda self: self._row_splits_dtype)
    # ragged rank 0 describes a dense tensor (TF: a ragged tensor's slices, ragged_batch's
    # elements)
    value_type = property(lambda self: RaggedTensor if self._ragged_rank else Tensor)

    def _fields(self):
        return (self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype)

    def _static(self):
        return (self._ragged_rank,)

    def _component_specs(self):
        rank = self._shape.rank
        inner = [None] + (self._shape.as_list()[self._ragged_rank + 1:] if rank else [])
        nrows = self._shape[0] if rank else None
        outer = TensorSpec([None if nrows is None else nrows + 1], self._row_splits_dtype)
        return (TensorSpec(inner, self._dtype), outer) + tuple(
            TensorSpec([None], self._row_splits_dtype) for _ in range(self._ragged_rank - 1))
