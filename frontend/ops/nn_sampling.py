"""TF's candidate samplers (`tf.random.*_candidate_sampler`, also in `tf.nn`), composed of
flowjit's random draws so they run eagerly, in the executor and under XLA; the accidental
hits and the sampled losses built on them (nce_loss, sampled_softmax_loss).

A sampler draws `num_sampled` classes from [0, range_max) by its distribution (uniform;
log-uniform, Zipfian: P(k) = log((k + 2) / (k + 1)) / log(range_max + 1); a fixed unigram
table; the learned unigram table as it starts, uniform) and reports each true and sampled
class's expected count: P(k) * num_sampled, or with `unique` (drawing until num_sampled
distinct classes are found, in num_tries draws) 1 - (1 - P(k)) ** num_tries, TF's
formula, which TF also keeps at P(k) * num_sampled when no draw was rejected. Unique draws
are a while loop, one stateless draw per try from a seed drawn once per call with the
caller's `seed`, so the loop's draws run alike in every mode.
The classes drawn differ from TF's (TF draws from Philox streams; README "Differences from
TF"); the expected counts of the true classes are TF's.
"""
from __future__ import annotations

import collections
import math

import numpy as np

from ...ir import dtypes as D
from ...ir.errors import InvalidArgumentError
from ..control.control_flow import while_loop
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from . import random as RND
from . import reduce as R
from .linalg import matmul
from .nn import (embedding_lookup, sigmoid_cross_entropy_with_logits,
                 softmax_cross_entropy_with_logits)
from .program import get_static_value

Sampled = collections.namedtuple(
    "CandidateSampler", ["sampled_candidates", "true_expected_count", "sampled_expected_count"])


# --- the distributions: probability of each class, and a class from a uniform draw u in [0, 1)
class _Uniform:
    def __init__(self, range_max):
        self.range_max = range_max

    def probability(self, k):
        return A.fill(A.shape(k), convert_to_tensor(1.0 / self.range_max, dtype=D.float64))

    def draw(self, u):
        return M.cast(M.floor(u * self.range_max), D.int64)


class _LogUniform(_Uniform):
    def probability(self, k):
        k = M.cast(k, D.float64)
        return (M.log(k + 2.0) - M.log(k + 1.0)) / math.log1p(self.range_max)

    def draw(self, u):
        # TF's inversion: exp(u * log(range_max + 1)) - 1, truncated, modulo range_max
        value = M.cast(M.exp(u * math.log1p(self.range_max)), D.int64) - 1
        return M.floormod(value, convert_to_tensor(self.range_max, dtype=D.int64))


class _Table(_Uniform):
    """A fixed weight per class (TF's unigram table)."""

    def __init__(self, weights):
        super().__init__(len(weights))
        w = np.asarray(weights, np.float64)
        self.p = convert_to_tensor(w / w.sum())
        self.cdf = convert_to_tensor(np.cumsum(w) / w.sum())

    def probability(self, k):
        return A.gather(self.p, k)

    def draw(self, u):
        below = M.less_equal(self.cdf, A.expand_dims(u, -1))
        count = R.reduce_sum(M.cast(below, D.int64), -1)
        return M.minimum(count, convert_to_tensor(self.range_max - 1, dtype=D.int64))


# --- the sampling ---------------------------------------------------------------------------
def _checked_true_classes(true_classes, num_true, range_max, opname):
    """TF's checks of the true classes (their values where known while tracing)."""
    t = convert_to_tensor(true_classes)
    if t.dtype != D.int64:
        raise InvalidArgumentError(
            None, opname, f"cannot compute {opname} as input #0(zero-based) was expected to be "
            f"a int64 tensor but is a {t.dtype.name} tensor")
    if t.shape.rank is not None and t.shape.rank != 2:
        raise InvalidArgumentError(None, opname, "true_classes must be a matrix")
    if t.shape.rank == 2 and t.shape[1] is not None and t.shape[1] != num_true:
        raise InvalidArgumentError(
            None, opname, f"true_classes must have num_true columns, expected: {t.shape[1]} "
            f"was: {num_true}")   # TF's text names them the other way round
    known = None if range_max is None else get_static_value(t)
    if known is not None:
        outside = np.asarray(known)[(np.asarray(known) < 0) | (np.asarray(known) >= range_max)]
        if outside.size:
            raise InvalidArgumentError(
                None, opname, f"`true_candidate` out of range [0, {range_max}), received "
                f"{outside[0]}")
    return t


def _at_least_one(value, attr, opname):
    if int(value) < 1:
        raise InvalidArgumentError(
            None, opname, f"Value for attr '{attr}' of {int(value)} must be at least minimum 1")
    return int(value)


def _draw_unique(dist, num_sampled, seed):
    """num_sampled distinct classes, one stateless draw per try; and the number of tries."""
    base = RND.uniform([2], maxval=2 ** 31 - 1, dtype=D.int64, seed=seed)
    slots = A.range(num_sampled, dtype=D.int64)

    def body(found, seen, count, tries):
        u = RND.stateless_uniform([], A.stack([base[0], base[1] + tries]), dtype=D.float64)
        k = dist.draw(u)
        new = M.logical_not(A.gather(seen, k))
        found = M.where(M.logical_and(new, M.equal(slots, count)), k, found)
        hit = M.equal(A.range(dist.range_max, dtype=D.int64), k)
        seen = M.logical_or(seen, M.logical_and(hit, new))
        return found, seen, count + M.cast(new, D.int64), tries + 1

    found, _, _, tries = while_loop(
        lambda found, seen, count, tries: M.less(count, num_sampled), body,
        [A.zeros([num_sampled], D.int64), A.zeros([dist.range_max], D.bool_),
         convert_to_tensor(0, dtype=D.int64), convert_to_tensor(0, dtype=D.int64)])
    return found, tries


def _expected(p, num_sampled, tries):
    """TF's expected count of a class of probability p (float64), as float32."""
    if tries is None:
        return M.cast(p * num_sampled, D.float32)
    rejected = 1.0 - M.exp(M.cast(tries, D.float64) * M.log1p(-p))
    return M.cast(M.where(M.equal(tries, num_sampled), p * num_sampled, rejected), D.float32)


def _sample(dist, opname, true_classes, num_true, num_sampled, unique, seed):
    num_true = _at_least_one(num_true, "num_true", opname)
    num_sampled = _at_least_one(num_sampled, "num_sampled", opname)
    t = _checked_true_classes(true_classes, num_true, dist.range_max, opname)
    if unique and num_sampled > dist.range_max:
        raise InvalidArgumentError(None, opname, "Sampler's range is too small.")
    if unique:
        sampled, tries = _draw_unique(dist, num_sampled, seed)
    else:
        u = RND.uniform([num_sampled], dtype=D.float64, seed=seed)
        sampled, tries = dist.draw(u), None
    return Sampled(A.stop_gradient(sampled),
                   A.stop_gradient(_expected(dist.probability(t), num_sampled, tries)),
                   A.stop_gradient(_expected(dist.probability(sampled), num_sampled, tries)))


def _range_max(range_max, opname):
    return _at_least_one(range_max, "range_max", opname)


@tf_export("random.uniform_candidate_sampler", "nn.uniform_candidate_sampler")
def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                              seed=None, name=None):
    """`num_sampled` classes drawn uniformly from [0, range_max) (distinct with `unique`), and
    the expected counts of the true classes [batch, num_true] and of the sampled ones."""
    opname = "UniformCandidateSampler"
    return _sample(_Uniform(_range_max(range_max, opname)), opname, true_classes, num_true,
                   num_sampled, unique, seed)


@tf_export("random.log_uniform_candidate_sampler", "nn.log_uniform_candidate_sampler")
def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                  seed=None, name=None):
    """As uniform_candidate_sampler, drawing class k with probability
    log((k + 2) / (k + 1)) / log(range_max + 1) (classes sorted by falling frequency)."""
    opname = "LogUniformCandidateSampler"
    return _sample(_LogUniform(_range_max(range_max, opname)), opname, true_classes,
                   num_true, num_sampled, unique, seed)


@tf_export("random.learned_unigram_candidate_sampler", "nn.learned_unigram_candidate_sampler")
def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                      seed=None, name=None):
    """As uniform_candidate_sampler: TF's sampler starts from a count of 1 per class and
    learns the true classes after each call; each flowjit call starts from those counts
    (README "Differences from TF"), so it draws uniformly."""
    opname = "LearnedUnigramCandidateSampler"
    return _sample(_Uniform(_range_max(range_max, opname)), opname, true_classes, num_true,
                   num_sampled, unique, seed)


def _unigram_weights(range_max, unigrams, distortion, num_reserved_ids, num_shards, shard):
    """TF's FixedUnigramSampler table: this shard's reserved ids (weight 0) then this shard's
    unigrams ** distortion; as TF, the unigrams' ids start after the reserved weights kept."""
    weights = [0.0 for i in range(num_reserved_ids) if i % num_shards == shard]
    first = len(weights)
    weights += [float(w) ** distortion for i, w in enumerate(unigrams, first)
                if i % num_shards == shard]
    if len(weights) != range_max:
        raise InvalidArgumentError(
            None, "FixedUnigramCandidateSampler",
            f"range is {range_max} must be equal to weights size  {len(weights)}")
    return weights


@tf_export("random.fixed_unigram_candidate_sampler", "nn.fixed_unigram_candidate_sampler")
def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                    vocab_file="", distortion=1.0, num_reserved_ids=0,
                                    num_shards=1, shard=0, unigrams=(), seed=None, name=None):
    """As uniform_candidate_sampler, drawing class k in proportion to unigrams[k] **
    distortion (the first num_reserved_ids classes never; with num_shards, this shard's
    classes of the table)."""
    opname = "FixedUnigramCandidateSampler"
    if vocab_file:
        raise NotImplementedError("fixed_unigram_candidate_sampler: flowjit takes the counts "
                                  "as `unigrams`, not from a vocab_file")
    weights = _unigram_weights(_range_max(range_max, opname), list(unigrams), distortion,
                               num_reserved_ids, num_shards, shard)
    return _sample(_Table(weights), opname, true_classes, num_true, num_sampled, unique, seed)


@tf_export("random.all_candidate_sampler", "nn.all_candidate_sampler")
def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """Every class of [0, num_sampled) once, each with expected count 1 (for testing)."""
    opname = "AllCandidateSampler"
    num_true = _at_least_one(num_true, "num_true", opname)
    num_sampled = _at_least_one(num_sampled, "num_sampled", opname)
    t = _checked_true_classes(true_classes, num_true, num_sampled, opname)
    return Sampled(A.range(num_sampled, dtype=D.int64), A.ones(A.shape(t), D.float32),
                   A.ones([num_sampled], D.float32))


# --- accidental hits and the sampled losses ---------------------------------------------------
_FLOAT_MAX = float(np.finfo(np.float32).max)


def _hits(true_classes, sampled):
    """[batch, num_true, num_sampled]: where a true class is sampled, at the sampled class's
    last position (TF's kernel maps each sampled class to its last position)."""
    same = M.equal(A.expand_dims(true_classes, 2), sampled)
    later = M.less(A.expand_dims(A.range(A.shape(sampled)[0]), 1), A.range(A.shape(sampled)[0]))
    repeated = R.reduce_any(M.logical_and(M.equal(A.expand_dims(sampled, 1), sampled), later), 1)
    return M.logical_and(same, M.logical_not(repeated))


@tf_export("nn.compute_accidental_hits")
def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """Each true class (row by row) that was also sampled: its row (int32), the sampled
    class's position (int64) and the weight -FLT_MAX (float32) that removes its logit."""
    t = _checked_true_classes(true_classes, _at_least_one(num_true, "num_true",
                                                          "ComputeAccidentalHits"),
                              None, "ComputeAccidentalHits")
    sampled = convert_to_tensor(sampled_candidates)
    hits = _hits(t, sampled)
    found = M.where(R.reduce_any(hits, 2))                          # [n, 2]: (row, column)
    position = R.argmax(M.cast(A.gather_nd(hits, found), D.int32), 1, output_type=D.int64)
    return (M.cast(found[:, 0], D.int32), position,
            A.fill(A.shape(position), convert_to_tensor(-_FLOAT_MAX, dtype=D.float32)))


def _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                            num_true, sampled_values, remove_accidental_hits, seed):
    """TF's sampled logits: each row's true classes then the sampled ones, less the log of
    their expected counts; and the targets (1/num_true for true classes, 0 for sampled)."""
    shards = list(weights) if isinstance(weights, (list, tuple)) else [weights]
    inputs = convert_to_tensor(inputs)
    labels = M.cast(convert_to_tensor(labels), D.int64)
    labels_flat = A.reshape(labels, [-1])
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(labels, num_true, num_sampled, True,
                                                       num_classes, seed=seed)
    sampled, true_count, sampled_count = (A.stop_gradient(convert_to_tensor(v))
                                          for v in sampled_values)
    sampled = M.cast(sampled, D.int64)
    n_true = A.shape(labels_flat)[0]
    all_w = M.cast(embedding_lookup(shards, A.concat([labels_flat, sampled], 0)), inputs.dtype)
    all_b = M.cast(embedding_lookup(biases, A.concat([labels_flat, sampled], 0)), inputs.dtype)
    true_w, sampled_w = all_w[:n_true], all_w[n_true:]
    true_b, sampled_b = all_b[:n_true], all_b[n_true:]
    dim = A.shape(true_w)[1]
    rows = A.expand_dims(inputs, 1) * A.reshape(true_w, [-1, num_true, dim])
    true_logits = R.reduce_sum(rows, 2) + A.reshape(true_b, [-1, num_true])
    sampled_logits = matmul(inputs, sampled_w, transpose_b=True) + sampled_b
    if remove_accidental_hits:
        hit = R.reduce_any(_hits(labels, sampled), 1)
        removed = M.cast(convert_to_tensor(-_FLOAT_MAX, dtype=D.float32), sampled_logits.dtype)
        sampled_logits = sampled_logits + M.where(hit, A.fill(A.shape(hit), removed),
                                                  A.zeros_like(sampled_logits))
    true_logits = true_logits - M.log(true_count)   # of the logits' dtype, as TF requires
    sampled_logits = sampled_logits - M.log(sampled_count)
    logits = A.concat([true_logits, sampled_logits], 1)
    targets = A.concat([A.ones_like(true_logits) / num_true, A.zeros_like(sampled_logits)], 1)
    return logits, targets


@tf_export("nn.nce_loss")
def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
             sampled_values=None, remove_accidental_hits=False, name="nce_loss"):
    """The noise-contrastive estimation loss per example: sigmoid cross-entropy of the true
    classes (target 1/num_true) and `num_sampled` sampled classes (target 0), their logits
    corrected by the log of their expected counts."""
    logits, targets = _compute_sampled_logits(weights, biases, labels, inputs, num_sampled,
                                              num_classes, num_true, sampled_values,
                                              remove_accidental_hits, None)
    return R.reduce_sum(sigmoid_cross_entropy_with_logits(labels=targets, logits=logits), 1)


@tf_export("nn.sampled_softmax_loss")
def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                         sampled_values=None, remove_accidental_hits=True, seed=None,
                         name="sampled_softmax_loss"):
    """The softmax cross-entropy per example over its true classes and `num_sampled` sampled
    ones (a sampled class equal to a true one removed, by default)."""
    logits, targets = _compute_sampled_logits(weights, biases, labels, inputs, num_sampled,
                                              num_classes, num_true, sampled_values,
                                              remove_accidental_hits, seed)
    return softmax_cross_entropy_with_logits(labels=A.stop_gradient(targets), logits=logits)
