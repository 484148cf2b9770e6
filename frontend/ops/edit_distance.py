"""TF's `tf.edit_distance`: the Levenshtein distance between the sequences of two
SparseTensors (the last dim indexes a sequence, the others name it). A host computation, as
TF's kernel: eagerly in NumPy, in a `tf.function` a `numpy_function` (refused under XLA,
where TF has no kernel either). Not differentiable, as in TF."""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ..composite.sparse_tensor import SparseTensor
from ..eager.tensor import Tensor
from ..export import tf_export
from .program import executing_eagerly
from .script import numpy_function


# TF's kernels name dtypes by their C++ types in this message.
_KERNEL_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def _levenshtein(a, b) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def _sequences(indices, values):
    """{position of the sequence (its index without the last coordinate): values in order}"""
    order = np.lexsort(indices.T[::-1]) if len(indices) else np.arange(0)
    out: dict = {}
    for k in order:
        out.setdefault(tuple(indices[k, :-1]), []).append(values[k])
    return out


def _distances(h_indices, h_values, h_shape, t_indices, t_values, t_shape, normalize):
    shape = np.maximum(h_shape[:-1], t_shape[:-1])
    out = np.zeros(shape, np.float32)
    hyps, truths = _sequences(h_indices, h_values), _sequences(t_indices, t_values)
    for pos in set(hyps) | set(truths):
        hyp, truth = hyps.get(pos, []), truths.get(pos, [])
        dist = np.float32(_levenshtein(hyp, truth))
        if normalize:
            dist = np.float32(np.inf) if not truth else dist / np.float32(len(truth))
        out[pos] = dist
    return out


@tf_export("edit_distance")
def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """float32 distances of shape max(hypothesis.dense_shape, truth.dense_shape)[:-1];
    normalized by the truth's length (inf where the truth is empty and the hypothesis not)."""
    if not isinstance(hypothesis, SparseTensor):
        raise TypeError("Hypothesis must be a SparseTensor.")
    if not isinstance(truth, SparseTensor):
        raise TypeError("Truth must be a SparseTensor.")
    if hypothesis.values.dtype is not truth.values.dtype:
        expected, got = (_KERNEL_TYPE_NAMES.get(t.values.dtype.name, t.values.dtype.name)
                         for t in (hypothesis, truth))
        raise errors.InvalidArgumentError(
            None, "EditDistance", f"cannot compute EditDistance as input #4(zero-based) was "
                                  f"expected to be a {expected} tensor but is a {got} tensor")
    h_rank, t_rank = hypothesis.dense_shape.shape[0], truth.dense_shape.shape[0]
    if h_rank != t_rank:
        raise errors.InvalidArgumentError(
            None, "EditDistance", f"Expected truth and hypothesis to have matching ranks, but "
                                  f"their shapes are: [{t_rank}] and [{h_rank}]")
    parts = [hypothesis.indices, hypothesis.values, hypothesis.dense_shape,
             truth.indices, truth.values, truth.dense_shape]
    if executing_eagerly():
        return Tensor._wrap(_distances(*[p.numpy() for p in parts], normalize), D.float32)
    return numpy_function(lambda *arrays: _distances(*arrays, normalize), parts, D.float32,
                          stateful=False)
