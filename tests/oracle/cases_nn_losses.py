"""Softmax and the logistic loss (math and nn names flowjit already has): ties, infinities,
half precision, and the gradient of the logistic loss at a logit of exactly 0."""
from oracle.spec import T, case

LOGITS = T([[1., 2., 3.], [0., "-inf", 3.], [1000., 1000., 0.]])

CASES = [
    case("nn.softmax", LOGITS, grad=(0,)),
    case("nn.softmax", T([[1., 2., 3.]]), axis=0, grad=(0,)),
    case("nn.softmax", T([[-1., 0.5, 2.25, 3.]], "float16"), grad=(0,)),
    case("nn.softmax", T([[-1., 0.5, 2.25, 3.]], "bfloat16")),
    case("nn.log_softmax", LOGITS, grad=(0,)),
    case("nn.log_softmax", T([[1., 2.], [3., 4.]]), axis=0, grad=(0,)),
    # labels, logits (positional, so both are differentiated): at a logit of 0 the gradient
    # is sigmoid(0) - labels
    case("nn.sigmoid_cross_entropy_with_logits", T([0., 1., 0.3, 1., 0.]),
         T([0., 0., 0., 50., -50.]), grad=(0, 1)),
    case("nn.relu", T([-1., 0., 2., "nan"]), grad=(0,)),
    case("nn.relu6", T([-1., 0., 6., 7.]), grad=(0,)),
    case("nn.softmax_cross_entropy_with_logits", labels=T([[0., 1.], [0.5, 0.5]]),
         logits=T([[0., 0.], [100., -100.]])),
    case("nn.sparse_softmax_cross_entropy_with_logits", labels=T([1, 0], "int32"),
         logits=T([[0., 0.], [100., -100.]])),
    case("nn.l2_loss", T([[1., -2.], [3., 0.]]), grad=(0,)),
    case("math.l2_normalize", T([[3., 4.], [0., 0.]]), axis=1, grad=(0,)),
]
