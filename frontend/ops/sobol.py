"""tf.math.sobol_sample."""
from __future__ import annotations

import operator

from ...ir import dtypes as D
from ..eager.dispatch import apply
from ..export import tf_export
from .program import get_static_value


def _static(v, what):
    value = get_static_value(v) if hasattr(v, "dtype") else v
    if value is None:
        raise ValueError(f"sobol_sample: flowjit needs {what} known while tracing (it fixes "
                         f"the output's shape), got {v!r}")
    return operator.index(value.item() if hasattr(value, "item") else value)


@tf_export("math.sobol_sample")
def sobol_sample(dim, num_results, skip=0, dtype=D.float32, name=None):
    """`num_results` points of the `dim`-dimensional Sobol sequence in [0, 1), after the
    origin and the first `skip` points."""
    return apply("sobol_sample", (), {"dim": _static(dim, "dim"),
                                      "num_results": _static(num_results, "num_results"),
                                      "skip": _static(skip, "skip"),
                                      "dtype": D.as_dtype(dtype)})
