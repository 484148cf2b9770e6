"""Elements that are SparseTensors or RaggedTensors: how the pipeline carries them.

Inside the pipeline an element's component is one value per spec leaf: a NumPy array for a
`TensorSpec`, a `SparseValue` for a `SparseTensorSpec`, a `RaggedValue` for a
`RaggedTensorSpec` (one of ragged rank 0 describes a dense tensor whose batch is ragged: TF's
`ragged_batch` elements, and the slices of a ragged tensor of ragged rank 1). Each kind of
spec has a rule (`rule(spec)`) saying how its components batch, split into rows, become
eager values, and expand into plain arrays: the arrays are what traced functions, staged
pulls and cache files see (a composite's arrays in TF's component order).
"""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ...ir.shapes import TensorShape
from ..composite.ragged_tensor import RaggedTensor, RaggedTensorSpec
from ..composite.sparse_tensor import SparseTensor, SparseTensorSpec
from ..eager.tensor import Tensor
from ..function.specs import TensorSpec


class SparseValue:
    """A SparseTensor's arrays: int64 `indices [N, rank]`, `values [N]`, `dense_shape`."""

    __slots__ = ("indices", "values", "dense_shape")

    def __init__(self, indices, values, dense_shape):
        self.indices, self.values, self.dense_shape = indices, values, dense_shape


class RaggedValue:
    """A RaggedTensor's arrays: its flat values and the row splits of each ragged level,
    outermost first."""

    __slots__ = ("flat_values", "splits")

    def __init__(self, flat_values, splits):
        self.flat_values, self.splits = flat_values, tuple(splits)


def _numpy(t):
    return np.asarray(t.numpy()) if t.dtype is not D.string else t.numpy()


def _stack(parts):
    try:
        return np.stack(parts)
    except ValueError:
        first = np.shape(parts[0])
        k = next(i for i, p in enumerate(parts) if np.shape(p) != first)
        shown = lambda s: "[" + ",".join(map(str, s)) + "]"  # noqa: E731
        raise errors.InvalidArgumentError(
            None, None, f"Cannot add tensor to the batch: number of elements does not match. "
                        f"Shapes are: [tensor]: {shown(np.shape(parts[k]))}, [batch]: "
                        f"{shown(first)}") from None


def _empty(spec_shape: TensorShape, dtype):
    dims = [] if spec_shape.rank is None else [d or 0 for d in spec_shape.as_list()]
    return np.full(dims, b"", object) if dtype is D.string else np.zeros(dims, dtype.np)


class DenseRule:
    """A `TensorSpec` leaf: the component is the array itself."""

    composite = False

    @staticmethod
    def array_specs(spec):
        return [spec]

    @staticmethod
    def arrays(spec, c):
        return [c]

    @staticmethod
    def from_arrays(spec, arrays):
        return arrays[0]

    @staticmethod
    def from_value(value):
        return TensorSpec(value.shape, value.dtype), _numpy(value)

    @staticmethod
    def to_value(spec, c):
        return Tensor(c)

    @staticmethod
    def from_traced(spec, tensors):
        """The leaf from its arrays' tensors in a traced function (a staged pull)."""
        return tensors[0]

    @staticmethod
    def signature_spec(spec):
        """The leaf's spec in a traced function's signature."""
        return TensorSpec(spec.shape, spec.dtype)

    @staticmethod
    def to_numpy(spec, c):
        return c[()] if isinstance(c, np.ndarray) and c.ndim == 0 else c

    @staticmethod
    def nrows(c):
        return len(c)

    @staticmethod
    def static_rows(spec):
        return spec.shape.as_list()[0] if spec.shape.rank else None

    @staticmethod
    def rows(spec, c):
        return list(c)

    @staticmethod
    def batch(spec, parts):
        return _stack(parts)

    @staticmethod
    def batched_spec(spec, n):
        return TensorSpec(TensorShape([n]).concatenate(spec.shape), spec.dtype)

    @staticmethod
    def unbatched_spec(spec):
        return TensorSpec(_drop_first(spec.shape), spec.dtype)

    @staticmethod
    def placeholder(spec):
        return _empty(spec.shape, spec.dtype)

    @staticmethod
    def relaxed(a, b):
        return TensorSpec(a.shape.most_specific_compatible_shape(b.shape), a.dtype)


def _drop_first(shape: TensorShape) -> TensorShape:
    if shape.rank == 0:
        raise ValueError("Unbatching a tensor is only supported for rank >= 1")
    return TensorShape(shape.as_list()[1:]) if shape.rank is not None else shape


class SparseRule:
    composite = True

    @staticmethod
    def array_specs(spec):
        return list(spec._component_specs())

    @staticmethod
    def arrays(spec, c):
        return [c.indices, c.values, c.dense_shape]

    @staticmethod
    def from_arrays(spec, arrays):
        return SparseValue(*arrays)

    @staticmethod
    def from_value(value):
        return value._type_spec, SparseValue(*(_numpy(t) for t in value._components()))

    @staticmethod
    def to_value(spec, c):
        return SparseTensor._from_components(
            tuple(int(d) for d in c.dense_shape),
            [Tensor(c.indices), Tensor(c.values), Tensor(c.dense_shape)])

    @staticmethod
    def from_traced(spec, tensors):
        return SparseTensor._from_components(spec._static(), tensors)

    @staticmethod
    def signature_spec(spec):
        return spec

    @staticmethod
    def to_numpy(spec, c):
        # TF's numpy iterator densifies a SparseTensor
        dense = np.zeros(c.dense_shape, c.values.dtype)
        dense[tuple(c.indices.T)] = c.values
        return dense

    @staticmethod
    def nrows(c):
        return int(c.dense_shape[0])

    @staticmethod
    def static_rows(spec):
        return None   # TF does not count the rows of a batch of SparseTensors statically

    @staticmethod
    def rows(spec, c):
        if len(c.dense_shape) < 2:
            raise errors.InvalidArgumentError(
                None, None, f"Rank of input SparseTensor should be > 1, but saw rank: "
                            f"{len(c.dense_shape)}")
        first = c.indices[:, 0]
        return [SparseValue(c.indices[first == i, 1:], c.values[first == i], c.dense_shape[1:])
                for i in range(int(c.dense_shape[0]))]

    @staticmethod
    def batch(spec, parts):
        rank = len(parts[0].dense_shape)
        for k, p in enumerate(parts):
            if len(p.dense_shape) != rank:
                raise errors.InvalidArgumentError(
                    None, None, f"Inconsistent shape across SparseTensors: rank prior to "
                                f"SparseTensor[{k}] was: {rank} but rank of SparseTensor[{k}] "
                                f"is: {len(p.dense_shape)}")
        widest = np.max([p.dense_shape for p in parts], axis=0) if rank else \
            np.zeros(0, np.int64)
        indices = [np.concatenate([np.full((len(p.indices), 1), i, np.int64), p.indices], 1)
                   for i, p in enumerate(parts)]
        return SparseValue(np.concatenate(indices).reshape(-1, rank + 1),
                           np.concatenate([p.values for p in parts]),
                           np.concatenate([[len(parts)], widest]).astype(np.int64))

    @staticmethod
    def batched_spec(spec, n):
        return SparseTensorSpec(TensorShape([n]).concatenate(spec.shape), spec.dtype)

    @staticmethod
    def unbatched_spec(spec):
        return SparseTensorSpec(_drop_first(spec.shape), spec.dtype)

    @staticmethod
    def placeholder(spec):
        rank = spec.shape.rank or 0
        dims = [] if spec.shape.rank is None else [d or 0 for d in spec.shape.as_list()]
        return SparseValue(np.zeros((0, rank), np.int64), _empty(TensorShape([0]), spec.dtype),
                           np.array(dims, np.int64))

    @staticmethod
    def relaxed(a, b):
        return SparseTensorSpec(a.shape.most_specific_compatible_shape(b.shape), a.dtype)


def _row_slice(c, i):
    """Row `i` of a ragged value: a RaggedValue of one ragged level fewer, or an array."""
    lo, hi = int(c.splits[0][i]), int(c.splits[0][i + 1])
    inner = []
    for s in c.splits[1:]:
        part = s[lo:hi + 1]
        inner.append(part - part[0])
        lo, hi = int(part[0]), int(part[-1])
    values = c.flat_values[lo:hi]
    return RaggedValue(values, inner) if inner else values


def _joined_splits(splits_of_parts, dtype):
    """The splits of one level of several ragged values put end to end."""
    out, offset = [np.zeros(1, dtype)], 0
    for s in splits_of_parts:
        out.append(s[1:] + offset)
        offset += int(s[-1])
    return np.concatenate(out).astype(dtype)


class RaggedRule:
    composite = True

    @staticmethod
    def array_specs(spec):
        rr, shape = spec.ragged_rank, spec.shape
        inner = shape.as_list()[rr + 1:] if shape.rank is not None else None
        flat = TensorSpec(None if inner is None else [None] + inner, spec.dtype)
        if rr == 0:
            return [TensorSpec(shape, spec.dtype)]
        nrows = shape[0] if shape.rank else None
        splits = spec.row_splits_dtype
        return [flat, TensorSpec([None if nrows is None else nrows + 1], splits)] + [
            TensorSpec([None], splits) for _ in range(rr - 1)]

    @staticmethod
    def arrays(spec, c):
        return [c] if spec.ragged_rank == 0 else [c.flat_values, *c.splits]

    @staticmethod
    def from_arrays(spec, arrays):
        return arrays[0] if spec.ragged_rank == 0 else RaggedValue(arrays[0], arrays[1:])

    @staticmethod
    def from_value(value):
        flat, *splits = (_numpy(t) for t in value._components())
        return value._type_spec, RaggedValue(flat, splits)

    @staticmethod
    def to_value(spec, c):
        if spec.ragged_rank == 0:
            return Tensor(c)
        return RaggedTensor._from_components(
            (spec.ragged_rank,), [Tensor(c.flat_values)] + [Tensor(s) for s in c.splits])

    @staticmethod
    def from_traced(spec, tensors):
        if spec.ragged_rank == 0:
            return tensors[0]
        return RaggedTensor._from_components(spec._static(), tensors)

    @staticmethod
    def signature_spec(spec):
        return spec if spec.ragged_rank else DenseRule.signature_spec(spec)

    @classmethod
    def to_numpy(cls, spec, c):
        # as RaggedTensor.numpy(): an object array of the rows' arrays
        if spec.ragged_rank == 0:
            return c
        rows = cls.rows(spec, c)
        inner = cls.unbatched_spec(spec)
        out = np.empty(len(rows), object)
        out[:] = [cls.to_numpy(inner, r) for r in rows]
        return out

    @staticmethod
    def nrows(c):
        return len(c) if isinstance(c, np.ndarray) else len(c.splits[0]) - 1

    static_rows = DenseRule.static_rows

    @staticmethod
    def rows(spec, c):
        if spec.ragged_rank == 0:
            return list(c)
        return [_row_slice(c, i) for i in range(len(c.splits[0]) - 1)]

    @staticmethod
    def batch(spec, parts):
        dtype = spec.row_splits_dtype.np
        if spec.ragged_rank == 0:
            lengths = [len(p) for p in parts]
            return RaggedValue(np.concatenate(parts), [np.concatenate(
                [[0], np.cumsum(lengths)]).astype(dtype)])
        outer = np.concatenate([[0], np.cumsum([len(p.splits[0]) - 1 for p in parts])])
        levels = [_joined_splits([p.splits[k] for p in parts], dtype)
                  for k in range(spec.ragged_rank)]
        return RaggedValue(np.concatenate([p.flat_values for p in parts]),
                           [outer.astype(dtype)] + levels)

    @staticmethod
    def batched_spec(spec, n):
        return RaggedTensorSpec(TensorShape([n]).concatenate(spec.shape), spec.dtype,
                                spec.ragged_rank + 1, spec.row_splits_dtype)

    @staticmethod
    def unbatched_spec(spec):
        return RaggedTensorSpec(_drop_first(spec.shape), spec.dtype,
                                max(spec.ragged_rank - 1, 0), spec.row_splits_dtype)

    @classmethod
    def placeholder(cls, spec):
        specs = cls.array_specs(spec)
        return cls.from_arrays(spec, [_empty(s.shape, s.dtype) if i == 0 else
                                      np.zeros([(s.shape[0] or 1)], s.dtype.np)
                                      for i, s in enumerate(specs)])

    @staticmethod
    def relaxed(a, b):
        if a.ragged_rank != b.ragged_rank or a.row_splits_dtype is not b.row_splits_dtype:
            raise TypeError("ragged ranks differ")
        return RaggedTensorSpec(a.shape.most_specific_compatible_shape(b.shape), a.dtype,
                                a.ragged_rank, a.row_splits_dtype)


_RULES = {TensorSpec: DenseRule, SparseTensorSpec: SparseRule, RaggedTensorSpec: RaggedRule}
_VALUE_RULES = {SparseTensor: SparseRule, RaggedTensor: RaggedRule}


def rule(spec):
    return _RULES.get(type(spec), DenseRule)


def value_rule(value):
    """The rule of a value, or None when it is not a composite tensor tf.data carries."""
    return _VALUE_RULES.get(type(value))


def has_composites(flat_specs) -> bool:
    return any(rule(s).composite for s in flat_specs)


def expand(flat_specs, components) -> list:
    """The plain arrays of an element's components."""
    return [a for s, c in zip(flat_specs, components) for a in rule(s).arrays(s, c)]


def per_leaf(flat_specs, arrays) -> list:
    """`arrays` (an element's plain arrays, or their tensors) cut into one list per leaf."""
    out, k = [], 0
    for s in flat_specs:
        n = len(rule(s).array_specs(s))
        out.append(list(arrays[k:k + n]))
        k += n
    return out


def collapse(flat_specs, arrays) -> tuple:
    """The components of an element from its plain arrays (`expand`'s inverse)."""
    return tuple(rule(s).from_arrays(s, a)
                 for s, a in zip(flat_specs, per_leaf(flat_specs, arrays)))


def array_specs(flat_specs) -> list:
    return [a for s in flat_specs for a in rule(s).array_specs(s)]
