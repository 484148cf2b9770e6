"""Gradients of the nn family against finite differences (see gradcheck.py), and TF's
choices at the activations' kinks."""
import numpy as np
import pytest

from flowjit.frontend.gradients import GRADIENTS
from flowjit.ir.registry import OPS
from gradcheck import Case, eager_grads, forward, run_all

R = np.random.default_rng(11)


def u(*shape, lo=-2.0, hi=2.0):
    return R.uniform(lo, hi, size=shape)


def away(*shape, gap=0.2):
    x = R.uniform(gap, 2.0, size=shape)
    return np.where(R.random(shape) < 0.5, -x, x)


def distinct(*shape):
    n = int(np.prod(shape))
    return (R.permutation(n) * 0.3 - 2.0 + R.uniform(0, 0.02, n)).reshape(shape)


def conv(op, x, w, strides=(1, 1), padding="VALID", explicit=(), fmt="NHWC",
         dilations=(1, 1), tag="", graph="batch", **extra):
    attrs = {"strides": strides, "padding": padding, "explicit_paddings": explicit,
             "data_format": fmt, "dilations": dilations, **extra}
    return Case(op, [x, w], attrs, tag=tag, graph=graph)


def pool(op, x, ksize, strides, padding, fmt="NHWC", explicit=(), tag="", graph="first"):
    attrs = {"ksize": ksize, "strides": strides, "padding": padding,
             "explicit_paddings": explicit, "data_format": fmt}
    return Case(op, [x], attrs, tag=tag, graph=graph)


relu6_x = np.array([[-1.0, 0.5, 3.0], [5.5, 6.7, -0.3]])
CASES = [
    Case("relu", [away(2, 3)], graph="all"),
    Case("relu6", [relu6_x], graph="all"),
    Case("elu", [away(2, 3)], graph="all"),
    Case("selu", [away(2, 3)], graph="all"),
    Case("leaky_relu", [away(2, 3)], {"alpha": 0.3}, graph="all"),
    Case("gelu", [u(2, 3, lo=-3, hi=3)], {"approximate": False}, tag="erf", graph="all"),
    Case("gelu", [u(2, 3, lo=-3, hi=3)], {"approximate": True}, tag="tanh", graph="all"),
    Case("softmax", [u(2, 4)], {"axis": -1}, graph="all"),
    Case("softmax", [u(3, 2, 2)], {"axis": 0}, tag="axis0", graph="all"),
    Case("log_softmax", [u(2, 4)], {"axis": -1}, graph="all"),
    Case("log_softmax", [u(3, 2)], {"axis": 0}, tag="axis0", graph="all"),
    Case("sparse_softmax_cross_entropy_with_logits",
         [u(3, 4), np.array([0, 3, 1], np.int32)], graph="all"),
    Case("sparse_softmax_cross_entropy_with_logits",
         [u(2, 2, 3), np.array([[0, 2], [1, 1]], np.int64)], tag="rank3"),
    Case("softmax_cross_entropy_with_logits", [u(3, 4), R.dirichlet(np.ones(4), 3)],
         {"axis": -1}, graph="all"),
    Case("softmax_cross_entropy_with_logits", [u(3, 4), u(3, 4, lo=0.0, hi=1.0)],
         {"axis": -1}, tag="unnormalized"),
    Case("softmax_cross_entropy_with_logits", [u(4, 3), u(4, 1, lo=0.1, hi=1.0)],
         {"axis": 0}, tag="axis0-bcast-labels", graph=None),
    Case("softmax_cross_entropy_with_logits", [u(1, 3), u(2, 3, lo=0.1, hi=1.0)],
         {"axis": -1}, tag="bcast-logits", graph=None),
    Case("l2_loss", [u(2, 3)], graph="all"),
    Case("bias_add", [u(2, 3, 4), u(4)], {"data_format": "NHWC"}, graph="first"),
    Case("bias_add", [u(2, 3, 2, 2), u(3)], {"data_format": "NCHW"}, tag="nchw",
         graph="first"),
    # convolutions: [N, H, W, C] inputs, [kh, kw, in, out] filters
    conv("conv2d", u(2, 5, 5, 2), u(3, 3, 2, 3), tag="valid"),
    conv("conv2d", u(1, 5, 6, 2), u(3, 2, 2, 2), strides=(2, 2), padding="SAME",
         tag="same-s2"),
    conv("conv2d", u(1, 6, 5, 2), u(2, 2, 2, 2), strides=(2, 1), padding="SAME",
         dilations=(1, 2), tag="same-dil"),
    conv("conv2d", u(1, 5, 5, 2), u(2, 3, 2, 2), strides=(2, 2), padding="EXPLICIT",
         explicit=(1, 2, 0, 1), tag="explicit"),
    conv("conv2d", u(1, 4, 4, 2), u(2, 2, 2, 2), strides=(1, 2), padding="EXPLICIT",
         explicit=(3, 0, 0, 3), tag="wide-pads"),
    conv("conv2d", u(1, 2, 5, 4), u(2, 2, 2, 2), fmt="NCHW", padding="SAME", tag="nchw"),
    conv("conv2d", u(1, 5, 5, 4), u(3, 3, 2, 4), strides=(2, 2), padding="SAME",
         tag="groups2"),
    conv("conv2d", u(1, 6, 6, 3), u(2, 2, 1, 6), strides=(2, 2), padding="VALID",
         dilations=(1, 1), tag="groups3"),
    conv("conv2d", u(2, 1, 4, 4, 2), u(2, 2, 2, 2), padding="SAME", tag="batch-dims",
         graph=None),
    conv("depthwise_conv2d", u(1, 5, 5, 2), u(3, 3, 2, 2), padding="SAME", tag="same"),
    conv("depthwise_conv2d", u(2, 6, 5, 3), u(2, 2, 3, 1), strides=(2, 2), padding="VALID",
         tag="s2"),
    conv("depthwise_conv2d", u(1, 5, 5, 2), u(2, 2, 2, 3), padding="EXPLICIT",
         explicit=(1, 0, 0, 2), dilations=(2, 1), tag="explicit-dil"),
    conv("depthwise_conv2d", u(1, 2, 4, 4), u(2, 2, 2, 2), fmt="NCHW", padding="SAME",
         tag="nchw"),
    conv("depthwise_conv2d", u(1, 4, 4, 1), u(2, 2, 1, 2), padding="VALID", tag="c1"),
    conv("conv2d_transpose", u(1, 3, 3, 2), u(3, 3, 2, 2), strides=(2, 2), padding="SAME",
         output_shape=(1, 5, 6, 2), tag="same-s2"),
    conv("conv2d_transpose", u(2, 3, 2, 3), u(2, 2, 1, 3), padding="VALID",
         output_shape=(2, 4, 3, 1), tag="valid"),
    conv("conv2d_transpose", u(1, 2, 3, 3), u(2, 2, 2, 2), fmt="NCHW", strides=(2, 1),
         padding="VALID", output_shape=(1, 2, 6, 4), tag="nchw"),
    # pooling
    pool("max_pool", distinct(2, 4, 4, 2), (2, 2), (2, 2), "VALID", tag="2x2"),
    pool("max_pool", distinct(1, 5, 5, 2), (3, 3), (2, 2), "SAME", tag="same"),
    pool("max_pool", distinct(1, 5, 4, 1), (3, 2), (1, 1), "EXPLICIT", explicit=(1, 1, 1, 0),
         tag="explicit"),
    pool("max_pool", distinct(1, 2, 5, 4), (2, 2), (1, 2), "SAME", fmt="NCHW", tag="nchw"),
    pool("max_pool", distinct(2, 7, 2), (3,), (2,), "VALID", fmt="NWC", tag="1d"),
    pool("max_pool", distinct(1, 3, 4, 3, 1), (2, 2, 2), (1, 2, 1), "SAME", fmt="NDHWC",
         tag="3d"),
    pool("avg_pool", u(2, 4, 4, 2), (2, 2), (2, 2), "VALID", tag="2x2"),
    pool("avg_pool", u(1, 5, 5, 2), (3, 3), (2, 2), "SAME", tag="same"),
    pool("avg_pool", u(1, 2, 5, 4), (2, 3), (1, 2), "SAME", fmt="NCHW", tag="nchw"),
    pool("avg_pool", u(1, 6, 2), (4,), (1,), "SAME", fmt="NWC", tag="1d"),
    pool("avg_pool", u(1, 2, 3, 3, 4), (2, 2, 2), (1, 2, 2), "SAME", fmt="NCDHW", tag="3d"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_gradient_matches_finite_differences(case):
    run_all(case)


def test_every_differentiable_nn_op_is_covered():
    names = {n for n, o in OPS.items() if o.family == "nn" and o.differentiable}
    assert names <= {c.op for c in CASES}
    assert names <= set(GRADIENTS)


# --- TF's choices at kinks (values TF 2.21 returns) ----------------------------------------
KINKS = [
    ("relu", {}, [-1.0, 0.0, 1.0], [0.0, 0.0, 1.0]),
    ("relu6", {}, [-1.0, 0.0, 1.0, 6.0, 7.0], [0.0, 0.0, 1.0, 0.0, 0.0]),
    ("leaky_relu", {"alpha": 0.25}, [-1.0, 0.0, 1.0], [0.25, 0.25, 1.0]),
    ("elu", {}, [-1.0, 0.0, 1.0], [np.exp(-1.0), 1.0, 1.0]),
    ("selu", {}, [0.0, 1.0], [1.0507009873554805, 1.0507009873554805]),
]


@pytest.mark.parametrize("op,attrs,x,want", KINKS, ids=[k[0] for k in KINKS])
def test_activation_kinks_follow_tf(op, attrs, x, want):
    case = Case(op, [np.array(x)], attrs)
    g = eager_grads(case, case.inputs, [np.ones(len(x))])[0]
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-12)


def test_max_pool_ties_go_to_the_first_maximum():
    # TF 2.21 (CPU): each window's gradient goes to its first maximum in row-major order.
    x = np.array([[1.0, 2.0, 2.0], [2.0, 0.0, 1.0], [0.0, 2.0, 2.0]]).reshape(1, 3, 3, 1)
    case = pool("max_pool", x, (2, 2), (1, 1), "VALID")
    up = np.array([[1.0, 10.0], [100.0, 1000.0]]).reshape(1, 2, 2, 1)
    g = np.asarray(eager_grads(case, case.inputs, [up])[0])[0, :, :, 0]
    assert g.tolist() == [[0.0, 11.0, 0.0], [100.0, 0.0, 0.0], [0.0, 1000.0, 0.0]]


def test_sparse_xent_labels_get_no_gradient():
    case = next(c for c in CASES if c.op == "sparse_softmax_cross_entropy_with_logits")
    ups = [np.ones(o.shape) for o in forward(case, case.inputs)]
    assert eager_grads(case, case.inputs, ups)[1] is None
