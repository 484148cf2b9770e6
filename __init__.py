"""flowjit: TensorFlow 2's `tf.function` stack rebuilt in Python on real compiler parts.

`import flowjit as tf` runs ordinary TF2 eager code; see README.md.
"""
from __future__ import annotations

import sys as _sys
import types as _types

from .ir import dtypes as _dtypes
from .ir import errors
from .ir.dtypes import (DType, as_dtype, bfloat16, bool_ as bool, double, float16,  # noqa: A004
                        float32, float64, half, int8, int16, int32, int64, string, uint8,
                        complex64, complex128)
from .ir.shapes import TensorShape
from .frontend.tensor import Tensor
from .frontend.dispatch import convert_to_tensor
from .frontend.variables import Variable
from .frontend.specs import TensorSpec
from .frontend import operators as _operators
from .frontend import ops as _ops
from .frontend import config as _config
from .frontend.function import ConcreteFunction, Function, function
from .frontend.func_graph import init_scope, name_scope
from .frontend.module import Module
from .frontend.control_flow import case, cond, switch_case, while_loop
from .frontend.tensor_array import TensorArray
from .frontend.device import device
from .frontend import device as _device
from .frontend.functional_ops import foldl, foldr, map_fn, scan
from .frontend.gradients.tape import GradientTape, UnconnectedGradients, custom_gradient
from .passes import pipeline as _pipeline
from .passes import register_pass

_operators.install(Tensor)
_operators.install(Variable)

__version__ = "0.1.0"


def _namespace(name: str, doc: str) -> _types.ModuleType:
    mod = _types.ModuleType(f"{__name__}.{name}", doc)
    _sys.modules[mod.__name__] = mod
    return mod


math = _namespace("math", "TF's `tf.math`.")
nn = _namespace("nn", "TF's `tf.nn`.")
linalg = _namespace("linalg", "TF's `tf.linalg`.")
random = _namespace("random", "TF's `tf.random`.")
debugging = _namespace("debugging", "TF's `tf.debugging`.")
strings = _namespace("strings", "TF's `tf.strings`.")
config = _namespace("config", "TF's `tf.config`.")
config.run_functions_eagerly = _config.run_functions_eagerly
config.functions_run_eagerly = _config.functions_run_eagerly
config.list_physical_devices = _device.list_physical_devices
config.list_logical_devices = _device.list_logical_devices
config.PhysicalDevice = _device.PhysicalDevice
config.LogicalDevice = _device.LogicalDevice
config.LogicalDeviceConfiguration = _device.LogicalDeviceConfiguration
config.set_logical_device_configuration = _device.set_logical_device_configuration
config.get_logical_device_configuration = _device.get_logical_device_configuration
config.optimizer = _types.SimpleNamespace(
    set_experimental_options=_pipeline.set_experimental_options,
    get_experimental_options=_pipeline.get_experimental_options)
dtypes = _namespace("dtypes", "TF's `tf.dtypes`.")
for _n in ("DType", "as_dtype", "bfloat16", "double", "float16", "float32", "float64",
           "half", "int8", "int16", "int32", "int64", "string", "uint8", "complex64",
           "complex128"):
    setattr(dtypes, _n, getattr(_dtypes, _n))
dtypes.bool = _dtypes.bool_
dtypes.cast = None  # filled below

_NAMESPACES = {"": _sys.modules[__name__], "math": math, "nn": nn, "linalg": linalg,
               "random": random, "dtypes": dtypes, "debugging": debugging,
               "strings": strings}
image = _NAMESPACES["image"] = _namespace("image", "TF's `tf.image`.")
for _fam in _ops.FAMILIES:
    for _ns, _names in _fam.EXPORTS.items():
        for _n in _names:
            setattr(_NAMESPACES[_ns], _n, getattr(_fam, _n))
dtypes.cast = _ops.math.cast
_sys.modules[f"{__name__}.errors"] = errors

from .frontend import autograph as _autograph_impl
autograph = _namespace("autograph", "TF's `tf.autograph`.")
autograph.to_code = _autograph_impl.to_code
autograph.experimental = _namespace("autograph.experimental",
                                    "TF's `tf.autograph.experimental`.")
autograph.experimental.do_not_convert = _autograph_impl.do_not_convert
autograph.experimental.set_loop_options = _autograph_impl.set_loop_options
autograph.experimental.Feature = _autograph_impl.Feature

from .frontend import nest as _nest_impl
nest = _namespace("nest", "TF's `tf.nest`.")
for _n in _nest_impl.EXPORTS:
    setattr(nest, _n, getattr(_nest_impl, _n))

from .frontend import optimizers as _optimizers_impl
optimizers = _namespace("optimizers", "TF's `tf.optimizers` (Keras optimizers).")
for _n in _optimizers_impl.EXPORTS["optimizers"]:
    setattr(optimizers, _n, getattr(_optimizers_impl, _n))
keras = _namespace("keras", "The part of `tf.keras` flowjit provides: `tf.keras.optimizers`.")
keras.optimizers = optimizers
_sys.modules[f"{__name__}.keras.optimizers"] = optimizers
from .frontend import function_type as _function_type, trace_type as _trace_type
types = _namespace("types", "TF's `tf.types`: the trace-type protocol.")
types.experimental = _namespace("types.experimental", "TF's `tf.types.experimental`.")
types.experimental.TraceType = _trace_type.TraceType
types.experimental.FunctionType = _function_type.FunctionType
autodiff = _namespace("autodiff", "TF's `tf.autodiff`.")
autodiff.GradientTape = GradientTape

from .frontend import checkpoint as _checkpoint_impl
train = _namespace("train", "TF's `tf.train`: checkpoints.")
for _n in ("Checkpoint", "CheckpointManager", "latest_checkpoint", "list_variables"):
    setattr(train, _n, getattr(_checkpoint_impl, _n))

from .frontend import saved_model as _saved_model_impl
saved_model = _namespace("saved_model", "TF's `tf.saved_model`: save and load without pickle.")
saved_model.save = _saved_model_impl.save
saved_model.load = _saved_model_impl.load

from .frontend import dtensor as _dtensor_impl
experimental = _namespace("experimental", "TF's `tf.experimental`.")
experimental.dtensor = _namespace("experimental.dtensor", "TF's `tf.experimental.dtensor`.")
for _n in _dtensor_impl.__all__:
    setattr(experimental.dtensor, _n, getattr(_dtensor_impl, _n))

from .frontend import distribute as _distribute_impl
distribute = _namespace("distribute", "TF's `tf.distribute`: MirroredStrategy.")
for _n in _distribute_impl.__all__:
    setattr(distribute, _n, getattr(_distribute_impl, _n))
distribute.experimental = _namespace("distribute.experimental",
                                     "TF's `tf.distribute.experimental`.")
distribute.experimental.ValueContext = _distribute_impl.ValueContext
