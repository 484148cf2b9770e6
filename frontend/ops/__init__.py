"""The TF-named op API, one module per family. The public namespaces import the functions
(`api/math.py` is `flowjit.math`, the top-level names are in `__init__.py`); each family maps
every registry op it reaches to a public name in `API_FOR_OP` (the coverage test resolves it)."""
from . import (math, reduce, linalg, array, nn, random, state, logging, fused,  # noqa: F401
               strings, segment, counting, image, checks, script, collective)

FAMILIES = (math, reduce, linalg, array, nn, random, state, logging, fused, strings, segment,
            counting, image, checks, script, collective)
