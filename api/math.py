"""TF's `tf.math`: elementwise math, reductions, segment sums.

The functions live with their op families in frontend/ops/; this file is the namespace.
"""
from flowjit.frontend.ops.math import (
    abs, add, add_n, cast, ceil, clip_by_value, conj, cos, divide, equal, erf, exp, expm1, floor,
    floordiv, floormod, greater, greater_equal, imag, is_finite, is_nan, less, less_equal, log,
    log1p, logical_and, logical_not, logical_or, logical_xor, maximum, minimum, mod, multiply,
    negative, not_equal, pow, real, reciprocal, round, rsqrt, saturate_cast, scalar_mul, sigmoid,
    sign, sin, softplus, sqrt, square, squared_difference, subtract, tan, tanh, truediv, where)
from flowjit.frontend.ops.reduce import (
    argmax, argmin, cumprod, cumsum, reduce_all, reduce_any, reduce_euclidean_norm,
    reduce_logsumexp, reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_std, reduce_sum,
    reduce_variance)
from flowjit.frontend.ops.linalg import top_k
from flowjit.frontend.ops.nn import l2_normalize, log_softmax, softmax
from flowjit.frontend.ops.segment import (
    segment_max, segment_mean, segment_sum, unsorted_segment_max, unsorted_segment_sum)
from flowjit.frontend.ops.counting import bincount

from flowjit.frontend.export import install as _install
_install(globals(), "math")
