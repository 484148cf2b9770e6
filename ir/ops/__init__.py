"""Op declarations, one module per family; importing this package fills `registry.OPS`."""
from . import (math, reduce, linalg, array, nn, random, state, logging, fused,  # noqa: F401
               strings, segment, counting, checks, script, collective, signal)
