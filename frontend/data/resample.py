"""`Dataset.rejection_resample` / `tf.data.experimental.rejection_resample`: elements kept
with the probability that moves their classes' distribution to the target one."""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ..export import tf_export
from ..function.specs import TensorSpec
from . import structure
from .context import UNKNOWN
from .dataset import TRANSFORMATIONS
from .functions import TracedFunction
from .transforms import Unary, as_int


class RejectionResample(Unary):
    """(class, element) pairs. An element of class k is kept with probability
    r_k / max(r), r = target / initial; without `initial_dist` the initial distribution is
    the running count of the classes seen so far."""

    def __init__(self, input_dataset, class_func, target_dist, initial_dist, seed):
        super().__init__(input_dataset)
        self._class = TracedFunction(class_func, self.element_spec, "class_func")
        spec = self._class.output_spec
        if not (isinstance(spec, TensorSpec) and spec.dtype in (D.int32, D.int64) and
                spec.shape.rank == 0):
            raise ValueError(f"Invalid `class_func`: it must return a scalar tf.int32 or "
                             f"tf.int64 tensor, not {spec}.")
        self._target = self._distribution(target_dist)
        self._initial = None if initial_dist is None else self._distribution(initial_dist)
        self._seed = None if seed is None else as_int(seed, "seed")
        self.element_spec = (spec, self.element_spec)

    @staticmethod
    def _distribution(dist):
        return np.asarray(structure.host(dist, dtype=D.float64).numpy(), np.float64)

    def _components(self, ctx):
        rng = ctx.rng(self, self._seed)
        counts = np.zeros(len(self._target))
        for c in self._input._components(ctx):
            (label,) = self._class(c)
            k = int(label)
            if self._initial is None:
                counts[k] += 1
                initial = counts / counts.sum()
            else:
                initial = self._initial
            ratio = np.divide(self._target, initial, out=np.zeros_like(initial),
                              where=initial > 0)
            if rng.random() * ratio.max() < ratio[k]:
                yield (np.asarray(label),) + c

    def _cardinality(self):
        return UNKNOWN


@tf_export("data.experimental.rejection_resample")
def rejection_resample(class_func, target_dist, initial_dist=None, seed=None):
    return lambda dataset: RejectionResample(dataset, class_func, target_dist, initial_dist,
                                             seed)


TRANSFORMATIONS["RejectionResample"] = RejectionResample
