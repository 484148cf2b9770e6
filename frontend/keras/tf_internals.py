"""The `tensorflow` Keras sees: flowjit's TF API, plus the TF internals Keras's TensorFlow
backend imports by private path (`tensorflow.python.eager.context`, `tf.__internal__`, ...).

A name flowjit provides always wins; the stand-ins here only fill what flowjit has no public
name for, so they disappear as flowjit grows the real thing.
"""
from __future__ import annotations

import types

import flowjit

from . import tf_standins as _standins


class _Facade(types.ModuleType):
    """A namespace: its own attributes first, then the flowjit object it stands for."""

    def __init__(self, name, target=None, **attrs):
        super().__init__(name)
        self.__dict__["_target"] = target
        self.__dict__.update(attrs)

    def __getattr__(self, name):
        target = self.__dict__["_target"]
        if target is not None and not name.startswith("__"):
            try:
                return getattr(target, name)
            except AttributeError:
                pass
        raise AttributeError(f"flowjit provides no {self.__name__}.{name} for Keras")


def _private_paths():
    """The modules Keras imports from TF's private tree, by their path under `tensorflow.`."""
    return {
        "python.eager.context": _standins.context_module(),
        "python.trackable.data_structures": _standins.data_structures_module(),
        "python.framework.type_spec_registry": _standins.type_spec_registry_module(),
        "python.framework.config": _standins.framework_config_module(),
        "python.ops.math_ops": _standins.math_ops_module(),
        "python.ops.linalg.sparse.sparse_csr_matrix_ops": _standins.unavailable_module(
            "tensorflow.python.ops.linalg.sparse.sparse_csr_matrix_ops"),
        "compiler.tf2xla.python.xla": _standins.xla_module(),
        "compat.v1": _standins.compat_v1_module(),
    }


def _root():
    # Fills: names flowjit's top level lacks but Keras's TF backend reaches for.
    fills = {name: getattr(_standins, name) for name in _standins.TOP_LEVEL
             if not hasattr(flowjit, name)}
    root = _Facade("tensorflow", flowjit, __version__="2.21.0",
                   __internal__=_standins.internal_namespace(),
                   is_tensor=_standins.is_tensor,
                   nn=_Facade("tensorflow.nn", flowjit.nn, **{
                       name: getattr(_standins, name) for name in _standins.NN
                       if not hasattr(flowjit.nn, name)}),
                   random=_Facade("tensorflow.random", flowjit.random, **{
                       name: getattr(_standins, name) for name in _standins.RANDOM
                       if not hasattr(flowjit.random, name)}),
                   distribute=_Facade("tensorflow.distribute", flowjit.distribute,
                                      **_standins.distribute_names()),
                   **fills)
    for path, module in _private_paths().items():
        parent = root
        parts = path.split(".")
        for i, part in enumerate(parts[:-1]):
            if part not in parent.__dict__:   # in front of flowjit's namespace, if any
                target = getattr(parent.__dict__["_target"], part, None)
                setattr(parent, part, _Facade("tensorflow." + ".".join(parts[:i + 1]), target))
            parent = parent.__dict__[part]
        setattr(parent, parts[-1], module)
    return root


_ROOT = None


def resolve(name):
    """The object `import <name>` gives a Keras module (`tensorflow`, `tensorflow.a.b`)."""
    global _ROOT
    if _ROOT is None:
        _ROOT = _root()
    obj = _ROOT
    for part in name.split(".")[1:]:
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ModuleNotFoundError(f"flowjit provides no module {name!r} for Keras",
                                      name=name) from None
    return obj
