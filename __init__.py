"""flowjit: TensorFlow 2's `tf.function` stack rebuilt in Python on real compiler parts.

`import flowjit as tf` runs ordinary TF2 eager code; see README.md.

The TF namespaces (`flowjit.math`, `flowjit.nn`, `flowjit.errors`, ...) are real modules in
`api/`, which joins this package's `__path__` (TF's `_api/v2` layout): `api/math.py` is the
module `flowjit.math`. They are not folders of the repository root, where a `random.py` would
shadow Python's own `random` for a program started there. The extension API is `extend.py`.
"""
from __future__ import annotations

import os as _os

__path__.append(_os.path.join(_os.path.dirname(__file__), "api"))

from .ir.dtypes import (DType, as_dtype, bfloat16, bool_ as bool, double, float16,
                        float32, float64, half, int8, int16, int32, int64, string, uint8,
                        complex64, complex128)
from .ir.shapes import TensorShape
from .frontend.tensor import Tensor
from .frontend.dispatch import convert_to_tensor
from .frontend.variables import Variable
from .frontend.specs import TensorSpec
from .frontend import operators as _operators
from .frontend.function import ConcreteFunction, Function, function
from .frontend.func_graph import init_scope, name_scope
from .frontend.module import Module
from .frontend.control_flow import case, cond, switch_case, while_loop
from .frontend.tensor_array import TensorArray
from .frontend.device import device
from .frontend.functional_ops import foldl, foldr, map_fn, scan
from .frontend.gradients.tape import GradientTape, UnconnectedGradients, custom_gradient
from .passes import register_pass
# The top-level op functions (TF's `tf.add`, `tf.reshape`, ...); several take builtins' names.
from .frontend.ops.math import (
    abs, add, add_n, cast, clip_by_global_norm, clip_by_norm, clip_by_value, complex, cos, divide,
    equal, exp, floor, floordiv, floormod, greater, greater_equal, less, less_equal, logical_and,
    logical_not, logical_or, maximum, minimum, multiply, negative, not_equal, pow, round,
    saturate_cast, sigmoid, sign, sin, sqrt, square, subtract, tanh, truediv, where)
from .frontend.ops.reduce import (
    argmax, argmin, cumsum, norm, reduce_all, reduce_any, reduce_logsumexp, reduce_max,
    reduce_mean, reduce_min, reduce_prod, reduce_sum)
from .frontend.ops.linalg import einsum, matmul, tensordot
from .frontend.ops.array import (
    argsort, boolean_mask, broadcast_to, concat, constant, expand_dims, eye, fill, gather,
    gather_nd, identity, linspace, newaxis, one_hot, ones, ones_like, pad, range, rank, reshape,
    reverse, scatter_nd, shape, size, slice, sort, split, squeeze, stack, stop_gradient,
    strided_slice, tensor_scatter_nd_add, tensor_scatter_nd_update, tile, transpose, unstack,
    zeros, zeros_like)
from .frontend.ops.logging import (
    Assert, assert_equal, assert_greater, assert_less, assert_rank, print)
from .frontend.ops.strings import as_string
from .frontend.ops.counting import histogram_fixed_width, searchsorted, unique, unique_with_counts
from .frontend.ops.checks import ensure_shape
from .frontend.ops.script import numpy_function, py_function

from . import (autodiff, autograph, config, debugging, distribute, dtypes, errors,
               experimental, extend, image, keras, linalg, math, nest, nn, optimizers, profiler,
               random, saved_model, strings, summary, train, types)

_operators.install(Tensor)
_operators.install(Variable)

# Top-level names marked `tf_export("<name>")` where they are defined (frontend/export.py).
from .frontend.export import install as _install_exports
_install_exports(globals(), "")

__version__ = "0.1.0"
