"""TF-oracle cases for the last names of the breadth work (format: tests/oracle/spec.py):
ragged_fill_empty_rows and its gradient op (empty rows first, last and between, unsorted row
ids, no values, string values, TF's refusals; the output size is a run-time value, which XLA
refuses as TF's; TF registers no gradient for the gradient op), fingerprint, nn.isotonic_regression."""
from oracle.spec import T, case

NO_XLA = ("eager", "graph")


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
]
