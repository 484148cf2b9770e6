"""`tf.nn`'s functions over SparseTensors, composed as TF composes them: the sparse embedding
lookups (a lookup per id, combined per row by segment sums) and the greedy CTC decoder.

A row's result index is its segment id, so `embedding_lookup_sparse`'s result has one row
per row up to the last row holding an id (TF's segment ops), a size known only from the
values: it runs eagerly and on the graph executor. `safe_embedding_lookup_sparse` prunes
and fills rows first (`tf.sparse.retain`, `tf.sparse.fill_empty_rows`), likewise. The
greedy decoder's SparseTensor holds as many labels as it decodes, likewise (TF has no XLA
kernel for it either).
"""
from __future__ import annotations

from ...ir import dtypes as D
from ...ir import errors
from ..eager.shape_args import traced_value
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from ..ops import array as A
from ..ops import math as M
from ..ops import reduce as R
from ..ops import safe_math as SM
from ..ops import segment as S
from ..ops.nn import embedding_lookup
from . import sparse_ops as SO
from .sparse_tensor import SparseTensor

_COMBINERS = ("mean", "sqrtn", "sum")
# Unweighted rows combine as TF's sparse segment reductions (a mean divides by the count).
_UNWEIGHTED = {"sum": SO.segment_sum, "mean": SO.segment_mean, "sqrtn": SO.segment_sqrt_n}


def _combine_weighted(embeddings, weights, segment_ids, combiner):
    """TF's weighted combination: half floats computed in float32, the weights broadcast
    over the embedding dims, each row's sum divided (no NaN) by its weight total."""
    original = embeddings.dtype
    if original in (D.float16, D.bfloat16):
        embeddings = M.cast(embeddings, D.float32)
    weights = M.cast(weights, embeddings.dtype)
    weights = A.reshape(weights, [-1] + [1] * (embeddings.shape.rank - 1))
    total = S.segment_sum(embeddings * weights, segment_ids)
    if combiner == "mean":
        total = SM.divide_no_nan(total, S.segment_sum(weights, segment_ids))
    elif combiner == "sqrtn":
        total = SM.divide_no_nan(total, M.sqrt(S.segment_sum(M.square(weights), segment_ids)))
    return M.cast(total, original) if total.dtype != original else total


@tf_export("nn.embedding_lookup_sparse")
def embedding_lookup_sparse(params, sp_ids, sp_weights, combiner=None, max_norm=None,
                            name=None, allow_fast_lookup=False):
    """Per row of the 2-D SparseTensor `sp_ids`: the embeddings of its ids (rows of `params`)
    combined by `combiner` ("mean", the default; "sqrtn"; "sum"), weighted by `sp_weights`'
    values when given."""
    combiner = "mean" if combiner is None else combiner
    if combiner not in _COMBINERS:
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError(f"sp_ids must be SparseTensor, got {type(sp_ids)}")
    if sp_weights is not None and not isinstance(sp_weights, SparseTensor):
        raise TypeError(f"sp_weights must be either None or SparseTensor,got {type(sp_weights)}")
    segment_ids = sp_ids.indices[:, 0]
    # One looked-up row per id: TF looks up the unique ids and gathers them back, which
    # gives the same rows, norms clipped alike, and the same gradient.
    embeddings = embedding_lookup(params, sp_ids.values, max_norm=max_norm)
    if sp_weights is not None:
        return _combine_weighted(embeddings, sp_weights.values, segment_ids, combiner)
    positions = A.range(A.shape(segment_ids)[0])
    return _UNWEIGHTED[combiner](embeddings, positions, segment_ids)


def _pruned(sp_ids, sp_weights, keep):
    return (SO.retain(sp_ids, keep),
            None if sp_weights is None else SO.retain(sp_weights, keep))


@tf_export("nn.safe_embedding_lookup_sparse")
def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None,
                                 combiner="mean", default_id=None, max_norm=None, name=None,
                                 allow_fast_lookup=False):
    """embedding_lookup_sparse over the last dim of `sparse_ids` (any rank >= 2), after
    pruning negative ids (and, unless combiner is "sum", non-positive weights); a row left
    empty gets the embedding of `default_id`, or zeros without one."""
    if embedding_weights is None:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    shards = embedding_weights if isinstance(embedding_weights, list) else [embedding_weights]
    if not shards:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    dtype = None if sparse_weights is None else sparse_weights.dtype
    shards = [convert_to_tensor(w, dtype=dtype) for w in shards]
    if not sparse_ids.shape.is_fully_defined():
        raise ValueError(f"safe_embedding_lookup_sparse: flowjit needs the ids' dense shape "
                         f"known while tracing, got {sparse_ids.shape}")
    outer = sparse_ids.shape.as_list()
    rows = 1
    for d in outer[:-1]:
        rows *= d
    ids = SO.reshape(sparse_ids, [rows, outer[-1]])
    weights = None if sparse_weights is None else ids.with_values(sparse_weights.values)
    ids, weights = _pruned(ids, weights, M.greater_equal(ids.values, A.zeros([], ids.dtype)))
    if combiner != "sum" and weights is not None:
        ids, weights = _pruned(ids, weights,
                               M.greater(weights.values, A.zeros([], weights.dtype)))
    ids, empty = SO.fill_empty_rows(ids, default_id or 0)
    if weights is not None:
        weights, _ = SO.fill_empty_rows(weights, 1.0)
    result = embedding_lookup_sparse(shards, ids, weights, combiner=combiner,
                                     max_norm=max_norm)
    if default_id is None:
        empty = A.reshape(empty, [-1] + [1] * (result.shape.rank - 1))
        result = M.where(A.broadcast_to(empty, A.shape(result)), A.zeros_like(result), result)
    return A.reshape(result, outer[:-1] + result.shape.as_list()[1:])


def _greedy_checks(x, lengths, blank_index):
    """TF's kernel checks, where the shapes and lengths are known while tracing; the blank
    index made non-negative."""
    op = "CTCGreedyDecoder"
    if lengths.dtype != D.int32:
        raise errors.InvalidArgumentError(
            None, op, f"cannot compute {op} as input #1(zero-based) was expected to be a int32 "
            f"tensor but is a {lengths.dtype.name} tensor")
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims is not None and len(dims) != 3:
        raise errors.InvalidArgumentError(None, op, "inputs is not a 3-Tensor")
    if dims is None or None in dims:
        raise ValueError(f"ctc_greedy_decoder: flowjit needs the inputs' shape known while "
                         f"tracing, got {x.shape}")
    time, batch, classes = dims
    if time * batch * classes == 0:
        raise errors.InvalidArgumentError(None, op, "inputs must not be empty")
    if not -classes <= blank_index < classes:
        raise errors.InvalidArgumentError(
            None, op, f"blank_index expected to be between {-classes} and {classes - 1} but "
            f"was {blank_index}")
    known = traced_value(lengths)
    if isinstance(known, tuple):
        if len(known) != batch:
            raise errors.FailedPreconditionError(
                None, op, f"len(sequence_length) != batch_size.  len(sequence_length):  "
                f"{len(known)} batch_size: {batch}")
        for b, n in enumerate(known):
            if n is not None and n > time:
                raise errors.FailedPreconditionError(
                    None, op, f"sequence_length({b}) <= {time}")
    return blank_index % classes


@tf_export("nn.ctc_greedy_decoder")
def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """Per sequence of the logits `inputs` [max_time, batch, classes]: the best class of each
    frame within its `sequence_length`, repeats merged (when `merge_repeated`) and blanks
    (class `blank_index`, by default the last) dropped, as a one-element list of a
    SparseTensor [batch, longest decoding]; and minus the sum of the frames' best logits
    [batch, 1]. Not differentiable (TF's kernel has no gradient)."""
    x = A.stop_gradient(convert_to_tensor(inputs))
    lengths = convert_to_tensor(sequence_length, dtype_hint=D.int32)
    blank = _greedy_checks(x, lengths, -1 if blank_index is None else int(blank_index))
    time = x.shape[0]
    best = A.transpose(R.argmax(x, 2))                                       # [batch, time]
    inside = M.less(A.range(time), A.expand_dims(lengths, 1))
    top = A.transpose(R.reduce_max(x, 2))
    score = R.reduce_sum(M.where(inside, -top, A.zeros_like(top)), 1, keepdims=True)
    keep = M.logical_and(inside, M.not_equal(best, convert_to_tensor(blank, dtype=D.int64)))
    if merge_repeated and time > 1:
        repeat = M.equal(best[:, 1:], best[:, :-1])
        keep = M.logical_and(keep, A.concat([A.ones_like(repeat[:, :1]),
                                             M.logical_not(repeat)], 1))
    at = M.where(keep)                                                     # [n, 2] (b, t)
    position = R.cumsum(M.cast(keep, D.int64), 1, exclusive=True)
    counts = R.reduce_sum(M.cast(keep, D.int64), 1)
    width = R.reduce_max(A.concat([counts, A.zeros([1], D.int64)], 0))
    indices = A.stack([at[:, 0], A.gather_nd(position, at)], 1)
    decoded = SparseTensor(indices, A.gather_nd(best, at),
                           A.stack([convert_to_tensor(x.shape[1], dtype=D.int64), width]))
    return [decoded], score
