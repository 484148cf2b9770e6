"""`tf.data.experimental` functions that guides use (the constants are exported where they are
defined, in dataset.py)."""
from __future__ import annotations

from ...ir import dtypes as D
from ...ir import errors
from ..export import tf_export
from .context import INFINITE
from .dataset import Dataset
from .transforms import Unary, as_int


@tf_export("data.experimental.cardinality")
def cardinality(dataset):
    return dataset.cardinality()


class _AssertCardinality(Unary):
    def __init__(self, input_dataset, expected):
        super().__init__(input_dataset)
        self._expected = expected

    def _cardinality(self):
        return self._expected

    def _components(self, ctx):
        n = 0
        for c in self._input._components(ctx):
            n += 1
            if self._expected >= 0 and n > self._expected:
                raise errors.FailedPreconditionError(
                    None, None, f"Input dataset was expected to contain {self._expected} "
                                f"elements but contained at least {n} elements.")
            yield c
        if self._expected == INFINITE or (self._expected >= 0 and n < self._expected):
            expected = "an infinite number of" if self._expected == INFINITE \
                else str(self._expected)
            raise errors.FailedPreconditionError(
                None, None, f"Input dataset was expected to contain {expected} elements but "
                            f"contained only {n} elements.")


@tf_export("data.experimental.assert_cardinality")
def assert_cardinality(expected_cardinality):
    expected = as_int(expected_cardinality, "expected_cardinality")
    return lambda dataset: _AssertCardinality(dataset, expected)


@tf_export("data.experimental.sample_from_datasets")
def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    return Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


@tf_export("data.experimental.choose_from_datasets")
def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    return Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


@tf_export("data.experimental.Counter")
def Counter(start=0, step=1, dtype=D.int64):
    return Dataset.counter(start, step, dtype)


@tf_export("data.experimental.get_next_as_optional")
def get_next_as_optional(iterator):
    return iterator.get_next_as_optional()

