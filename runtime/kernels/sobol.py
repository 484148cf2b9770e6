"""The Sobol points: SciPy's unscrambled generator (the same direction numbers as TF's),
fast-forwarded past the origin and `skip` points. Its values are dyadic fractions, exact in
either float type."""
from __future__ import annotations

import importlib
import warnings

from . import kernel


@kernel("sobol_sample")
def sobol_sample(dim, num_results, skip, dtype):
    qmc = importlib.import_module("scipy.stats.qmc")
    engine = qmc.Sobol(dim, scramble=False, bits=64 if num_results + skip >= 2 ** 30 else 30)
    engine.fast_forward(skip + 1)
    with warnings.catch_warnings():   # SciPy's note that n is no power of 2
        warnings.simplefilter("ignore")
        return engine.random(num_results).astype(dtype.np)
