"""What one iterator's pipeline shares: its random seeds and its shuffle epochs.

An iterator's whole order follows from its context: shuffles and samplers draw from
generators seeded by (their op seed, or the iterator's own random seed; the iterator's
index; how many times that shuffle has started), so a checkpoint that stores the context and
the number of elements consumed restores the exact position by replaying the pipeline.
"""
from __future__ import annotations

import numpy as np

INFINITE = -1
UNKNOWN = -2


class IteratorContext:
    # whether parallel transformations keep the input order when their own `deterministic`
    # argument is None: the pipeline's `tf.data.Options().deterministic` (True unless set)
    deterministic = True

    def __init__(self, seed=None, index=0):
        self.seed = int(np.random.SeedSequence().entropy) if seed is None else int(seed)
        self.index = int(index)
        self._starts: dict = {}

    def rng(self, owner, op_seed, reshuffle=True):
        """A generator for the next start of `owner` (a dataset) in this iterator."""
        start = self._starts[id(owner)] = self._starts.get(id(owner), -1) + 1
        base = [self.seed if op_seed is None else int(op_seed) & 0xFFFFFFFFFFFFFFFF]
        if reshuffle:
            base += [self.index, start]
        return np.random.default_rng(base)

    def state(self) -> dict:
        return {"seed": self.seed, "index": self.index}
