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

TRUE_CLASSES = T([[0, 3], [9, 1], [3, 3]], "int64")
SAMPLED = T([3, 5, 9, 3], "int64")
EXPECTED = [SAMPLED, T([[0.4, 0.3], [0.1, 0.7], [0.3, 0.3]]), T([0.3, 0.2, 0.1, 0.3])]
TABLE = T([[((3 * r + c) % 7 - 3) / 4 for c in range(3)] for r in range(10)])
BIASES = T([r / 10 - 0.3 for r in range(10)])
INPUTS = T([[1, -1, 0.5], [0, 2, 1], [0.25, 0.5, -2]])
CASES += [
    case("nn.compute_accidental_hits", TRUE_CLASSES, T([3, 5, 9, 3, 1], "int64"), 2,
         modes=NO_XLA),
    case("nn.compute_accidental_hits", TRUE_CLASSES, T([4, 5], "int64"), 2, modes=NO_XLA),
    case("nn.nce_loss", TABLE, BIASES, TRUE_CLASSES, INPUTS, 4, 10, num_true=2,
         sampled_values=EXPECTED, grad=(0, 1, 3)),
    case("nn.nce_loss", TABLE, BIASES, TRUE_CLASSES, INPUTS, 4, 10, num_true=2,
         sampled_values=EXPECTED, remove_accidental_hits=True, grad=(0, 1, 3)),
    case("nn.nce_loss", TABLE, BIASES, T([[2], [7], [0]], "int32"), INPUTS, 2, 10,
         sampled_values=[T([2, 6], "int64"), T([[0.5], [0.25], [1]]), T([0.5, 2])],
         grad=(0, 3)),
    case("nn.sampled_softmax_loss", TABLE, BIASES, TRUE_CLASSES, INPUTS, 4, 10, num_true=2,
         sampled_values=EXPECTED, grad=(0, 1, 3)),
    case("nn.sampled_softmax_loss", TABLE, BIASES, TRUE_CLASSES, INPUTS, 4, 10, num_true=2,
         sampled_values=EXPECTED, remove_accidental_hits=False, grad=(0, 1, 3)),
    case("nn.sampled_softmax_loss", [T([[1, 0], [0, 1], [1, 1]], "float64"),
                                     T([[2, 0], [0, -1]], "float64")],
         T([0.5, 0, -1, 2], "float64"), T([[1], [3]], "int64"), T([[1, 2], [-1, 0.5]], "float64"),
         2, 4, sampled_values=[T([3, 1], "int64"), T([[0.5], [0.25]]), T([0.25, 0.5])]),
]
CASES += [
    case("nn.sampled_softmax_loss", [T([[1, 0], [0, 1], [1, 1]], "float64"),
                                     T([[2, 0], [0, -1]], "float64")],
         T([0.5, 0, -1, 2], "float64"), T([[1], [3]], "int64"), T([[1, 2], [-1, 0.5]], "float64"),
         2, 4, sampled_values=[T([3, 1], "int64"), T([[0.5], [0.25]], "float64"),
                               T([0.25, 0.5], "float64")], grad=(1, 3)),
]

# Code points across the planes (every 4099th), around run edges, and outside Unicode.
POINTS = list(range(0, 0x110000, 4099)) + [64, 65, 90, 91, 0x2FF, 0x300, 0x36F, 0x370,
                                           0xD7FF, 0xD800, 0xDFFF, 0xE000, 0x10FFFF, 0x110000,
                                           -1, -(2 ** 31), 2 ** 31 - 1]
CASES += [
    case("strings.unicode_script", T(POINTS, "int32")),
    case("strings.unicode_script", T([[65, 945, 1488], [32, 0x4E00, 0x0E01]], "int32")),
    case("strings.unicode_script", T(0x0915, "int32")),
    case("strings.unicode_script", T([], "int32")),
    case("strings.unicode_script", T([65], "int64")),
]

# tf.nn's names of tf.math's approx_max_k / approx_min_k (TF's CPU kernel: max over the last dim)
CASES += [
    case("nn.approx_max_k", T([[1, 5, 3, 5, -1, 0], [0, "-0.0", 2, 2, 7, 1]]), 2, grad=(0,)),
    case("nn.approx_max_k", T([[1, 5, 3]], "float16"), 3, grad=(0,)),
    case("nn.approx_max_k", T([[1, 5, 3]]), 4),
]

NO_XLA_TEXT = ("eager", "graph")   # XLA has no string type
CASES += [case(*args, modes=NO_XLA_TEXT, **kwargs) for args, kwargs in [
    (("strings.unicode_decode_with_offsets", T("h\u00e9\x01\u20ac\U0001F600", "string"),
      "UTF-8"), {}),
    (("strings.unicode_decode_with_offsets", T("h\u00e9\x01", "string"), "UTF-8"),
     {"replace_control_characters": True, "replacement_char": 63}),
    (("strings.unicode_decode_with_offsets", T("h\u00e9\U0001F600", "string"), "UTF-16-BE"),
     {}),
    # UTF-8 bytes read as UTF-16: an odd trailing byte and unpaired surrogates are errors
    (("strings.unicode_decode_with_offsets", T("abc", "string"), "UTF-16-BE"), {}),
    (("strings.unicode_decode_with_offsets", T("\U0001F600a", "string"), "UTF-16-BE"),
     {"errors": "ignore"}),
    (("strings.unicode_decode_with_offsets", T("abc", "string"), "UTF-16-BE"),
     {"errors": "strict"}),
    (("strings.unicode_split_with_offsets", T("h\u00e9\x01\u20ac", "string"), "UTF-8"), {}),
    (("strings.unicode_split_with_offsets", T("abc", "string"), "UTF-16-BE"),
     {"replacement_char": 63}),
    (("strings.unicode_split_with_offsets", T("", "string"), "UTF-8"), {}),
]]

NMS_BOXES = T([[[[0, 0, 1, 1]], [[0, 0.1, 1, 1.1]], [[0, -0.1, 1, 0.9]], [[0, 10, 1, 11]],
                [[1, 1.2, 0, 0.3]]],
               [[[0.5, 0.5, 0.7, 0.9]], [[-0.2, 0, 0.3, 0.4]], [[0, 0, 1, 1]],
                [[0.1, 0.1, 0.2, 0.2]], [[0.6, 0.5, 0.7, 0.95]]]])
NMS_SCORES = T([[[0.9, 0.1], [0.75, 0.8], [0.6, 0.3], [0.95, 0.05], [0.5, 0.7]],
                [[0.2, 0.4], [0.65, 0.35], [0.1, 0.9], [0.55, 0.45], [0.85, 0.15]]])
PER_CLASS_BOXES = T([[[[0, 0, 1, 1], [0, 0, 0.5, 0.5]], [[0, 0.1, 1, 1.1], [0, 0.1, 0.5, 0.6]],
                      [[0.2, 0.2, 0.4, 0.4], [0.5, 0.5, 1, 1]]]])
CASES += [
    case("image.combined_non_max_suppression", NMS_BOXES, NMS_SCORES, 2, 5),
    case("image.combined_non_max_suppression", NMS_BOXES, NMS_SCORES, 2, 5,
         score_threshold=0.3),
    case("image.combined_non_max_suppression", NMS_BOXES, NMS_SCORES, 2, 5, pad_per_class=True),
    case("image.combined_non_max_suppression", NMS_BOXES, NMS_SCORES, 2, 5, iou_threshold=0.9,
         clip_boxes=False),
    case("image.combined_non_max_suppression", NMS_BOXES, NMS_SCORES, 1, 10),
    case("image.combined_non_max_suppression", PER_CLASS_BOXES,
         T([[[0.9, 0.3], [0.8, 0.6], [0.1, 0.7]]]), 3, 4, iou_threshold=0.3),
    case("image.combined_non_max_suppression", NMS_BOXES, NMS_SCORES, 0, 3),
    case("image.combined_non_max_suppression", PER_CLASS_BOXES, T([[[0.9, 0.3, 0.1]] * 3]), 1,
         1),
    case("image.combined_non_max_suppression", NMS_BOXES, NMS_SCORES, 2, 5, iou_threshold=1.5),
]

PAD_BOXES = T([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11],
               [1, 11, 0, 10.1], [0, 100, 1, 101], [0.5, 0.5, 0.5, 0.9], [-2, -2, -1, -1]])
PAD_SCORES = T([0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.99, 0.97])
CASES += [
    case("image.non_max_suppression_padded", PAD_BOXES, PAD_SCORES, 3, modes=NO_XLA),
    case("image.non_max_suppression_padded", PAD_BOXES, PAD_SCORES, 10, 0.4, 0.4,
         modes=NO_XLA),
    case("image.non_max_suppression_padded", PAD_BOXES, PAD_SCORES, 5,
         pad_to_max_output_size=True),
    case("image.non_max_suppression_padded", PAD_BOXES, PAD_SCORES, 4, 0.0,
         pad_to_max_output_size=True),
    case("image.non_max_suppression_padded", PAD_BOXES, PAD_SCORES, 3, sorted_input=True,
         pad_to_max_output_size=True),
    case("image.non_max_suppression_padded", T([[[1, 1, 0, 0], [0.1, 0, 1.1, 1], [0, 0, 1, 1]],
                                               [[0, 0, 1, 1], [0, 0, 0.5, 0.5], [2, 2, 3, 3]]]),
         T([[0.5, 0.6, 0.55], [0.1, 0.2, 0.3]]), 3, 0.2, pad_to_max_output_size=True),
    case("image.non_max_suppression_padded", T([[[0, 0, 1, 1]]]), T([[0.5]]), 2),
]
