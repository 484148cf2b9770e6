"""TF-oracle cases for tf.linalg (format: tests/oracle/spec.py): diagonals with NaN/inf off
them, offsets at the edges, non-square and batched matrices, singular and permuted matrices,
and errors."""
from oracle.spec import T, case

M34 = T([[1, "nan", 2, "inf"], ["-0.0", 3, "-inf", 4], [5, 6, 7, "nan"]])
B234 = T([[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]],
          [[-1, 0.5, 2, 0], [3, -4, 1, 2], [0, 1, -2, 3]]])
SPD = T([[[4, 1, 0.5], [1, 3, 0.25], [0.5, 0.25, 2]], [[2, -1, 0], [-1, 2, -1], [0, -1, 2]]],
        "float64")
LOWER = T([[2, "nan", "nan"], [1, 3, "nan"], [-1, 0.5, 4]])
RHS32 = T([[1, 2], [3, 4], [5, 6]])

CASES = [
    case("linalg.diag_part", M34),
    case("linalg.diag_part", M34, k=1),
    case("linalg.diag_part", M34, k=-2),
    case("linalg.diag_part", B234, k=3, grad=(0,)),
    case("linalg.diag_part", B234, grad=(0,)),
    case("linalg.diag_part", T([1.0, 2.0])),
    case("linalg.diag_part", M34, k=4),
    case("linalg.diag", T([["nan", 2, "-0.0"], [1, "inf", 3]]), grad=(0,)),
    case("linalg.diag", T([1, 2]), k=1, grad=(0,)),
    case("linalg.diag", T([1, 2]), k=-1, num_cols=3),
    case("linalg.diag", T([[1, 2]]), num_rows=3, padding_value=7),
    case("linalg.set_diag", B234, T([[9, 8, 7], [6, 5, 4]]), grad=(0, 1)),
    case("linalg.set_diag", M34, T([9, 8, 7]), k=1),
    case("linalg.set_diag", M34, T([9, 8]), k=-1),
    case("linalg.set_diag", M34, T([1, 2])),
    case("linalg.trace", B234, grad=(0,)),
    case("linalg.trace", M34),
    case("linalg.matrix_transpose", B234, grad=(0,)),
    case("linalg.adjoint", B234),
    case("linalg.matvec", B234, T([[1, 2, 3, 4], [0, -1, "inf", 1]])),
    case("linalg.matvec", B234, T([[1, 2, 3, 4], [0, -1, 0.5, 1]]), grad=(0, 1)),
    case("linalg.matvec", B234, T([[1, 2, 3], [0, -1, 1]]), transpose_a=True, grad=(0, 1)),
    case("linalg.cross", T([[1, 2, 3], [0, "nan", 1]]), T([[4, 5, 6], [1, 0, 0]])),
    case("linalg.cross", T([[1, 2, 3], [0, -1, 1]]), T([[4, 5, 6], [1, 0.5, 0]]), grad=(0, 1)),
    case("linalg.cross", T([1, 2]), T([3, 4])),
    case("linalg.logdet", SPD, grad=(0,)),
    case("linalg.logdet", T([[1, 2], [2, 1]])),
    case("linalg.slogdet", SPD, grad=(0,)),
    case("linalg.slogdet", T([[[0, 1], [1, 0]], [[0, 0], [0, 0]], [[1, 2], [2, 4]]])),
    case("linalg.slogdet", T([[1, 2, 3], [4, 5, 6]])),
    case("linalg.normalize", B234, axis=-1, grad=(0,)),
    case("linalg.normalize", B234, grad=(0,)),
    case("linalg.l2_normalize", B234, axis=1, grad=(0,)),
    case("linalg.triangular_solve", LOWER, RHS32, grad=(0, 1)),
    case("linalg.triangular_solve", LOWER, RHS32, adjoint=True, grad=(0, 1)),
    case("linalg.triangular_solve", T([[2, 5], [1, 4]]), T([[1], [1]]), lower=False),
    case("linalg.triangular_solve", T([[2, 0], [1, 0]]), T([[1], [1]]),
         modes=("eager", "graph")),
    case("linalg.triangular_solve", T([[1, 2, 3], [4, 5, 6]]), T([[1], [1]])),
    case("linalg.triangular_solve", T([[1, 0], [1, 1]]), T([[1], [1], [1]])),
    case("linalg.cholesky_solve", T([[[2, 0, 0], [1, 3, 0], [-1, 0.5, 4]]], "float64"),
         T([[[1, 2], [3, 4], [5, 6]]], "float64"), grad=(0, 1)),
    case("linalg.lstsq", T([[1, 2], [3, 4], [5, 7]], "float64"), T([[1], [2], [4]], "float64"),
         grad=(0, 1)),
    case("linalg.lstsq", T([[1, 2, 3], [3, 4, 6]], "float64"), T([[1], [2]], "float64"),
         l2_regularizer=0.5, grad=(0, 1)),
    case("linalg.tridiagonal_matmul", T([[1, 2, 3], [4, 5, 6], [7, 8, 9]]),
         T([[1], [10], [100]]), grad=(0, 1)),
]
