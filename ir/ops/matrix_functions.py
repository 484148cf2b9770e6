"""Primary matrix functions: matrix_square_root (TF's MatrixSquareRoot: the principal square
root, real for real input, NaN where it is not real) and matrix_logarithm (TF's
MatrixLogarithm: the principal logarithm, complex input only). Each innermost square
matrix of a batch."""
from __future__ import annotations

from .. import dtypes as D
from ..infer import check_dtype
from ..registry import TT, InferenceError, op

SQRT_DTYPES = (D.float32, D.float64, D.complex64, D.complex128)


def _square(t: TT, allowed) -> TT:
    check_dtype(t, allowed)
    if t.shape is not None:
        if len(t.shape) < 2:
            raise InferenceError(f"Input tensor 0 must have rank >= 2, got {len(t.shape)}")
        n, m = t.shape[-2:]
        if n is not None and m is not None and n != m:
            raise InferenceError("Input matrix must be square.")
    return t


@op("matrix_square_root", ("input",))
def _matrix_square_root(types, attrs):
    return _square(types[0], SQRT_DTYPES)


# TF defines no gradient of the logarithm
@op("matrix_logarithm", ("input",), differentiable=False)
def _matrix_logarithm(types, attrs):
    return _square(types[0], D.COMPLEX)
