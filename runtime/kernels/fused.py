"""NumPy kernels: fused family. Each runs the unfused kernels in turn (product, bias add,
activation), so a fused op gives bit-for-bit what the ops it replaced gave."""
from __future__ import annotations

import numpy as np

from ...ir.ops.fused import activation_op
from ...ir.ops.nn import spatial_axes
from . import KERNELS, kernel
from .linalg import matmul
from .nn import conv2d


def _activate(y, activation, alpha):
    act = activation_op(activation, alpha)
    if act is None:
        return y
    name, attrs = act
    return KERNELS[name](y, **attrs)


@kernel("fused_matmul")
def fused_matmul(a, b, bias, transpose_a=False, transpose_b=False, output_type=None,
                 activation="", alpha=0.2):
    y = matmul(a, b, transpose_a, transpose_b, output_type)
    np.add(y, bias, out=y, casting="unsafe")  # bias_add into the product: no one else holds it
    return _activate(y, activation, alpha)


@kernel("fused_conv2d")
def fused_conv2d(x, filters, bias, strides, padding, explicit_paddings=(), data_format="NHWC",
                 dilations=(1, 1), activation="", alpha=0.2):
    y = conv2d(x, filters, strides, padding, explicit_paddings, data_format, dilations)
    _, ch = spatial_axes(data_format, y.ndim)
    # bias_add's NCHW form adds along axis 1; reshape so it lands on the channel axis
    y = (y + bias.reshape(bias.shape + (1,) * (y.ndim - 1 - ch))).astype(y.dtype, copy=False)
    return _activate(y, activation, alpha)
