"""TF's `tf.ragged` functions: `constant` from nested Python lists, `map_flat_values`."""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from ..ops import array as A
from ..ops import counting as C
from ..ops import math as M
from ..ops import reduce as R
from .ragged_tensor import RaggedTensor


def _depth(x) -> int:
    """How many list levels lie above the scalars (an empty list counts as one)."""
    if isinstance(x, (list, tuple)):
        return 1 + max((_depth(v) for v in x), default=0)
    return 0


def _partition(rows, levels, splits):
    """The scalars under `levels` list levels, recording each level's row splits."""
    if levels == 0:
        return list(rows)
    lengths = [len(r) for r in rows]
    splits[len(splits) - levels].extend(np.cumsum([0] + lengths).tolist()[1:])
    return _partition([v for r in rows for v in r], levels - 1, splits)


@tf_export("ragged.constant")
def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None,
             row_splits_dtype=D.int64):
    """A RaggedTensor from nested lists whose innermost lists hold scalars."""
    depth = _depth(pylist)
    rank = depth - 1 if ragged_rank is None else int(ragged_rank)
    if rank < 1:
        raise ValueError(f"ragged.constant: needs nested lists (ragged_rank >= 1), got "
                         f"{pylist!r}")
    splits = [[0] for _ in range(rank)]
    flat = _partition(list(pylist), rank, splits)
    values = convert_to_tensor(flat, dtype=dtype) if flat or dtype is not None else \
        convert_to_tensor(np.zeros([0], np.float32))
    out = values
    for s in reversed(splits):
        out = RaggedTensor(out, convert_to_tensor(np.asarray(s, D.as_dtype(
            row_splits_dtype).np)))
    return out


@tf_export("ragged.map_flat_values")
def map_flat_values(op, *args, **kwargs):
    """`op` applied to the flat values of the RaggedTensor arguments (which share one
    partition), the result partitioned as the first."""
    found = []

    def flat(v):
        if isinstance(v, RaggedTensor):
            found.append(v)
            return v.flat_values
        return v
    out = op(*[flat(a) for a in args], **{k: flat(v) for k, v in kwargs.items()})
    if not found:
        raise ValueError("ragged.map_flat_values: no RaggedTensor among the arguments")
    return found[0].with_flat_values(out)


_RANGE_DTYPES = (D.int32, D.int64, D.float32, D.float64)   # TF's order of preference


@tf_export("ragged.range")
def ragged_range(starts, limits=None, deltas=1, dtype=None, name=None,
                 row_splits_dtype=D.int64):
    """Row i is `range(starts[i], limits[i], deltas[i])`; scalars broadcast over the rows
    (all three scalars: one row)."""
    if limits is None:
        starts, limits = 0, starts
    operands = [convert_to_tensor(v, dtype=dtype) for v in (starts, limits, deltas)]
    if dtype is None:   # the widest of the operands' dtypes, as TF infers it
        dtype = max((t.dtype for t in operands), key=_RANGE_DTYPES.index)
        operands = [M.cast(t, dtype) if t.dtype is not dtype else t for t in operands]
    zero = M.add(M.add(operands[0], operands[1]), operands[2]) * 0
    starts, limits, deltas = (A.reshape(M.add(t, zero), [-1]) for t in operands)
    if not hasattr(deltas, "_node") and (deltas.numpy() == 0).any():
        raise errors.InvalidArgumentError(None, "RaggedRange", "Requires delta != 0")
    steps = M.truediv(M.subtract(limits, starts), deltas) if dtype.is_floating else \
        M.negative(M.floordiv(M.subtract(starts, limits), deltas))
    if dtype.is_floating:
        steps = M.ceil(steps)
    lengths = M.cast(M.maximum(steps, M.cast(0, dtype)), D.int64)
    splits = A.concat([A.zeros([1], D.int64), R.cumsum(lengths)], 0)
    positions = A.range(splits[-1], dtype=D.int64)
    rowids = C.searchsorted(splits[1:], positions, side="right", out_type=D.int64)
    offsets = M.subtract(positions, A.gather(splits, rowids))
    # TF's RaggedRange has no gradient: the values are constants to a tape
    values = A.stop_gradient(M.add(A.gather(starts, rowids),
                                   M.multiply(A.gather(deltas, rowids), M.cast(offsets, dtype))))
    if D.as_dtype(row_splits_dtype) is not D.int64:
        splits = M.cast(splits, row_splits_dtype)
    return RaggedTensor(values, splits)
