"""LinearOperator cases, importable with TensorFlow (tools/record_tf_linear_operators.py
records TF's answers) and with flowjit (tests/ops/test_linear_operator.py checks them): the
framework is passed in as `tf`. Each case builds an operator from fixed float64 values and
asks it everything the tests compare."""
from __future__ import annotations

import numpy as np

FULL = [[[4.0, 1.0, -2.0], [0.5, 3.0, 1.0], [1.0, -1.0, 5.0]],
        [[2.0, 0.0, 1.0], [1.0, 3.0, 0.0], [0.0, -1.0, 4.0]]]
DIAG = [[2.0, -0.5, 4.0], [1.0, 3.0, -2.0]]
TRIL = [[3.0, 9.0, 9.0], [1.0, -2.0, 9.0], [0.5, 1.0, 4.0]]


def build(tf) -> dict:
    """name -> operator, of shape [..., 3, 3] (block ones: 1 + 2 rows) but the 2-D and
    3-D circulants' [6, 6]."""
    L = tf.linalg
    c = lambda v: tf.constant(v, tf.float64)  # noqa: E731
    return {
        "full": L.LinearOperatorFullMatrix(c(FULL)),
        "diag": L.LinearOperatorDiag(c(DIAG)),
        "identity": L.LinearOperatorIdentity(3, batch_shape=[2], dtype=tf.float64),
        "scaled": L.LinearOperatorScaledIdentity(3, c([2.0, -0.5])),
        "tril": L.LinearOperatorLowerTriangular(c(TRIL)),
        "composition": L.LinearOperatorComposition([
            L.LinearOperatorFullMatrix(c(FULL)), L.LinearOperatorDiag(c(DIAG)),
            L.LinearOperatorLowerTriangular(c(TRIL))]),
        "block_diag": L.LinearOperatorBlockDiag([
            L.LinearOperatorScaledIdentity(1, c([3.0, 0.5])),
            L.LinearOperatorFullMatrix(c([[2.0, 1.0], [-1.0, 3.0]]))]),
        "adjoint": L.LinearOperatorAdjoint(L.LinearOperatorLowerTriangular(c(TRIL))),
        "inversion": L.LinearOperatorInversion(L.LinearOperatorFullMatrix(c(FULL))),
        "householder": L.LinearOperatorHouseholder(c([[1.0, 2.0, 2.0], [0.0, -3.0, 1.0]])),
        "permutation": L.LinearOperatorPermutation(tf.constant([[1, 2, 0], [2, 1, 0]]),
                                                   dtype=tf.float64),
        "toeplitz": L.LinearOperatorToeplitz(c([[4.0, 1.0, -2.0], [3.0, 0.5, 1.0]]),
                                             c([[9.0, 0.5, 3.0], [9.0, 2.0, 0.0]])),
        "tridiag": L.LinearOperatorTridiag(c([[[1.0, 2.0, 9.0], [4.0, 5.0, 6.0],
                                               [9.0, 7.0, -1.0]],
                                              [[0.5, -1.0, 9.0], DIAG[0], [9.0, 2.0, 3.0]]])),
        "tridiag_sequence": L.LinearOperatorTridiag(
            [c([[1.0, 2.0, 9.0], [0.0, 3.0, 9.0]]), c(DIAG), c([[9.0, 7.0, -1.0]] * 2)],
            diagonals_format="sequence"),
        "tridiag_matrix": L.LinearOperatorTridiag(c(FULL), diagonals_format="matrix"),
        "kronecker": L.LinearOperatorKronecker([
            L.LinearOperatorScaledIdentity(1, c([2.0, -0.5])),
            L.LinearOperatorFullMatrix(c(FULL[0]))]),
        "low_rank_update": L.LinearOperatorLowRankUpdate(
            L.LinearOperatorDiag(c(DIAG)), c([[1.0, 0.5], [0.0, 2.0], [1.0, -1.0]]),
            diag_update=c([2.0, 0.5])),
        "low_rank_update_v": L.LinearOperatorLowRankUpdate(
            L.LinearOperatorFullMatrix(c(FULL)), c([[1.0], [0.0], [2.0]]),
            v=c([[0.5], [1.0], [-1.0]])),
        "block_lower_triangular": L.LinearOperatorBlockLowerTriangular([
            [L.LinearOperatorScaledIdentity(1, c([3.0, 0.5]))],
            [L.LinearOperatorFullMatrix(c([[1.0], [-2.0]])),
             L.LinearOperatorFullMatrix(c([[2.0, 1.0], [-1.0, 3.0]]))]]),
        # circulant spectra are Hermitian (s[k] = conj(s[-k])), so the real operator is exact
        "circulant": L.LinearOperatorCirculant(c([[4.0, 1.0, 1.0], [2.0, -0.5, -0.5]]),
                                               input_output_dtype=tf.float64),
        "circulant_2d": L.LinearOperatorCirculant2D(
            c([[3.0, 1.0], [2.0, -0.5], [2.0, -0.5]]), input_output_dtype=tf.float64),
        "circulant_3d": L.LinearOperatorCirculant3D(
            c([[[[4.0, 1.0, 1.0]], [[2.0, -0.5, -0.5]]]]), input_output_dtype=tf.float64),
    }


V = np.array([[1.0, -2.0, 0.5], [0.0, 3.0, 1.0]])


def ask(tf, op) -> dict:
    """name -> tensor of everything compared."""
    n = op.shape[-1]
    x = tf.constant(np.arange(4 * n, dtype=np.float64).reshape(2, n, 2) / 4 - 1)
    v = tf.constant(V if n == 3 else np.cos(np.arange(2 * n, dtype=np.float64)).reshape(2, n))
    return {
        "to_dense": op.to_dense(),
        "matmul": op.matmul(x),
        "matmul_adjoint": op.matmul(x, adjoint=True),
        "matmul_adjoint_arg": op.matmul(tf.linalg.matrix_transpose(x), adjoint_arg=True),
        "matvec": op.matvec(v),
        "solve": op.solve(x),
        "solve_adjoint": op.solve(x, adjoint=True),
        "solvevec": op.solvevec(v),
        "determinant": op.determinant(),
        "log_abs_determinant": op.log_abs_determinant(),
        "inverse": op.inverse().to_dense(),
        "adjoint": op.adjoint().to_dense(),
        "diag_part": op.diag_part(),
        "trace": op.trace(),
    }
