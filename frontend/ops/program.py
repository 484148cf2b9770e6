"""Top-level helpers about the program rather than values: whether code runs eagerly, what is
a tensor, what is known of a value while tracing, grouping side effects. (No ops of their own;
inside a trace TF returns Operations for no_op/group, flowjit returns None: its graphs order
side effects by tokens, not by control edges.)"""
from __future__ import annotations

import numpy as np

from ..function import func_graph
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from ..eager.tensor import Tensor


@tf_export("executing_eagerly")
def executing_eagerly():
    """False while a tf.function is being traced, True otherwise."""
    return func_graph.current() is None


@tf_export("inside_function")
def inside_function():
    """True while a tf.function is being traced."""
    return func_graph.current() is not None


@tf_export("is_tensor")
def is_tensor(x):
    """True for a tensor (eager or symbolic), a Variable, or a sparse, ragged or IndexedSlices
    value."""
    from ..state.variables import Variable
    return isinstance(x, (Tensor, Variable)) or getattr(x, "_is_tensor", False)


@tf_export("is_symbolic_tensor")
def is_symbolic_tensor(tensor):
    """True for a tensor of a graph being traced."""
    return isinstance(tensor, func_graph.GraphTensor)


@tf_export("get_static_value")
def get_static_value(tensor, partial=False):
    """The NumPy value of `tensor` when it is known now, else None: an eager tensor's value;
    inside a trace, a constant's, or an integer shape value's computed from static shapes
    (TF folds those ops only, not arithmetic)."""
    if isinstance(tensor, func_graph.GraphTensor):
        node = tensor._node
        if node.op == "const":
            return np.asarray(node.attrs["value"], tensor.dtype.np)
        if tensor.dtype.is_integer:
            from ..eager.shape_args import traced_value
            known = traced_value(tensor)
            flat = known if isinstance(known, tuple) else (known,)
            if known is not None and None not in flat:
                return np.asarray(known, tensor.dtype.np)
        return None
    if isinstance(tensor, Tensor):
        return tensor.numpy()
    return convert_to_tensor(tensor).numpy()


@tf_export("no_op")
def no_op(name=None):
    """Does nothing (returns None)."""
    return None


@tf_export("group")
def group(*inputs, **kwargs):
    """Groups side effects: flowjit runs every side effect in program order already, so this
    only checks the keyword arguments TF takes and returns None."""
    unknown = set(kwargs) - {"name"}
    if unknown:
        raise ValueError(f"Unknown keyword arguments: {sorted(unknown)}")
    return None


@tf_export("identity_n")
def identity_n(input, name=None):  # noqa: A002  (TF's argument name)
    """Each tensor of the list `input` unchanged (a gradient passes through each)."""
    from .array import identity
    return [identity(t) for t in input]


class _ControlDependencies:
    """The context `control_dependencies` returns: ops built inside it run after the given
    inputs, which flowjit guarantees for every side effect already (program order)."""

    def __init__(self, control_inputs):
        self.control_inputs = control_inputs

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


@tf_export("control_dependencies")
def control_dependencies(control_inputs):
    """A context in which ops run after `control_inputs` (tensors, ops or None). flowjit
    orders every stateful op in program order, so the context only checks its argument
    (TF's eager mode ignores it, as does flowjit's)."""
    if control_inputs is None:
        return _ControlDependencies([])
    if callable(control_inputs) and not hasattr(control_inputs, "dtype"):
        raise TypeError(f"Can not convert a {type(control_inputs).__name__} into a Tensor or "
                        f"Operation.")
    try:
        inputs = list(control_inputs)
    except TypeError:
        raise TypeError(f"Control input must be an Operation, a Tensor, or IndexedSlices: "
                        f"{control_inputs!r}") from None
    return _ControlDependencies(inputs)


@tf_export("tuple")
def tensor_tuple(tensors, control_inputs=None, name=None):
    """tf.tuple: the tensors (Nones kept), available once all of them are: flowjit's values
    are, so each is passed through identity."""
    from .array import identity
    if control_inputs is not None and not isinstance(control_inputs, (list, tuple)):
        raise TypeError("control_inputs must be a list or tuple of ops or tensors")
    return [None if t is None else identity(t) for t in tensors]
