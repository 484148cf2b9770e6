"""`tf.nn.ctc_loss` on dense labels, composed as TF's `ctc_loss_dense`: the CTC forward
algorithm in log space over the label sequence with a blank between and around the labels,
one `foldl` step per time frame (frames past a sequence's `logit_length` leave its state
alone). The gradient is the tape's, through the loop: softmax minus the state posteriors, as
TF's hand-written one.

Log zero is a large finite negative number rather than -inf, so a sum of impossible paths
stays finite and its gradient 0 instead of NaN; a sequence no alignment can produce (more
labels than frames allow) costs inf.

Also the label helpers TF composes alongside: `collapse_repeated` (its result's width is the
longest collapsed row: eagerly and on the graph executor) and `ctc_unique_labels` (a
row-wise unique of static size, so XLA compiles it too)."""
from __future__ import annotations

from ...ir import dtypes as D
from ..control.functional_ops import foldl
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from . import reduce as R
from .array_composites import sequence_mask
from .linalg import matmul
from .nn import _dims, log_softmax

_LOG_ZERO = -1e30


def _logsumexp3(a, b, c):
    top = M.maximum(M.maximum(a, b), c)
    return top + M.log(M.exp(a - top) + M.exp(b - top) + M.exp(c - top))


def _shift(alpha, by, fill):
    """alpha [batch, states] moved `by` states to the right, `fill` entering on the left."""
    return A.concat([fill[:, :by], alpha[:, :-by]], 1)


def _extended(labels, blank, states):
    """The label sequences with a blank before, between and after the labels: [batch, 2L+1],
    and where a state may be reached by skipping the blank before it (a label that differs
    from the label two states back)."""
    blanks = A.fill(A.shape(labels), blank)
    ext = A.reshape(A.stack([blanks, labels], 2), [-1, states - 1])
    ext = A.concat([ext, blanks[:, :1]], 1)
    odd = M.equal(M.floormod(A.range(states), 2), 1)
    differs = M.not_equal(ext, A.concat([ext[:, :2], ext[:, :-2]], 1))
    skip = M.logical_and(differs, M.greater_equal(A.range(states), 2))
    return ext, M.logical_and(skip, odd)


@tf_export("nn.ctc_loss")
def ctc_loss(labels, logits, label_length, logit_length, logits_time_major=True,  # noqa: ARG
             unique=None, blank_index=None, name=None):
    """The negative log probability of each dense label sequence under the logits' CTC
    alignments: labels [batch, max_label_length] (entries past `label_length` ignored),
    logits [time, batch, classes] (or [batch, time, classes]); `unique` only speeds TF up."""
    if logit_length is None:
        raise ValueError("Attempt to convert a value (None) with an unsupported type "
                         "(<class 'NoneType'>) to a Tensor.")
    logits = convert_to_tensor(logits)
    labels = M.cast(convert_to_tensor(labels), D.int32)
    if not logits_time_major:
        logits = A.transpose(logits, [1, 0, 2])
    classes = _dims(logits)[2]
    blank = 0 if blank_index is None else int(blank_index)
    if blank < 0:
        blank += classes
    log_probs = log_softmax(logits, axis=-1)
    states = 2 * _dims(labels)[1] + 1
    ext, skip = _extended(labels, blank, states)
    pick = A.one_hot(ext, classes, dtype=log_probs.dtype)              # [batch, S, classes]
    time = A.shape(log_probs)[0]
    frames = M.less(A.expand_dims(A.range(time), 1),
                    A.expand_dims(M.cast(convert_to_tensor(logit_length), D.int32), 0))
    zero = A.fill(A.shape(ext), M.cast(_LOG_ZERO, log_probs.dtype))
    start = A.concat([A.zeros_like(zero[:, :1]), zero[:, 1:]], 1)

    def step(alpha, frame):
        lp, live = frame
        emit = A.squeeze(matmul(pick, A.expand_dims(lp, 2)), 2)
        prev2 = M.where(skip, _shift(alpha, 2, zero), zero)
        new = _logsumexp3(alpha, _shift(alpha, 1, zero), prev2) + emit
        return M.where(A.expand_dims(live, 1), new, alpha)

    alpha = foldl(step, (log_probs, frames), initializer=start)
    ends = 2 * M.cast(convert_to_tensor(label_length), D.int32)
    index = A.expand_dims(A.range(states), 0)
    final = M.logical_or(M.equal(index, A.expand_dims(ends, 1)),
                         M.equal(index, A.expand_dims(ends - 1, 1)))
    log_likelihood = R.reduce_logsumexp(M.where(final, alpha, zero), axis=1)
    impossible = M.less(log_likelihood, M.cast(_LOG_ZERO / 2, log_likelihood.dtype))
    return M.where(impossible, A.fill(A.shape(log_likelihood), float("inf")), -log_likelihood)


@tf_export("nn.collapse_repeated")
def collapse_repeated(labels, seq_length, name=None):
    """Each row of `labels` [batch, max_len] with runs of one label merged, within its
    `seq_length`: the collapsed rows left-aligned and zero-padded to the longest, and their
    lengths (of `seq_length`'s dtype)."""
    labels = convert_to_tensor(labels)
    seq_length = convert_to_tensor(seq_length)
    first = A.ones_like(labels[:, :1], dtype=D.bool_)
    changed = A.concat([first, M.not_equal(labels[:, 1:], labels[:, :-1])], 1)
    keep = M.logical_and(changed, sequence_mask(seq_length, maxlen=A.shape(labels)[1]))
    new_length = R.reduce_sum(M.cast(keep, D.int32), 1)
    # collapsed[b, k] = the label kept k-th in row b (zero past the row's kept labels)
    slot = R.cumsum(M.cast(keep, D.int32), 1, exclusive=True)
    width = A.shape(labels)[1]
    lands = M.logical_and(M.equal(A.expand_dims(slot, 2), A.range(width)),
                          A.expand_dims(keep, 2))                              # [b, i, k]
    collapsed = R.reduce_sum(M.where(lands, A.expand_dims(labels, 2), A.zeros_like(
        A.expand_dims(labels, 2))), 1)
    used = M.less(A.range(width), R.reduce_max(A.concat([new_length, [0]], 0)))
    return (A.boolean_mask(collapsed, used, axis=1),
            M.cast(new_length, seq_length.dtype))


@tf_export("nn.ctc_unique_labels")
def ctc_unique_labels(labels, name=None):
    """Per row of `labels` [batch, max_len]: its distinct labels in order of first
    appearance, zero-padded to max_len (int64), and each label's index among them (int32)."""
    labels = convert_to_tensor(labels)
    width = A.shape(labels)[1]
    same = M.equal(A.expand_dims(labels, 2), A.expand_dims(labels, 1))      # [b, i, j]
    ahead = M.less(A.expand_dims(A.range(width), 1), A.range(width))           # i < j
    is_first = M.logical_not(R.reduce_any(M.logical_and(same, A.transpose(ahead)), 2))
    rank = R.cumsum(M.cast(is_first, D.int32), 1, exclusive=True)              # [b, i]
    first_of = R.argmax(M.cast(same, D.int32), 2, output_type=D.int32)        # [b, i]
    index = A.gather(rank, first_of, batch_dims=1)
    # unique[b, k] = the first occurrence whose rank is k
    at_rank = M.logical_and(M.equal(A.expand_dims(rank, 2), A.range(width)),
                            A.expand_dims(is_first, 2))                        # [b, i, k]
    picked = M.cast(at_rank, D.int64) * A.expand_dims(M.cast(labels, D.int64), 2)
    return R.reduce_sum(picked, 1), index
