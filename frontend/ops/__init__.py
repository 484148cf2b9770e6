"""The TF-named op API, one module per family. Each module lists what it exports in
`EXPORTS = {namespace: [names]}` ("" is the top level, "math" is `flowjit.math`, ...) and
maps every registry op it reaches to a public name in `API_FOR_OP` (the coverage test reads it)."""
from . import (math, reduce, linalg, array, nn, random, state, logging, fused,  # noqa: F401
               strings, segment, counting, image, checks, script, collective)

FAMILIES = (math, reduce, linalg, array, nn, random, state, logging, fused, strings, segment,
            counting, image, checks, script, collective)
