"""TF's `dynamic_partition` and `dynamic_stitch`, composed from gathers.

Indices and partitions known when the op is built (Python values, constants, eager
tensors: every eager call) become static gather positions, so every mode runs them, XLA too,
and the gradients are the gathers': as TF's, an element of `dynamic_stitch`'s data that a
later one overwrites still gets the upstream gradient at its index. Indices computed in a
graph make the output size a run-time value: the executor runs those through
`boolean_mask` and `tensor_scatter_nd_update`; XLA, as TF's, needs them constant."""
from __future__ import annotations

import numpy as np

from ...ir import errors
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from . import reduce as R
from .program import get_static_value


def _invalid(opname, message):
    return errors.InvalidArgumentError(None, opname, message)


def _rows(x, leading_rank):
    """`x` with its first `leading_rank` dims flattened into one."""
    return A.reshape(x, [-1] + x.shape.as_list()[leading_rank:])


@tf_export("dynamic_partition")
def dynamic_partition(data, partitions, num_partitions, name=None):
    """`num_partitions` tensors: output i holds the slices of `data` whose partition is i,
    in order."""
    data = convert_to_tensor(data)
    partitions = convert_to_tensor(partitions)
    rank = partitions.shape.rank
    if data.shape.as_list()[:rank] != partitions.shape.as_list():
        raise _invalid("DynamicPartition",
                       f"data.shape must start with partitions.shape, got data.shape = "
                       f"{_dims(data)}, partitions.shape = {_dims(partitions)}")
    rows = _rows(data, rank)
    known = get_static_value(partitions)
    if known is None:
        flat = A.reshape(partitions, [-1])
        return [A.boolean_mask(rows, M.equal(flat, i)) for i in range(num_partitions)]
    flat = np.asarray(known).reshape(-1)
    for i, p in enumerate(flat):
        if not 0 <= p < num_partitions:
            raise _invalid("DynamicPartition", f"partitions[{i}] = {p} is not in [0, "
                                               f"{num_partitions})")
    return [A.gather(rows, np.flatnonzero(flat == i).astype(np.int32))
            for i in range(num_partitions)]


@tf_export("dynamic_stitch")
def dynamic_stitch(indices, data, name=None):
    """merged[indices[m][i]] = data[m][i]: the slices of `data` placed at `indices` (a later
    one wins where indices repeat), zeros where no index points."""
    indices = [convert_to_tensor(i) for i in indices]
    data = [convert_to_tensor(d) for d in data]
    for m, (i, d) in enumerate(zip(indices, data)):
        if d.shape.as_list()[:i.shape.rank] != i.shape.as_list():
            raise _invalid("DynamicStitch", f"data[{m}].shape = {_dims(d)} does not start "
                                            f"with indices[{m}].shape = {_dims(i)}")
    values = A.concat([_rows(d, i.shape.rank) for i, d in zip(indices, data)], 0)
    known = [get_static_value(i) for i in indices]
    if any(k is None for k in known):
        flat = A.concat([A.reshape(i, [-1]) for i in indices], 0)
        size = M.maximum(R.reduce_max(flat) + 1, 0)
        base = A.zeros(A.concat([A.reshape(size, [1]), A.shape(values)[1:]], 0), values.dtype)
        return A.tensor_scatter_nd_update(base, A.expand_dims(flat, 1), values)
    for k in known:
        for i, v in enumerate(np.asarray(k).reshape(-1)):
            if v < 0:
                raise _invalid("DynamicStitch", f"indices[{i}] is out of range")
    flat = np.concatenate([np.asarray(k, np.int64).reshape(-1) for k in known])
    size = int(flat.max()) + 1 if flat.size else 0
    # the winning position for each output row; rows no index names read the zero row
    winner = np.full(size, -1, np.int64)
    np.maximum.at(winner, flat, np.arange(flat.size))   # the last of repeated indices
    winner[winner < 0] = flat.size
    padded = A.concat([values, A.zeros([1] + values.shape.as_list()[1:], values.dtype)], 0)
    out = A.gather(padded, winner.astype(np.int32))
    lost = np.setdiff1d(np.arange(flat.size), winner)
    if lost.size and values.dtype.is_floating:
        # TF's gradient reaches overwritten slices too: a zero-valued term carries it
        dropped = A.gather(values, lost.astype(np.int32))
        dropped = M.where(M.is_finite(dropped), dropped, A.zeros_like(dropped))
        term = A.scatter_nd(flat[lost, None].astype(np.int32), dropped,
                            [size] + values.shape.as_list()[1:])
        out = out + (term - A.stop_gradient(term))
    return out


def _dims(t) -> str:
    return "[" + ",".join(str(d) for d in t.shape.as_list()) + "]"
