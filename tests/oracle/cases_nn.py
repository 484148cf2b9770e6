"""TF-oracle cases for the tf.nn composites (format: tests/oracle/spec.py): zero, negative and
large logits, targets 0 and 1 at the Stirling cut, zero weights, shifts, block rearrangements
with several blocks and channels, conv1d strides and paddings."""
from oracle.spec import T, case

X = T([[-2, 0, "-0.0", 3], [1, "inf", -1, 0.5]])
LOGITS = T([[-30, -1, 0, 2], [0.5, 40, -3, 1]])
LABELS = T([[0, 1, 0.5, 1], [1, 0, 0.25, 0]])
IMG = T([[[[float(4 * r + c) + 0.5 * ch for ch in range(2)] for c in range(4)]
          for r in range(4)]])                                        # [1, 4, 4, 2]

CASES = [
    case("nn.crelu", X),
    case("nn.crelu", T([[-2, 0.5], [1, -3]]), grad=(0,)),
    case("nn.crelu", T([[-2, 0.5], [1, -3]]), axis=0),
    case("nn.log_poisson_loss", T([0, 0.5, 1, 2, 10]), T([-1, 0, 0.5, 1, 2]), grad=(1,)),
    case("nn.log_poisson_loss", T([0, 0.5, 1, 2, 10]), T([-1, 0, 0.5, 1, 2]),
         compute_full_loss=True, grad=(1,)),
    case("nn.log_poisson_loss", T([1, 2]), T([1, 2, 3])),
    case("nn.weighted_cross_entropy_with_logits", LABELS, LOGITS, 2.5, grad=(0, 1)),
    case("nn.weighted_cross_entropy_with_logits", LABELS, LOGITS, 0.0),
    case("nn.sufficient_statistics", X, [1]),
    case("nn.sufficient_statistics", T([[1, 2, 3], [4, 5, 6]]), [0, 1], shift=2.0,
         keepdims=True, grad=(0,)),
    case("nn.normalize_moments", T(4.0), T([8, 2]), T([20, 3]), None),
    case("nn.normalize_moments", T(4.0), T([8, 2]), T([20, 3]), T([1, -1])),
    case("nn.weighted_moments", T([[1, 2, 3], [4, 5, 6]]), [1], T([[1, 0, 2], [0, 0, 0]]),
         grad=(0,)),
    case("nn.weighted_moments", T([[1, 2, 3], [4, 5, 6]]), [0, 1], T([1, 2, 3]), keepdims=True),
    case("nn.compute_average_loss", T([1, 2, 3, 4])),
    case("nn.compute_average_loss", T([1, 2, 3, 4]), sample_weight=T([1, 0, 0.5, 2]),
         grad=(0,)),
    case("nn.compute_average_loss", T([1, 2, 3, 4]), global_batch_size=8, grad=(0,)),
    case("nn.compute_average_loss", T([], "float32")),
    case("nn.scale_regularization_loss", T(3.5)),
    case("nn.space_to_depth", IMG, 2, grad=(0,)),
    case("nn.space_to_depth", IMG, 3),
    case("nn.depth_to_space", T([[[[1, 2, 3, 4, 5, 6, 7, 8]]]]), 2, grad=(0,)),
    case("nn.depth_to_space", T([[[[1, 2, 3]]]]), 2),
    case("nn.conv1d", T([[[1, 2], [3, 4], [5, 6], [7, 8], [9, 10]]]),
         T([[[1, 0, -1], [0.5, 2, 1]], [[0, 1, 1], [-1, 0, 2]]]), 1, "SAME", grad=(0, 1)),
    case("nn.conv1d", T([[[1, 2], [3, 4], [5, 6], [7, 8], [9, 10]]]),
         T([[[1, 0, -1], [0.5, 2, 1]], [[0, 1, 1], [-1, 0, 2]]]), 2, "VALID", grad=(0, 1)),
]
CASES += [
    case("nn.in_top_k", T([1, 0, 1], "int32"),
         T([[0.1, 0.3, 0.3, 0.2], ["nan", 1, 2, 3], [1, "inf", 0, 0]]), 1),
    case("nn.in_top_k", T([2, 3, 0], "int64"),
         T([[0.1, 0.3, 0.3, 0.2], ["nan", 1, 2, 3], [1, "-inf", 0, 0]]), 2),
    case("nn.in_top_k", T([5, -1, 0], "int32"), T([[1, 2], [3, 4], [5, 5]]), 1),
    case("nn.in_top_k", T([0, 1], "int32"), T([[1, 2], [3, 4]]), 0),
]
