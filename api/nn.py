"""TF's `tf.nn`: activations, convolutions, pooling, losses, normalization.

The functions live with their op families in frontend/ops/; this file is the namespace.
"""
from flowjit.frontend.ops.math import sigmoid, softplus, tanh
from flowjit.frontend.ops.linalg import top_k
from flowjit.frontend.ops.nn import (
    avg_pool, avg_pool1d, avg_pool2d, avg_pool3d, batch_normalization, bias_add, conv2d,
    conv2d_transpose, depthwise_conv2d, dropout, elu, embedding_lookup, gelu, l2_loss,
    l2_normalize, leaky_relu, log_softmax, max_pool, max_pool1d, max_pool2d, max_pool3d, moments,
    relu, relu6, selu, sigmoid_cross_entropy_with_logits, silu, softmax,
    softmax_cross_entropy_with_logits, sparse_softmax_cross_entropy_with_logits, swish)

from flowjit.frontend.export import install as _install
_install(globals(), "nn")
