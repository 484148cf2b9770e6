"""flowjit: TensorFlow 2's `tf.function` stack rebuilt in Python on real compiler parts.

`import flowjit as tf` runs ordinary TF2 eager code; see README.md.

The TF namespaces (`flowjit.math`, `flowjit.nn`, `flowjit.errors`, ...) are real modules in
`api/`, which joins this package's `__path__` (TF's `_api/v2` layout): `api/math.py` is the
module `flowjit.math`. They are not folders of the repository root, where a `random.py` would
shadow Python's own `random` for a program started there. The extension API is `extend.py`.
"""
from __future__ import annotations

import os as _os

if __name__ == "__init__":
    # pytest imports this file under its own name when the checkout's folder name is no
    # identifier (mktemp's tmp.x1y2): its relative imports then resolve in the package
    __package__, __path__ = "flowjit", []

__path__.append(_os.path.join(_os.path.dirname(__file__), "api"))

from .ir.dtypes import (DType, as_dtype, bfloat16, bool_ as bool, double, float16,
                        float32, float64, half, int8, int16, int32, int64, string, uint8,
                        complex64, complex128, uint16, uint32, uint64)
from .ir.shapes import TensorShape
from .frontend.eager.tensor import Tensor
from .frontend.eager.dispatch import convert_to_tensor
from .frontend.function.specs import TensorSpec
from .frontend.eager import operators as _operators
from .frontend.function.function import ConcreteFunction, Function, function
from .frontend.function.func_graph import init_scope, name_scope
from .frontend.state.module import Module
from .frontend.control.control_flow import case, cond, switch_case, while_loop
from .frontend.control.tensor_array import TensorArray
from .frontend.eager.device import device
from .frontend.control.functional_ops import foldl, foldr, map_fn, scan, vectorized_map
from .frontend.gradients.graph_gradients import gradients, hessians
from .frontend.gradients.tape import (GradientTape, UnconnectedGradients, custom_gradient,
                                     grad_pass_through, recompute_grad)
from .extend import register_pass

from . import (autodiff, autograph, bitwise, config, data, debugging, distribute, dtypes,
               errors, experimental, extend, image, keras, linalg, math, nest, nn, optimizers,
               profiler, random, saved_model, signal, strings, summary, train, types)
from . import compat, lookup, ragged, raw_ops, sparse
from . import io  # noqa: E402  (tf.io)

# The top-level op API (`tf.add`, `tf.reshape`, ...; several take builtins' names, and
# `tf.Variable`, whose methods run the variable ops), marked `tf_export("<name>")` where it is
# defined (frontend/export.py).
from .frontend.export import install as _install_exports
_install_exports(globals(), "")

_operators.install(Tensor)
_operators.install(Variable)  # noqa: F821  (bound by the install above)

__version__ = "0.1.0"
