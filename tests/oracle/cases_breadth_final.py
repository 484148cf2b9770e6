"""TF-oracle cases for the last names of the breadth work (format: tests/oracle/spec.py):
ragged_fill_empty_rows and its gradient op (empty rows first, last and between, unsorted row
ids, no values, string values, TF's refusals; the output size is a run-time value, which XLA
refuses as TF's; TF registers no gradient for the gradient op), fingerprint (numbers,
strings of every FarmHash length class, rows of several strings, empty rows; TF's XLA has no
kernel for it: op_samples checks the refusal), nn.isotonic_regression (both directions,
ties, NaN, other axes, rank 0 and 1, empty rows, integer and half inputs, its gradient on
matrices, the only rank whose gradient TF shapes right; TF's XLA has no kernel for it),
random.stateless_parameterized_truncated_normal's refusals, random_index_shuffle (block sizes
from 16 to 42 bits, powers of two, max_index 0, per-element seeds and bounds, TF's
refusals)."""
from oracle.spec import T, case

NO_XLA = ("eager", "graph")


def text(n):
    """n characters that differ along the string (every FarmHash length class)."""
    return "".join(chr(33 + (i * 7) % 90) for i in range(n))


def ids(values):
    return T(values, "int64")


CASES = [
    case("ragged_fill_empty_rows", ids([1, 1, 3]), T([1., "nan", -3.]), ids(5), T(9.),
         grad=(1, 3), modes=NO_XLA),
    case("ragged_fill_empty_rows", ids([1, 0, 1]), T([1., 2., 3.], "float64"), ids(2),
         T(0., "float64"), grad=(1, 3), modes=NO_XLA),
    case("ragged_fill_empty_rows", ids([]), T([], "int32"), ids(3), T(7, "int32"),
         modes=NO_XLA),
    case("ragged_fill_empty_rows", ids([0, 2]), T(["a", "b"], "string"), ids(4),
         T("z", "string"), modes=NO_XLA),
    case("ragged_fill_empty_rows", ids([[0]]), T([1.]), ids(2), T(0.), modes=NO_XLA),
    case("ragged_fill_empty_rows", ids([0]), T([1.]), ids(2), T([0.]), modes=NO_XLA),
    case("ragged_fill_empty_rows", ids([0, 1]), T([1.]), ids(2), T(0.), modes=NO_XLA),
    case("ragged_fill_empty_rows", ids([0, 3]), T([1., 2.]), ids(2), T(0.), modes=("eager",)),
    case("ragged_fill_empty_rows_grad", ids([1, 2, 4]), T([1., 2., 3., "inf", 5., 6.])),
    case("ragged_fill_empty_rows_grad", ids([]), T([1., 2.], "float64")),
    case("ragged_fill_empty_rows_grad", ids([0, 2]), T([1., 2.]), modes=("eager",)),
    case("ragged_fill_empty_rows_grad", ids([[0]]), T([1., 2.])),
    case("fingerprint", T([[1, 2], [3, 4], [0, 0]], "int32"), modes=NO_XLA),
    case("fingerprint", T([text(n) for n in (0, 1, 3, 4, 8, 9, 16, 17, 32, 33, 64, 65, 128,
                                             200, 1000)], "string"), modes=NO_XLA),
    case("fingerprint", T([["ab", "c"], ["a", "bc"], ["", ""]], "string"), modes=NO_XLA),
    case("fingerprint", T([[1.5, "nan"], ["-0.0", "inf"]], "float64"), modes=NO_XLA),
    case("fingerprint", T([[[True], [False]]], "bool"), modes=NO_XLA),
    case("fingerprint", T([[1.5], [2.5]], "float16"), modes=NO_XLA),
    case("fingerprint", T([[], []], "int64"), modes=NO_XLA),
    case("fingerprint", T([], "uint8"), modes=NO_XLA),
    case("fingerprint", T(3, "int32")),
    case("fingerprint", T([1], "int32"), method="md5"),
    case("nn.isotonic_regression", T([[3., 1., 2., 5., 4.], [1., 2., 3., 4., 5.]]), grad=(0,),
         modes=NO_XLA),
    case("nn.isotonic_regression", T([[1., 3., 2., 2., 5., 0.]], "float64"), decreasing=False,
         grad=(0,), modes=NO_XLA),
    case("nn.isotonic_regression", T([[1., "nan", 2., 0.], [2., 2., 2., -1.]]), grad=(0,),
         modes=NO_XLA),
    case("nn.isotonic_regression", T([[4., 1.], [2., 3.], [5., 0.]]), axis=0, grad=(0,),
         modes=NO_XLA),
    case("nn.isotonic_regression", T([[[1., 5.], [2., 6.]]], "float16"), decreasing=False,
         axis=1, modes=NO_XLA),
    case("nn.isotonic_regression", T([[[1., 5., 2.], [2., 6., 6.]], [[0., 0., 1.], [9., 3., 4.]]],
                                     "float64"), modes=NO_XLA),
    case("nn.isotonic_regression", T([0.5, 3., -1., 4.]), modes=NO_XLA),
    case("nn.isotonic_regression", T(2.), modes=NO_XLA),
    case("nn.isotonic_regression", T([[], []]), modes=NO_XLA),
    case("nn.isotonic_regression", T([[1, 3, 2, 7]], "int32"), modes=NO_XLA),
    case("nn.isotonic_regression", T([[1, 3, 2, 7]], "uint8"), decreasing=False, modes=NO_XLA),
    case("nn.isotonic_regression", T([[1, 3, 2]], "int64"), modes=NO_XLA),
    case("nn.isotonic_regression", T([[1., 3.]]), axis=2),
    # random values differ from TF's (tests/ops/test_parameterized_truncated_normal.py checks
    # the distribution and the gradient); TF's refusals are recorded
    case("random.stateless_parameterized_truncated_normal", [2], [1, 2], minvals=1.,
         maxvals=0., modes=("eager",)),
    case("random.stateless_parameterized_truncated_normal", [2], [1, 2], stddevs=T([1., -1.]),
         modes=("eager",)),
    case("random.stateless_parameterized_truncated_normal", [1], [1, 2],
         minvals=T(["-inf"]), maxvals=T(["inf"]), modes=("eager",)),
    case("random.stateless_parameterized_truncated_normal", [2], [1, 2], means=T([1.])),
    case("random.stateless_parameterized_truncated_normal", [2], [1, 2],
         means=T([1., 2., 3.])),
    case("random.stateless_parameterized_truncated_normal", [2, 3], [1, 2],
         means=T([[1.], [2.], [3.]])),
    case("random_index_shuffle", T(list(range(12)), "int32"), T([1, 2, 3], "int32"),
         T(11, "int32")),
    case("random_index_shuffle", T(list(range(10)), "int64"), T([1, 2, 3], "int64"),
         T(9, "int64"), rounds=8),
    case("random_index_shuffle", T([0, 1, 65535, 65536], "int64"), T([-7, 0, 2 ** 31], "int64"),
         T(65536, "int64"), rounds=6),
    case("random_index_shuffle", T([0, 5, 2 ** 20, 2 ** 31 - 1, 2 ** 40 + 9], "int64"),
         T([[5, 6, 7], [5, 6, 7], [1, 1, 1], [9, 8, 7], [0, 0, 4]], "int64"),
         T([3, 5, 2 ** 20 + 3, 2 ** 31 - 1, 2 ** 41], "int64")),
    case("random_index_shuffle", T(7, "uint32"), T([4, 5, 6], "uint32"), T(0, "uint32")),
    case("random_index_shuffle", T([3, 0], "int32"), T([[1, 2, 3], [3, 2, 1]], "int32"),
         T(2 ** 17, "int32")),
    case("random_index_shuffle", T(5, "int32"), T([1, 2], "int32"), T(10, "int32")),
    case("random_index_shuffle", T(5, "int32"), T([1, 2, 3], "int32"), T(10, "int64")),
    case("random_index_shuffle", T(5.), T([1, 2, 3], "int32"), T(10.)),
]
