"""sobol_sample: points of the Sobol low-discrepancy sequence (Joe and Kuo's direction
numbers, as TF's), after the origin and `skip` more. dim, num_results and skip are attributes:
the output's shape depends on them, so they must be known while tracing."""
from __future__ import annotations

from .. import dtypes as D
from ..registry import TT, InferenceError, op

MAX_DIM = 21200   # the dimensions Joe and Kuo's table covers


@op("sobol_sample", (), attrs=(("dim", "int"), ("num_results", "int"), ("skip", "int", 0),
                               ("dtype", "dtype", D.float32)), differentiable=False)
def _sobol_sample(types, attrs):
    dim, n, skip = attrs["dim"], attrs["num_results"], attrs["skip"]
    for ok, message in ((dim >= 1, "dim must be at least one"),
                        (dim <= MAX_DIM, f"dim must be at most {MAX_DIM}"),
                        (n >= 1, "num_results must be at least one"),
                        (skip >= 0, "skip must be non-negative")):
        if not ok:
            raise InferenceError(message)
    if attrs["dtype"] not in (D.float32, D.float64):
        raise InferenceError(f"dtype must be float32 or float64, got {attrs['dtype'].name}",
                             dtype_error=True)
    return TT(attrs["dtype"], (n, dim))
