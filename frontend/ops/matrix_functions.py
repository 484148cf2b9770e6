"""tf.linalg's primary matrix functions: sqrtm (also tf.matrix_square_root) and logm."""
from __future__ import annotations

from ..eager.dispatch import apply, convert_to_tensor
from ..export import runs, tf_export


@tf_export("linalg.sqrtm", "matrix_square_root")
@runs("matrix_square_root")
def sqrtm(input, name=None):  # noqa: A002  (TF's name)
    """The principal square root of each innermost square matrix (NaN for a real matrix
    whose principal root is not real)."""
    return apply("matrix_square_root", (convert_to_tensor(input),))


@tf_export("linalg.logm")
@runs("matrix_logarithm")
def logm(input, name=None):  # noqa: A002  (TF's name)
    """The principal logarithm of each innermost square complex matrix."""
    return apply("matrix_logarithm", (convert_to_tensor(input),))
