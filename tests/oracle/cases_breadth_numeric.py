"""tf.math's incomplete gamma and beta functions, multiply_no_nan, cumulative_logsumexp,
sobol_sample; the top-level eig/eigvals and matrix_square_root; tf.linalg's sqrtm, logm and
eigh_tridiagonal. Inputs at the domain's edges (0, negatives, NaN/inf), broadcasting, ties,
empty tensors and TF's errors."""
from oracle.spec import T, case

EAGER = ("eager",)
EAGER_GRAPH = ("eager", "graph")

A8 = T([0.5, 1., 2., 10., 3., 0., -1., "nan"])
X8 = T([0.3, 1., 5., 2., 0., 1., 1., 1.])

CASES = [
    # --- igamma / igammac: domain edges, broadcasting, float64, gradients for a and x
    case("math.igamma", A8, X8),
    case("math.igamma", T([1., 2., 0.5, 4.]), T([0., "inf", -1., "nan"])),
    case("math.igamma", T([[0.5], [2.], [7.]]), T([0.25, 1., 3., 9.]), grad=(0, 1)),
    case("math.igamma", T([0.8, 3., 12.], "float64"), T([1.5, 0.4, 11.], "float64"),
         grad=(0, 1)),
    case("math.igamma", T([1, 2], "int32"), T([1, 2], "int32")),
    case("math.igamma", T([1., 2.], "float16"), T([1., 2.], "float16")),
    case("math.igammac", A8, X8),
    case("math.igammac", T([[0.5, 2., 7.]]), T([[0.25], [3.]]), grad=(0, 1)),
    case("math.igammac", T([2.5, 30.], "float64"), T([0.1, 25.], "float64"), grad=(0, 1)),
    case("math.igammac", T([], "float32"), T([], "float32")),
    # --- betainc: scalars with tensors, the domain's edges, shape errors
    case("math.betainc", T([1., 0., 2., 1., 0.5, 3.]), T([1., 1., 0., 2., 0.5, 4.]),
         T([0.5, 0.5, 0.5, 1.5, 0., 1.])),
    case("math.betainc", T([[0.5, 2.], [3., 7.]], "float64"), T([[1.5, 2.], [0.7, 2.]],
         "float64"), T([[0.2, 0.9], [0.5, 0.35]], "float64"), grad=(2,)),
    # (TF's gradient for a scalar x beside tensors a, b fails: it reshapes the unreduced sum)
    case("math.betainc", T(2.), T([1., 3., 5.]), T(0.25)),
    case("math.betainc", T([1., 2.]), T(3.), T([0.1, 0.7]), grad=(2,)),
    case("math.betainc", T([1., 2., 3.]), T([1., 2.]), T(0.5), modes=EAGER),
    case("math.betainc", T([1., 2.]), T([1., 2.]), T([0.5, 0.1, 0.3]), modes=EAGER),
    case("math.betainc", T([[1.], [2.]]), T([1., 2.]), T(0.5), modes=EAGER),
    # --- multiply_no_nan: y = 0 hides inf/NaN in x; y's gradient where y is 0
    case("math.multiply_no_nan", T([1., "inf", "nan", 2., -3.]), T([0., 0., 0., 3., "-0.0"]),
         grad=(0, 1)),
    case("math.multiply_no_nan", T([[1.], [2.]]), T([0., 3., "inf"]), grad=(0, 1)),
    case("math.multiply_no_nan", T([1., 2.], "float64"), T(0., "float64"), grad=(0, 1)),
    case("math.multiply_no_nan", T([1., "nan"], "float16"), T([0., 2.], "float16")),
    case("math.multiply_no_nan", T([1, 2], "int32"), T([0, 3], "int32")),
    # --- cumulative_logsumexp: values far apart, -inf and +inf, exclusive/reverse
    case("math.cumulative_logsumexp", T([-1000., 0., "-inf", 5.]), exclusive=True),
    case("math.cumulative_logsumexp", T(["-inf", "-inf", 1., "inf", 1.])),
    case("math.cumulative_logsumexp", T([[1., 2., 3.], [-2., 0., 2.]]), axis=1, grad=(0,)),
    case("math.cumulative_logsumexp", T([[1., 2., 3.], [-2., 0., 2.]]), axis=-2,
         exclusive=True, reverse=True, grad=(0,)),
    case("math.cumulative_logsumexp", T([0.5, 0.5, -1., 4.], "float64"), reverse=True,
         grad=(0,)),
    case("math.cumulative_logsumexp", T([1., 2., 2.], "float16")),
    case("math.cumulative_logsumexp", T([[], []]), axis=1),
    case("math.cumulative_logsumexp", T([1, 2], "int32")),
    # --- top-level eig/eigvals (linalg's): triangular inputs fix the eigenvalues' order
    case("eigvals", T([[2., 1., 0.], [0., -1., 4.], [0., 0., 0.5]])),
    case("eigvals", T([[[1., 3.], [0., 1.]], [[4., 2.], [0., 2.]]], "float64")),
    case("eig", T([[3., 0.], [0., -2.]])),
    case("eigvals", T([[1., 2., 3.]]), modes=EAGER),
    # --- sobol_sample: after the origin, skip, a high dimension, TF's argument errors
    case("math.sobol_sample", 2, 5),
    case("math.sobol_sample", 3, 3, skip=5, dtype="float64"),
    case("math.sobol_sample", 40, 2, skip=999),
    case("math.sobol_sample", 300, 1, skip=7),
    case("math.sobol_sample", 0, 3, modes=EAGER),
    case("math.sobol_sample", 2, 0, modes=EAGER),
    case("math.sobol_sample", 21201, 1, modes=EAGER),
    case("math.sobol_sample", 2, 2, skip=-1, modes=EAGER),
    # --- sqrtm / matrix_square_root: triangular, batched, negative eigenvalues (NaN), complex
    # rotations, empty; gradients through the Sylvester equation
    case("linalg.sqrtm", T([[4., 1.], [0., 9.]]), grad=(0,)),
    case("linalg.sqrtm", T([[[4., 1., 0.], [0., 9., 2.], [1., 0., 5.]],
                            [[2., 0.5, 0.], [0.3, 3., 0.], [0., 0., 1.]]], "float64"),
         grad=(0,)),
    case("matrix_square_root", T([[1., 2.], [3., 4.]])),
    # an inf or NaN entry: NaN throughout
    case("linalg.sqrtm", T([[["inf", 1.], [0., 2.]], [[4., 0.], [0., 9.]]])),
    case("linalg.sqrtm", T([[1., 0.], ["nan", 2.]], "complex64")),
    case("matrix_square_root", T([[0., -1.], [1., 0.]], "float64"), grad=(0,)),
    case("linalg.sqrtm", T([[2., 1.], [1., 2.]], "complex64")),
    case("linalg.sqrtm", T([[[], []]])),
    case("linalg.sqrtm", T([[1., 2., 3.]]), modes=EAGER),
    case("linalg.sqrtm", T([1., 2.]), modes=EAGER),
    case("linalg.sqrtm", T([[1, 2], [3, 4]], "int32"), modes=EAGER),
    # --- logm: complex only
    case("linalg.logm", T([[4., 1.], [0., 9.]], "complex64")),
    case("linalg.logm", T([[[1., 2.], [0.5, 3.]], [[2., -1.], [1., 2.]]], "complex128")),
    case("linalg.logm", T([[-1., 0.], [0., 2.]], "complex128")),
    # an inf or NaN entry: NaN throughout (SciPy's logm never terminates there)
    case("linalg.logm", T([[1., "nan"], [0., 2.]], "complex128")),
    case("linalg.logm", T([[["inf", 1.], [0., 2.]], [[2., 0.], [0., 3.]]], "complex64")),
    case("linalg.logm", T([[4., 1.], [0., 9.]]), modes=EAGER),
    case("linalg.logm", T([[1., 2., 3.]], "complex64"), modes=EAGER),
    # --- eigh_tridiagonal (eigenvalues: TF's eigenvectors' signs are its solver's own)
    case("linalg.eigh_tridiagonal", T([1., 2., 3., 4.]), T([0.5, 0., -1.])),
    case("linalg.eigh_tridiagonal", T([2., 2., 2.], "float64"), T([1., 1.], "float64")),
    case("linalg.eigh_tridiagonal", T([1., 2., 3., 4.]), T([0.5, 0., -1.]), select="i",
         select_range=[1, 2]),
    case("linalg.eigh_tridiagonal", T([1., 2., 3., 4.]), T([0.5, 0., -1.]), select="v",
         select_range=[1., 3.5], modes=EAGER_GRAPH),
    case("linalg.eigh_tridiagonal", T([5.]), T([], "float32")),
    case("linalg.eigh_tridiagonal", T([1., 2.]), T([1.]), select="x", modes=EAGER),
    # the domain's edges, as TF's kernels give them (its XLA gives NaN or limits there):
    # igamma(a, 0) = 0 for every a, igammac(a, inf) = 0, a NaN x or an infinite a (fuzz seed
    # 442244: under XLA igamma(inf, nan) was 0)
    case("math.igamma", T([-1., 0., "nan", "inf", "inf", "inf", 2e4, 3.], "float64"),
         T([0., 0., 0., "nan", 1., "inf", "inf", "nan"], "float64")),
    case("math.igammac", T([-1., 0., "nan", "inf", "inf", "inf", 2e4, 3.], "float64"),
         T([0., 0., 0., "nan", 1., "inf", "inf", "nan"], "float64")),
]
