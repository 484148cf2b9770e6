"""The matrix square root's gradient (TF's rule): R = sqrtm(A) gives dA = R dR + dR R, so
the gradient G_A for the upstream G solves the adjoint Sylvester equation
R^T G_A + G_A R^T = G, here as one linear system in the row-major vectorization:
(R^T kron I + I kron R) vec(G_A) = vec(G)."""
from __future__ import annotations

from ..ops import array as A
from ..ops import linalg as L
from ..ops import math as M
from ..ops.matrix import matrix_transpose
from ._util import gradient


def _size(x):
    """The matrices' size m: a Python int when known while tracing, else a scalar tensor."""
    m = x.shape.as_list()[-1]
    return A.shape(x)[-1] if m is None else m


def _kron(a, b):
    """The Kronecker products of two batches of m x m matrices: [..., m*m, m*m]."""
    m = _size(a)
    batch = A.shape(a)[:-2]
    product = M.multiply(a[..., :, None, :, None], b[..., None, :, None, :])
    return A.reshape(product, A.concat([batch, [m * m, m * m]], 0))


@gradient("matrix_square_root")
def _matrix_square_root_grad(op, g):
    root = op.outputs[0]
    m = _size(root)
    eye = A.eye(m, dtype=root.dtype)
    system = M.add(_kron(matrix_transpose(root), M.multiply(A.ones_like(root), eye)),
                   _kron(M.multiply(A.ones_like(root), eye), root))
    shape = A.shape(g)
    flat = A.reshape(g, A.concat([shape[:-2], [m * m, 1]], 0))
    return [A.reshape(L.solve(system, flat), shape)]
