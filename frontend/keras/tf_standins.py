"""Stand-ins for the TF internals Keras's TensorFlow backend names but flowjit does not
provide publicly: object tracking bases, the eager context, TF's wrapped containers, the
default distribution strategy, and type tags Keras only tests with `isinstance`."""
from __future__ import annotations

import contextlib
import enum
import types

import flowjit
from flowjit.frontend.state import module as _module_lib


def _module(name, **attrs):
    mod = types.ModuleType(name)
    mod.__dict__.update(attrs)
    return mod


# --- object tracking: Keras records its children through these ----------------------------
class Trackable:
    """TF's `Trackable`: an object that names the trackable objects it depends on."""

    def _track_trackable(self, trackable, name, overwrite=False):
        children = self.__dict__.setdefault("_flowjit_children", {})
        if name in children and not overwrite:
            raise ValueError(f"A dependency named {name!r} already exists")
        children[name] = trackable
        return trackable

    def _trackable_children(self, save_type="checkpoint", **kwargs):
        return dict(self.__dict__.get("_flowjit_children", {}))

    def _checkpoint_children(self):
        """The (name, child) pairs flowjit's checkpoints and SavedModels walk: the tracked
        children, and a Keras variable's flowjit Variable (TF saves the Keras variable as
        the resource variable it holds)."""
        children = dict(self._trackable_children())
        value = self.__dict__.get("_value")
        if isinstance(value, flowjit.Variable):
            children["_value"] = value
        return sorted(children.items())


class AutoTrackable(Trackable):
    """TF's `AutoTrackable`: tracks what is assigned to its attributes (Keras's subclass
    decides what counts)."""

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        hook = _module_lib._setattr_hook   # a pending restore binds what appears (as Module)
        if hook is not None:
            hook(self, name, value)

    def _checkpoint_children(self):
        """Also what its attributes hold, as TF's AutoTrackable tracks each assignment of a
        trackable value, list or dict."""
        children = dict(super()._checkpoint_children())
        for name, value in vars(self).items():
            if name not in children and not name.startswith(("_flowjit_", "_self_")) and \
                    _holds_state(value):
                children[name] = value
        return sorted(children.items())


def _holds_state(value) -> bool:
    return isinstance(value, (flowjit.Variable, flowjit.Module, Trackable, list, tuple, dict))


def no_automatic_dependency_tracking(method):
    return method


class _TensorType:
    """`tf.__internal__.types.Tensor`: the tag of objects TF treats as tensors."""


def is_tensor(x):
    """TF's `is_tensor`: also True for objects tagged `tf.__internal__.types.Tensor`."""
    return flowjit.is_tensor(x) or isinstance(x, _TensorType)


class _CompositeTensor:
    """`tf.__internal__.CompositeTensor`: flowjit has no composite tensors Keras must see."""


def smart_cond(pred, true_fn=None, false_fn=None, name=None):
    """TF's `smart_cond`: a Python (or constant) predicate picks a branch now."""
    if isinstance(pred, flowjit.Tensor):
        static = flowjit.get_static_value(pred) if hasattr(flowjit, "get_static_value") \
            else None
        if static is None:
            return flowjit.cond(pred, true_fn, false_fn)
        pred = bool(static)
    return true_fn() if pred else false_fn()


def maybe_merge_call(fn, strategy, *args, **kwargs):
    """Runs `fn(strategy, ...)` in the cross-replica sense: flowjit's optimizers aggregate
    gradients themselves, so no merge is needed."""
    return fn(strategy, *args, **kwargs)


def internal_namespace():
    from flowjit.frontend.function.func_graph import FuncGraph
    return _module(
        "tensorflow.__internal__",
        tracking=_module("tensorflow.__internal__.tracking", Trackable=Trackable,
                         AutoTrackable=AutoTrackable,
                         no_automatic_dependency_tracking=no_automatic_dependency_tracking),
        types=_module("tensorflow.__internal__.types", Tensor=_TensorType),
        CompositeTensor=_CompositeTensor,
        FuncGraph=FuncGraph,
        EagerTensor=flowjit.Tensor,
        smart_cond=_module("tensorflow.__internal__.smart_cond", smart_cond=smart_cond),
        distribute=_module("tensorflow.__internal__.distribute", interim=_module(
            "tensorflow.__internal__.distribute.interim", maybe_merge_call=maybe_merge_call),
            strategy_supports_no_merge_call=lambda: True))


# --- tensorflow.python.* -----------------------------------------------------------------
class _EagerContext:
    def clear_kernel_cache(self):
        pass   # flowjit's eager kernels hold no per-op cache to reset


def context_module():
    from flowjit.frontend.function.context import context as flowjit_context

    def executing_eagerly():
        return flowjit_context().graph_hook is None

    # flowjit's eager ops and function calls return when done: nothing to wait for
    return _module("tensorflow.python.eager.context", context=_EagerContext,
                   executing_eagerly=executing_eagerly, async_wait=lambda: None)


class ListWrapper(list):
    """TF's tracked list: a plain list here (Keras registers it as a tree node)."""


class _DictWrapper(dict):
    """TF's tracked dict: a plain dict here."""

    def __init__(self, wrapped=None):
        super().__init__(wrapped or {})


def data_structures_module():
    return _module("tensorflow.python.trackable.data_structures", ListWrapper=ListWrapper,
                   _DictWrapper=_DictWrapper)


def type_spec_registry_module():
    def register(name):
        return lambda cls: cls
    return _module("tensorflow.python.framework.type_spec_registry", register=register)


def framework_config_module():
    # flowjit's kernels are deterministic already
    return _module("tensorflow.python.framework.config", enable_op_determinism=lambda: None,
                   disable_op_determinism=lambda: None, is_op_determinism_enabled=lambda: False)


def compat_v1_module():
    def __getattr__(name):
        if name == "SummaryMetadata":   # TensorBoard's own message (the `summary` extra)
            from tensorboard.compat.proto.summary_pb2 import SummaryMetadata
            return SummaryMetadata
        raise AttributeError(name)
    # flowjit has no TF1 default graph to reset (Keras's `clear_session` asks)
    return _module("tensorflow.compat.v1", reset_default_graph=lambda: None,
                   __getattr__=__getattr__)


def math_ops_module():
    return _module("tensorflow.python.ops.math_ops", is_nan=flowjit.math.is_nan)


def unavailable_module(name):
    """A module Keras names when it loads (`@sparse.elementwise_binary_union(tf.sparse.add)`)
    but calls only for a feature flowjit lacks: each attribute is a function that says so."""
    def __getattr__(attr):
        if attr.startswith("__"):
            raise AttributeError(attr)

        def unavailable(*args, **kwargs):
            raise NotImplementedError(f"flowjit provides no {name}.{attr}")
        unavailable.__name__ = attr
        return unavailable
    return _module(name, __getattr__=__getattr__)


def xla_module():
    def dynamic_update_slice(operand, update, indices):
        return flowjit.tensor_scatter_nd_update(operand, *_slice_scatter(operand, update,
                                                                         indices))
    return _module("tensorflow.compiler.tf2xla.python.xla",
                   dynamic_update_slice=dynamic_update_slice)


def _slice_scatter(operand, update, indices):
    """`dynamic_update_slice` as a scatter: the indices of every element of `update`,
    offset by `indices` (clamped into `operand`, as XLA)."""
    update = flowjit.convert_to_tensor(update)
    shape = flowjit.shape(update)
    start = flowjit.cast(flowjit.convert_to_tensor(indices), "int32")
    start = flowjit.clip_by_value(start, 0, flowjit.shape(operand) - shape)
    grids = flowjit.meshgrid(*[flowjit.range(shape[i]) for i in range(len(update.shape))],
                             indexing="ij")
    idx = flowjit.stack(grids, axis=-1) + start
    return idx, update


# --- tensorflow.distribute: the default (single-replica) strategy ----------------------
class _DefaultStrategy:
    """TF's default strategy: runs the step as it is, on one replica."""
    num_replicas_in_sync = 1
    extended = property(lambda self: self)
    worker_devices = ("/job:localhost/replica:0/task:0/device:CPU:0",)

    def scope(self):
        return contextlib.nullcontext()

    def colocate_vars_with(self, var):
        return contextlib.nullcontext()

    def run(self, fn, args=(), kwargs=None):
        return fn(*args, **(kwargs or {}))

    def reduce(self, reduce_op, value, axis=None):
        return value

    def experimental_local_results(self, value):
        return (value,)

    def experimental_distribute_dataset(self, dataset, options=None):
        return dataset

    def update(self, var, fn, args=(), kwargs=None, group=True):
        return fn(var, *args, **(kwargs or {}))

    def _in_multi_worker_mode(self):
        return False


_DEFAULT_STRATEGY = _DefaultStrategy()


def get_strategy():
    return flowjit.distribute.get_strategy() or _DEFAULT_STRATEGY


def has_strategy():
    return flowjit.distribute.get_strategy() is not None


def _tag(name):
    return type(name, (), {"__doc__": f"TF's `{name}`: flowjit makes none, so `isinstance` "
                                      "is False."})


def distribute_names():
    return dict(get_strategy=get_strategy, has_strategy=has_strategy,
                Strategy=_tag("Strategy"), TPUStrategy=_tag("TPUStrategy"),
                MultiWorkerMirroredStrategy=_tag("MultiWorkerMirroredStrategy"),
                DistributedValues=_tag("DistributedValues"),
                DistributedIterator=_tag("DistributedIterator"),
                DistributedDataset=_tag("DistributedDataset"))


# --- tf.nn names flowjit may lack --------------------------------------------------------
def convolution(input, filters, strides=None, padding="VALID", data_format=None,
                dilations=None, name=None):
    """TF's `tf.nn.convolution`: the convolution of the input's rank."""
    rank = len(input.shape) - 2
    conv = {1: "conv1d", 2: "conv2d"}.get(rank)
    if conv is None:
        raise NotImplementedError(f"flowjit has no {rank}-D convolution yet")
    if conv == "conv1d":
        return flowjit.nn.conv1d(input, filters, strides or 1, padding,
                                 data_format=data_format, dilations=dilations or 1)
    return flowjit.nn.conv2d(input, filters, strides or 1, padding, data_format=data_format,
                             dilations=dilations or 1)


NN = ("convolution",)


# --- tf.random names flowjit may lack ----------------------------------------------------
def shuffle(value, seed=None, name=None):
    """TF's `tf.random.shuffle`: the rows of `value` in a random order."""
    value = flowjit.convert_to_tensor(value)
    keys = flowjit.random.uniform(flowjit.shape(value)[:1], seed=seed)
    return flowjit.gather(value, flowjit.argsort(keys))


RANDOM = ("shuffle",)


# --- top-level names flowjit may lack ----------------------------------------------------
SparseTensor = _tag("SparseTensor")
RaggedTensor = _tag("RaggedTensor")
IndexedSlices = _tag("IndexedSlices")
TypeSpec = _tag("TypeSpec")


class VariableAggregation(enum.Enum):
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


class VariableSynchronization(enum.Enum):
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


sparse = unavailable_module("tensorflow.sparse")
ragged = unavailable_module("tensorflow.ragged")

TOP_LEVEL = ("sparse", "ragged", "TypeSpec", "SparseTensor", "RaggedTensor", "IndexedSlices", "VariableAggregation",
             "VariableSynchronization")
