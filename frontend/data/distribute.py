"""Datasets distributed over a MirroredStrategy's replicas: iterating yields `PerReplica`
values (plain values with one replica, as TF), ready for `strategy.run`."""
from __future__ import annotations

import numpy as np

from .. import nest
from ..distribute.per_replica import PerReplica
from . import composites, structure


def _split(spec, component, n) -> list:
    """A batch component cut into `n` consecutive runs of rows (a SparseTensor or RaggedTensor
    batch into batches of its rows)."""
    rule = composites.rule(spec)
    if not rule.composite:
        return np.array_split(component, n)
    rows, row_spec = rule.rows(spec, component), rule.unbatched_spec(spec)
    # a replica left without rows gets an empty batch
    return [rule.batch(row_spec, [rows[i] for i in run]) if len(run) else
            rule.placeholder(spec) for run in np.array_split(np.arange(len(rows)), n)]


class DistributedDataset:
    """`experimental_distribute_dataset` (`split`: each element's batch axis split over the
    replicas, earlier replicas taking the remainder, as TF's rebatching) or
    `distribute_datasets_from_function` (each replica takes the next element)."""

    def __init__(self, dataset, replicas, split):
        self._dataset, self._replicas, self._split = dataset, replicas, split
        self.element_spec = dataset.element_spec

    @classmethod
    def split_batches(cls, dataset, replicas):
        return cls(dataset, replicas, True)

    @classmethod
    def round_robin(cls, dataset, replicas):
        return cls(dataset, replicas, False)

    def __iter__(self):
        return DistributedIterator(self)


class DistributedIterator:
    def __init__(self, distributed):
        self._d = distributed
        self._it = iter(distributed._dataset)

    def __iter__(self):
        return self

    def __next__(self):
        n, spec = self._d._replicas, self._d._dataset.element_spec
        if self._d._split:
            element = next(self._it)
            if n == 1:
                return element
            pieces = [_split(s, c, n) for s, c in zip(structure.flat_specs(spec),
                                                      structure.specs_of(element)[1])]
            per = [structure.to_tensors(spec, [p[r] for p in pieces]) for r in range(n)]
        else:
            per = [next(self._it) for _ in range(n)]
            if n == 1:
                return per[0]
        flat = [structure.leaves(e) for e in per]
        return nest.pack_sequence_as(spec, [PerReplica(vals) for vals in zip(*flat)])

    def get_next(self):
        return next(self)
