"""TF-oracle cases for the matrix decompositions and what TF composes from them (format:
tests/oracle/spec.py). Outputs whose signs are a convention of the algorithm (singular and
eigen vectors) are left to tests/ops/test_decompositions.py, which compares invariants; here:
singular values, eigenvalues, QR (Householder in both LAPACK and Eigen: the same signs), LU
without pivot ties, pseudo-inverses, ranks and errors."""
from oracle.spec import T, case

EAGER_GRAPH = ("eager", "graph")

SQ = T([[4, 1, 2], [1, 3, 0.5], [2, 0.5, 5]])
NONSYM = T([[2, 7, -1], [1, 3, 9], [0.5, -2, 4]], "float64")  # only the lower part is read
WIDE = T([[1, 2, 3, 4], [0, -1, 2, 0.5], [3, 0, 1, -2]], "float64")
TALL = T([[[1, 2], [3, 4], [5, 7]], [[0, 1], [-1, 0], [2, 2]]])
RANK1 = T([[1, 2, 3], [2, 4, 6], [-1, -2, -3]], "float64")
ZEROS = T([[0, 0], [0, 0], [0, 0]])
PIVOTED = T([[[1, 2, 3], [4, 5, 6], [7, 8, 10]], [[0, 2, 1], [3, 1, 0], [1, 0, 4]]], "float64")

CASES = [
    case("linalg.svd", TALL, compute_uv=False, grad=(0,)),
    case("linalg.svd", WIDE, compute_uv=False, grad=(0,)),
    case("linalg.svd", RANK1, compute_uv=False),
    case("linalg.svd", ZEROS, compute_uv=False),
    case("linalg.svd", T([1.0, 2.0])),
    case("linalg.svd", T([[1, 2]], "int32")),
    # a matrix holding NaN or inf: every output NaN (LAPACK raises or loops there); under XLA
    # TF's values are XLA's own (the fuzzer's XLA_NONFINITE_UNCHECKED)
    case("linalg.svd", T([[[1, "nan"], [2, 3]], [["inf", 1], [1, 3]]], "float64"),
         modes=EAGER_GRAPH),
    case("linalg.svd", T([[[1, "nan"], [2, 3]], [[3, 0], [0, -2]]]), compute_uv=False,
         modes=EAGER_GRAPH),
    case("linalg.eig", T([[1, "nan"], [2, 3]], "float64"), modes=EAGER_GRAPH),
    case("linalg.eigvalsh", NONSYM, grad=(0,)),
    case("linalg.eigvalsh", T([[[2, 0], [1, 3]], [[1, 5], [5, 1]]]), grad=(0,)),
    case("linalg.eigvalsh", T([[1, 2, 3], [4, 5, 6]])),
    case("linalg.eigh", T([[1, 2, 3], [4, 5, 6]])),
    case("linalg.qr", SQ, grad=(0,), tol=(1e-4, 1e-5)),
    case("linalg.qr", TALL, grad=(0,), tol=(1e-4, 1e-5)),
    case("linalg.qr", WIDE, grad=(0,)),
    case("linalg.qr", TALL, full_matrices=True, tol=(1e-4, 1e-5)),
    case("linalg.qr", T([1, 2], "int32")),
    case("linalg.lu", PIVOTED),
    case("linalg.lu", T([[2, 1], [4, 3]]), output_idx_type="int64"),
    case("linalg.lu", T([[1, 2, 3], [4, 5, 6]])),
    case("linalg.lu_reconstruct", T([[4, 3], [0.5, -0.5]]), T([1, 0], "int32"), grad=(0,)),
    case("linalg.lu_solve", T([[4, 3], [0.5, -0.5]]), T([1, 0], "int32"),
         T([[1, 2], [3, "inf"]]), modes=("eager", "graph")),  # XLA's triangular solve: NaN
    case("linalg.lu_solve", T([[4, 3], [0.5, -0.5]]), T([1, 0], "int32"),
         T([[[1, 2], [3, 4]], [[0, 1], [-1, 0]]]), grad=(0, 2)),
    case("linalg.lu_matrix_inverse", T([[[4, 3], [0.5, -0.5]], [[2, 1], [0.25, 1]]]),
         T([[1, 0], [0, 1]], "int32"), grad=(0,)),
    case("linalg.pinv", WIDE, grad=(0,), tol=(1e-6, 1e-8)),
    case("linalg.pinv", RANK1, tol=(1e-6, 1e-8)),
    case("linalg.pinv", TALL, rcond=0.5, tol=(1e-4, 1e-5)),
    case("linalg.pinv", ZEROS),
    case("linalg.matrix_rank", RANK1),
    case("linalg.matrix_rank", TALL),
    case("linalg.matrix_rank", ZEROS),
    case("linalg.matrix_rank", WIDE, tol=4.0),
]

# tf.random's samplers draw from Philox streams in TF and Threefry in flowjit, so only their
# errors are compared here; tests/ops/test_random_samplers.py checks their distributions.
CASES += [
    case("random.stateless_categorical", T([0.0, 1.0]), 4, T([1, 2], "int32")),
    case("random.stateless_gamma", [3], T([1, 2], "int32"), T([1.0, 2.0])),
    case("random.stateless_poisson", [3], T([1, 2], "int32"), T([1.0, 2.0])),
]
CASES += [
    case("random.create_rng_state", 1234, "philox"),
    case("random.create_rng_state", -5, "philox"),
    case("random.create_rng_state", 2 ** 64 + 3, "threefry"),
    case("random.create_rng_state", 0, 2),
]
TRI = T([[2, 1, -1, 9], [4, 3, 5, 2], [9, 0.5, 1, -2]], "float64")   # 9: ignored padding
CASES += [
    case("linalg.tridiagonal_solve", TRI, T([[1, 2], [3, 4], [0, -1], [2, 2]], "float64"),
         grad=(0, 1)),
    case("linalg.tridiagonal_solve", TRI, T([1, 2, 3, 4], "float64")),
    case("linalg.tridiagonal_solve", T([[[1, 0], [3, 4], [0, 2]], [[0.5, 0], [1, 1], [0, 1]]]),
         T([[[1, 2]], [[3, 4]]]), transpose_rhs=True, grad=(0, 1)),
    case("linalg.tridiagonal_solve", T([[4, 1, 0], [1, 5, 2], [0, 1, 6]]), T([[1], [2], [3]]),
         diagonals_format="matrix"),
    case("linalg.tridiagonal_solve", TRI, T([[1], [2], [3]], "float64")),
    case("linalg.banded_triangular_solve", T([[2, 3, 4, 5], [1, -1, 0.5, 9]]),
         T([[1], [2], [3], [4]]), grad=(0, 1)),
    case("linalg.banded_triangular_solve", T([[9, 1, -1, 0.5], [2, 3, 4, 5]]),
         T([[1, 0], [2, 1], [3, 0], [4, 1]]), lower=False, grad=(0, 1)),
    case("linalg.banded_triangular_solve", T([[[2, 3, 4], [1, -1, 0.5], [0.25, 9, 9]]],
                                             "float64"),
         T([[1], [2], [3]], "float64"), adjoint=True, grad=(0, 1)),
]
CASES += [
    case("linalg.expm", T([[[0.1, 2.0], [-1.0, 0.3]], [[40.0, -3.0], [2.0, 1.0]]], "float64"),
         grad=(0,), tol=(1e-9, 1e-12)),
    case("linalg.expm", T([[0.001, 0.002], [0, -0.001]], "float64"), grad=(0,)),
    case("linalg.expm", T([[0, 0.5, 0], [-0.5, 0, 0.25], [0, 0, 1.5]]), grad=(0,),
         tol=(1e-5, 1e-6)),
    case("linalg.expm", T([[0, 30], [-30, 0]]), tol=(1e-3, 1e-4)),
    case("linalg.expm", T([[[1, 2], ["nan", 0]], [[0, 0], [0, 0]]])),
]
