"""TF's `tf.linalg`: matrix products and decompositions.

The functions live with their op families in frontend/ops/; this file is the namespace.
"""
from flowjit.frontend.ops.math import global_norm
from flowjit.frontend.ops.reduce import norm
from flowjit.frontend.ops.linalg import (
    band_part, cholesky, det, einsum, inv, matmul, slogdet, solve, tensordot,
    triangular_solve)
from flowjit.frontend.ops.array import eye

from flowjit.frontend.export import install as _install
_install(globals(), "linalg")
