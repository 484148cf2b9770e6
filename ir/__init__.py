"""The IR layer: dtypes, shapes, errors, the op registry (plain Python), and the `df` dialect.
It imports no other flowjit layer."""
from . import dtypes, errors, shapes, registry  # noqa: F401
from . import ops  # noqa: F401  (declares every op)
