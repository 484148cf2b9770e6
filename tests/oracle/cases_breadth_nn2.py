"""TF-oracle cases for the second round of tf.nn / tf.image / tf.strings breadth (format:
tests/oracle/spec.py): softsign, zero_fraction, the CTC decoders' dense parts, the
candidate samplers' deterministic outputs, and their error cases."""
from oracle.spec import T, case

CASES = [
    case("nn.softsign", T([[0, -1, 3.5], ["inf", "-inf", "nan"]]), grad=(0,)),
    case("nn.softsign", T([-0.0, 1e-3, -250], "float64"), grad=(0,)),
    case("nn.zero_fraction", T([[0, 1], ["nan", "-0.0"], ["inf", 0]]), grad=(0,)),
    case("nn.zero_fraction", T([], "int32")),
    case("nn.zero_fraction", T([[0, 3, 0], [0, 0, 255]], "uint8")),
    case("nn.zero_fraction", T([True, False, False], "bool")),
    case("nn.zero_fraction", T(7, "int64")),
]

LABELS = T([[1, 1, 2, 2, 3], [4, 4, 4, 0, 0], [5, 6, 5, 6, 6], [0, 0, 0, 0, 0]], "int32")
NO_XLA = ("eager", "graph")   # the collapsed width depends on the values
CASES += [
    case("nn.collapse_repeated", LABELS, T([5, 2, 4, 0], "int32"), modes=NO_XLA),
    case("nn.collapse_repeated", LABELS, T([3, 5, 1, 5], "int64"), modes=NO_XLA),
    case("nn.collapse_repeated", T([[], []], "int32"), T([0, 0], "int32"), modes=NO_XLA),
    case("nn.ctc_unique_labels", LABELS),
    case("nn.ctc_unique_labels", T([[3, 4, 4, 3], [-1, 7, -1, 0]], "int64")),
    case("nn.ctc_unique_labels", T([[9]], "int32")),
]
