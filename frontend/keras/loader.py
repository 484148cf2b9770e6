"""Loads the installed Keras 3 so that its `tensorflow` is flowjit.

Keras's backend list is closed (`keras/src/backend/__init__.py` picks one of its own backends by
name), so flowjit does not add a backend: Keras runs its own TensorFlow backend, and every
`import tensorflow` / `from tensorflow.x import y` in a Keras module resolves to flowjit's TF
API. Each Keras module is executed with a module-level `__builtins__` whose `__import__` maps
those names (CPython looks `__import__` up in the frame's builtins, and a function keeps the
builtins of the globals it was defined in), so `sys.modules["tensorflow"]` is never touched and
a real TensorFlow installed next to flowjit keeps its meaning for everyone else.
"""
from __future__ import annotations

import builtins
import importlib
import importlib.abc
import importlib.machinery
import os
import sys
import threading

_LOCK = threading.Lock()
_KERAS = None


class KerasAlreadyImportedError(ImportError):
    """Keras was imported before `flowjit.keras`, bound to another backend."""


def _is_keras_module(name):
    return name == "keras" or name.startswith("keras.")


def _flowjit_import(name, globals=None, locals=None, fromlist=(), level=0):
    if level == 0 and (name == "tensorflow" or name.startswith("tensorflow.")):
        from . import tf_internals
        target = tf_internals.resolve(name)
        return target if fromlist else tf_internals.resolve("tensorflow")
    return builtins.__import__(name, globals, locals, fromlist, level)


_KERAS_BUILTINS = dict(vars(builtins), __import__=_flowjit_import)


class _FlowjitBoundLoader(importlib.abc.Loader):
    """Runs a Keras module with builtins whose `__import__` resolves `tensorflow` to flowjit."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        module.__dict__["__builtins__"] = _KERAS_BUILTINS
        self._loader.exec_module(module)
        bind = _AFTER_LOAD.get(module.__name__)
        if bind is not None:
            bind(module)

    def __getattr__(self, name):  # get_source, get_filename, is_package, ... for tools
        return getattr(self._loader, name)


class _KerasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if not _is_keras_module(fullname):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _FlowjitBoundLoader(spec.loader)
        return spec


def _bind_lazy_modules(module_utils):
    """Keras reaches TF lazily through `LazyModule("tensorflow")` (importlib, not `import`)."""
    from . import tf_internals
    module_utils.tensorflow.module = tf_internals.resolve("tensorflow")
    module_utils.tensorflow._available = True
    # flowjit has no remote file systems; Keras then uses `os` for local paths (and never
    # imports the real `tensorflow.io.gfile`)
    module_utils.gfile._available = False


def _accepting(module, name, classes):
    """Keras's test `module.<name>(x)`, which recognizes TF's classes by their module path,
    made true for instances of flowjit's `classes()` as well."""
    keras_test = getattr(module, name)

    def test(x):
        return isinstance(x, classes()) or keras_test(x)
    setattr(module, name, test)


def _datasets():
    from flowjit.frontend.data.dataset import Dataset
    return (Dataset,)


def _sparse():
    from flowjit.frontend.composite.sparse_tensor import SparseTensor
    return (SparseTensor,)


def _ragged():
    from flowjit.frontend.composite.ragged_tensor import RaggedTensor
    return (RaggedTensor,)


def _recognize_flowjit_datasets(module):
    _accepting(module, "is_tf_dataset", _datasets)


def _recognize_flowjit_composites(module):
    """fit's data adapters take flowjit's SparseTensor and RaggedTensor as TF's."""
    _accepting(module, "is_tensorflow_sparse", _sparse)
    _accepting(module, "is_tensorflow_ragged", _ragged)
    _accepting(module, "is_tensorflow_tensor", lambda: _sparse() + _ragged())


# Keras modules that need flowjit bound into them as soon as they have run.
_AFTER_LOAD = {"keras.src.utils.module_utils": _bind_lazy_modules,
               "keras.src.trainers.data_adapters": _recognize_flowjit_datasets,
               "keras.src.utils.dataset_utils": _recognize_flowjit_datasets,
               "keras.src.trainers.data_adapters.data_adapter_utils":
                   _recognize_flowjit_composites}


def load_keras():
    """The Keras 3 package bound to flowjit, imported on first use."""
    global _KERAS
    with _LOCK:
        if _KERAS is not None:
            return _KERAS
        if "keras.src" in sys.modules:   # what every import of Keras loads
            raise KerasAlreadyImportedError(
                "Keras was imported before flowjit.keras (bound to "
                f"{_backend_of(sys.modules.get('keras.src.backend.config'))}); Keras is one "
                "per process, so import flowjit.keras (or use tf.keras) before anything "
                "imports keras.")
        _forget_partial_imports()
        finder = _KerasFinder()
        sys.meta_path.insert(0, finder)
        saved_backend = os.environ.get("KERAS_BACKEND")
        os.environ["KERAS_BACKEND"] = "tensorflow"
        try:
            keras = importlib.import_module("keras")
        except BaseException:
            sys.meta_path.remove(finder)
            for name in [n for n in sys.modules if _is_keras_module(n)]:
                del sys.modules[name]
            raise
        finally:
            if saved_backend is None:
                del os.environ["KERAS_BACKEND"]
            else:
                os.environ["KERAS_BACKEND"] = saved_backend
        _KERAS = keras
        return keras


def _forget_partial_imports():
    """Drops the Keras modules a failed import left behind (a plain `import keras` without
    TensorFlow fails halfway), so that loading runs each module again, bound to flowjit."""
    for name in [n for n in sys.modules if _is_keras_module(n)]:
        spec = getattr(sys.modules[name], "__spec__", None)
        if not isinstance(getattr(spec, "loader", None), _FlowjitBoundLoader):
            del sys.modules[name]


def _backend_of(config):
    return f"its {config.backend()!r} backend" if config is not None else "another backend"
