"""TF's raw ops `tf.ragged_fill_empty_rows` and `tf.ragged_fill_empty_rows_grad` (the top
level exports of RaggedFillEmptyRows and its gradient op), composed of segment sums, a stable
sort and scatters.

A ragged row is given by the row id of each value; every row without a value gets one value,
`default_value`. The output lists the rows in order, a row's values in their input order (TF
sorts unsorted row ids stably); `reverse_index_map[i]` is where input value i went. The output
size is a run-time value, so XLA refuses these as TF's XLA has no kernel for them.
"""
from __future__ import annotations

import collections

import numpy as np

from ...ir import dtypes as D
from ...ir.errors import InvalidArgumentError
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from . import reduce as R
from .array_composites import repeat
from .program import get_static_value
from .segment import unsorted_segment_sum

Filled = collections.namedtuple(
    "RaggedFillEmptyRows",
    ["output_value_rowids", "output_values", "empty_row_indicator", "reverse_index_map"])
FilledGrad = collections.namedtuple("RaggedFillEmptyRowsGrad", ["d_values", "d_default_value"])


def _dims_text(t) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in t.shape.as_list()) + "]"


def _require_rank(t, rank, what, opname):
    """TF's kernel refusal of an argument of another rank (known while tracing)."""
    if t.shape.rank is not None and t.shape.rank != rank:
        kind = "vector" if rank == 1 else "scalar"
        raise InvalidArgumentError(None, opname, f"{what} must be a {kind}, saw: "
                                   f"{_dims_text(t)}")


@tf_export("ragged_fill_empty_rows")
def ragged_fill_empty_rows(value_rowids, values, nrows, default_value, name=None):
    """The ragged rows (row ids `value_rowids` of `values`, `nrows` rows) with every empty
    row given one `default_value`: the new row ids and values, which rows were empty, and
    where each input value went."""
    opname = "RaggedFillEmptyRows"
    rowids = convert_to_tensor(value_rowids, dtype=D.int64)
    values = convert_to_tensor(values)
    nrows = convert_to_tensor(nrows, dtype=D.int64)
    default = convert_to_tensor(default_value, dtype=values.dtype)
    for t, rank, what in ((rowids, 1, "value_rowids"), (values, 1, "values"),
                          (nrows, 0, "nrows"), (default, 0, "default_value")):
        _require_rank(t, rank, what, opname)
    n, m = rowids.shape[0], values.shape[0]
    if n is not None and m is not None and n != m:
        raise InvalidArgumentError(
            None, opname, f"The length of `values` ({m}) must match the first dimension of "
            f"`value_rowids` ({n}).")
    known_ids, known_rows = get_static_value(rowids), get_static_value(nrows)
    if known_ids is not None and known_rows is not None:
        bad = np.flatnonzero((known_ids < 0) | (known_ids >= known_rows))
        if bad.size:
            raise InvalidArgumentError(
                None, opname, f"indices({bad[0]}, 0) is invalid: {known_ids[bad[0]]} >= "
                f"{int(known_rows)}")
    counts = unsorted_segment_sum(A.ones_like(rowids), rowids, nrows)
    empty = M.equal(counts, A.zeros_like(counts))
    out_counts = M.maximum(counts, A.ones_like(counts))
    out_starts = R.cumsum(out_counts, exclusive=True)
    in_starts = R.cumsum(counts, exclusive=True)
    order = A.argsort(rowids, stable=True)
    rows_in_order = A.gather(rowids, order)
    n_values = A.size(rowids, out_type=D.int64)
    slots = (A.gather(out_starts, rows_in_order) + A.range(n_values)
             - A.gather(in_starts, rows_in_order))
    # scatters as segment sums over distinct targets: their size may be a run-time value
    reverse = unsorted_segment_sum(slots, order, n_values)
    # each output slot reads its input value, or the default appended after the values
    # (gathers, so strings fill too and the default's gradient is its slots' sum)
    source = unsorted_segment_sum(A.range(n_values) - n_values, reverse,
                                  R.reduce_sum(out_counts)) + n_values
    out_values = A.gather(A.concat([values, A.reshape(default, [1])], 0), source)
    out_rowids = repeat(A.range(nrows, dtype=D.int64), M.cast(out_counts, D.int32))
    return Filled(out_rowids, out_values, empty, reverse)


@tf_export("ragged_fill_empty_rows_grad")
def ragged_fill_empty_rows_grad(reverse_index_map, grad_values, name=None):
    """The gradient of ragged_fill_empty_rows: each input value's gradient (read through
    `reverse_index_map`) and the default value's (the sum over the filled slots)."""
    opname = "RaggedFillEmptyRowsGrad"
    reverse = convert_to_tensor(reverse_index_map, dtype=D.int64)
    grads = convert_to_tensor(grad_values)
    _require_rank(reverse, 1, "reverse_index_map", opname)
    _require_rank(grads, 1, "grad_values", opname)
    known, size = get_static_value(reverse), grads.shape[0]
    if known is not None and size is not None:
        bad = known[(known < 0) | (known >= size)]
        if bad.size:
            raise InvalidArgumentError(
                None, opname, f"Elements in reverse index must be in [0, {size}) but got "
                f"{bad[0]}")
    visited = unsorted_segment_sum(A.ones_like(reverse), reverse, A.size(grads, D.int64))
    filled = M.equal(visited, A.zeros_like(visited))
    d_default = R.reduce_sum(M.where(filled, grads, A.zeros_like(grads)))
    return FilledGrad(A.gather(grads, reverse), d_default)
