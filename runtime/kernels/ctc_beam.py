"""NumPy kernel of the CTC prefix beam search, step for step as TF's CTCBeamSearchDecoder
(its default scorer, no label selection): the beam is a trie of label prefixes, each with
log probabilities of ending in a blank or in its label, in the logits' float type."""
from __future__ import annotations

import numpy as np

from ...ir.errors import FailedPreconditionError, InvalidArgumentError
from . import kernel

_OP = "CTCBeamSearchDecoder"


class _Prefix:
    """A node of the prefix trie: its label, parent and children, and its probabilities at
    the step before (old) and the current one (new): (blank, label, total)."""
    __slots__ = ("label", "parent", "children", "old", "new")

    def __init__(self, label, parent, zero):
        self.label, self.parent, self.children = label, parent, {}
        self.old = self.new = (zero, zero, zero)

    def active(self, zero):
        return self.new[2] != zero

    def labels(self, merge_repeated):
        out, node = [], self
        while node.parent is not None:
            if not (merge_repeated and out and out[-1] == node.label):
                out.append(node.label)
            node = node.parent
        return out[::-1]


def _log_sum_exp(a, b, zero):
    if a == zero:
        return b
    if b == zero:
        return a
    hi, lo = (a, b) if a > b else (b, a)
    # TF's kernel takes the correction in float32 (log1pf, expf) whatever the logits' type.
    return hi + np.log1p(np.exp(np.float32(lo - hi)))


class _Beam:
    """The beam: at most `width` prefixes, kept as a list of best-first entries."""

    def __init__(self, width):
        self.width, self.entries = width, []

    def bottom(self):
        return min(self.entries, key=lambda p: p.new[2])

    def push(self, prefix):
        if len(self.entries) < self.width:
            self.entries.append(prefix)
        else:           # full: a prefix enters only if better than the worst, which leaves
            worst = self.bottom()
            if prefix.new[2] > worst.new[2]:
                self.entries[self.entries.index(worst)] = prefix

    def best_first(self):
        return sorted(self.entries, key=lambda p: -p.new[2])


def _step(beam, logits, blank, zero):
    shifted = logits - logits.max()
    norm = np.log(np.sum(np.exp(shifted)))
    logits = shifted
    branches = beam.best_first()
    beam.entries = []
    for b in branches:
        b.old = b.new
    for b in branches:
        blank_p, label_p, _ = b.new
        if b.parent is not None:
            if b.parent.active(zero):
                prev = b.parent.old[0] if b.label == b.parent.label else b.parent.old[2]
                label_p = _log_sum_exp(label_p, prev, zero)
            label_p = label_p + logits[b.label] - norm
        blank_p = b.old[2] + logits[blank] - norm
        b.new = (blank_p, label_p, _log_sum_exp(blank_p, label_p, zero))
        beam.push(b)

    def candidate(total):
        return total > zero and (len(beam.entries) < beam.width or
                                 total > beam.bottom().new[2])

    for b in branches:
        if not candidate(b.old[2]):
            continue
        for label in range(len(logits) - 1):
            child = b.children.get(label)
            if child is None:
                child = b.children[label] = _Prefix(label, b, zero)
            if child.active(zero):
                continue
            prev = b.old[0] if label == b.label else b.old[2]
            label_p = logits[label] - norm + prev
            child.new = (zero, label_p, label_p)
            if candidate(label_p):
                if len(beam.entries) == beam.width:
                    worst = beam.bottom()
                    worst.new = (zero, zero, zero)
                beam.push(child)
            else:
                child.old = child.new = (zero, zero, zero)


def _checks(inputs, lengths, beam_width, top_paths):
    if inputs.ndim != 3:
        raise InvalidArgumentError(None, _OP, "inputs is not a 3-Tensor")
    if lengths.ndim != 1:
        raise InvalidArgumentError(None, _OP, "sequence_length is not a vector")
    time, batch, _ = inputs.shape
    if len(lengths) != batch:
        raise FailedPreconditionError(
            None, _OP, f"len(sequence_length) != batch_size.  len(sequence_length):  "
                       f"{len(lengths)} batch_size: {batch}")
    for b, n in enumerate(lengths):
        if n > time:
            raise FailedPreconditionError(None, _OP, f"sequence_length({b}) <= {time}")
    if top_paths > beam_width:
        raise InvalidArgumentError(None, _OP, "requested more paths than the beam width.")


@kernel("ctc_beam_search_decoder")
def ctc_beam_search_decoder(inputs, sequence_length, beam_width, top_paths, merge_repeated):
    _checks(inputs, sequence_length, beam_width, top_paths)
    dtype = inputs.dtype.type
    zero = dtype(-np.inf)
    batch, blank = inputs.shape[1], inputs.shape[2] - 1
    paths = [[] for _ in range(top_paths)]
    log_probs = np.zeros((batch, top_paths), inputs.dtype)
    for b in range(batch):
        root = _Prefix(-1, None, zero)
        root.new = (dtype(0), zero, dtype(0))
        beam = _Beam(beam_width)
        beam.push(root)
        for t in range(int(sequence_length[b])):
            _step(beam, inputs[t, b], blank, zero)
        if top_paths > len(beam.entries):
            raise InvalidArgumentError(None, _OP, "Less leaves in the beam search than "
                                                  "requested.")
        for p, prefix in enumerate(beam.best_first()[:top_paths]):
            paths[p].append(prefix.labels(merge_repeated))
            log_probs[b, p] = prefix.new[2]
    out = []
    for decoded in paths:
        indices = np.array([[b, i] for b, seq in enumerate(decoded) for i in range(len(seq))],
                           np.int64).reshape(-1, 2)
        values = np.array([v for seq in decoded for v in seq], np.int64)
        width = max((len(seq) for seq in decoded), default=0)
        out += [indices, values, np.array([batch, width], np.int64)]
    return (*out, log_probs)
