"""The TF-named op API, one module per family. The public namespaces import the functions
(`api/math.py` is `flowjit.math`, the top-level names are in `__init__.py`); an op's public
function is found there by the op's name (`flowjit.extend.api_for_op`), and a family lists in
`API_RENAMED` only its ops whose public name differs (None: an op only passes create)."""
from . import (math, reduce, linalg, array, nn, random, state, logging, fused,  # noqa: F401
               strings, segment, counting, image, checks, script, collective)
# Composites only (no ops of their own): imported for their `tf_export` marks.
from . import program, safe_math  # noqa: F401

FAMILIES = (math, reduce, linalg, array, nn, random, state, logging, fused, strings, segment,
            counting, image, checks, script, collective)
