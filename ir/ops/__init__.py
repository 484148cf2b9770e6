"""Op declarations, one module per family; importing this package fills `registry.OPS`."""
from . import math, reduce, linalg, array, nn, random, state, logging, fused, checks, script  # noqa: F401
