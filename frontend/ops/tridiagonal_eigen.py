"""tf.linalg.eigh_tridiagonal: the eigenvalues (and eigenvectors) of a real symmetric
tridiagonal matrix given by its diagonal `alpha` [n] and off-diagonal `beta` [n - 1]. TF
bisects on Sturm sequences; flowjit builds the dense matrix and takes its symmetric
eigendecomposition (the same spectrum within rounding; each eigenvector's sign may differ, as
between any two solvers). Complex (Hermitian) inputs are not supported: flowjit's
eigendecomposition is real."""
from __future__ import annotations

from ...ir import dtypes as D
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from .decomp import eigh, eigvalsh
from .matrix import diag

_SELECT = ("a", "i", "v")


@tf_export("linalg.eigh_tridiagonal")
def eigh_tridiagonal(alpha, beta, eigvals_only=True, select="a", select_range=None,
                     tol=None, name=None):
    """Ascending eigenvalues of the tridiagonal matrix (all, those with index in
    select_range [lo, hi] for select="i", or those in the interval (lo, hi] for select="v");
    with eigvals_only=False also the eigenvectors, as columns."""
    if select not in _SELECT:
        raise ValueError(f"'select must have a value in {{'a', 'i', 'v'}}.")
    alpha, beta = convert_to_tensor(alpha), convert_to_tensor(beta)
    if alpha.dtype in D.COMPLEX or beta.dtype in D.COMPLEX:
        raise NotImplementedError("eigh_tridiagonal: flowjit takes real (symmetric) "
                                  "tridiagonal matrices only")
    beta = M.cast(beta, alpha.dtype)
    matrix = M.add(diag(alpha), M.add(diag(beta, k=1), diag(beta, k=-1)))
    if eigvals_only:
        values, vectors = eigvalsh(matrix), None
    else:
        values, vectors = eigh(matrix)
    if select == "i":
        lo, hi = (int(v) for v in select_range)
        values = values[lo:hi + 1]
        vectors = None if vectors is None else vectors[:, lo:hi + 1]
    elif select == "v":
        lo, hi = (M.cast(v, alpha.dtype) for v in select_range)
        inside = M.logical_and(M.greater(values, lo), M.less_equal(values, hi))
        values = A.boolean_mask(values, inside)
        vectors = None if vectors is None else A.boolean_mask(vectors, inside, axis=1)
    return values if eigvals_only else (values, vectors)
