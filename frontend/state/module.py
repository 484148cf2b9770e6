"""`tf.Module`: a container whose Variables and submodules are found through its attributes.

Tracking needs no bookkeeping at assignment time: `_flatten` walks `vars(self)` when asked, in
TF's order (attributes sorted by name, nested lists/tuples/dicts in `nest` order, a module's own
leaves before those of its submodules, each object once). Checkpoints walk the same attributes
(`frontend/state/checkpoint.py`); assigning an attribute gives a pending restore the chance to fill
Variables created after `restore()` (TF's deferred restoration).
"""
from __future__ import annotations

import functools
import re

from ..function import func_graph
from .variables import Variable

# Called as hook(module, attribute_name, value) after every attribute assignment while a
# checkpoint restore is pending (set by frontend/state/checkpoint.py), else None.
_setattr_hook = None


def _camel_to_snake(name: str) -> str:
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2",
                  re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)).lower()


class _ModuleScope(func_graph.name_scope):
    """The module's name scope; as in TF its `name` ends with '/'."""

    @property
    def name(self):
        return self._name + "/"


class Module:
    """TF's `tf.Module(name=None)`."""

    def __init__(self, name=None):
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"'{name}' is not a valid module name. Module names must be "
                             f"valid Python identifiers (e.g. a valid class name).")
        self._name = name
        self._scope = _ModuleScope(name)

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if _setattr_hook is not None:
            _setattr_hook(self, name, value)

    @property
    def name(self) -> str:
        return self._name

    @property
    def name_scope(self):
        return self._scope

    @property
    def variables(self) -> tuple:
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self) -> tuple:
        return tuple(self._flatten(predicate=_is_trainable))

    @property
    def non_trainable_variables(self) -> tuple:
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and not v.trainable))

    @property
    def submodules(self) -> tuple:
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(self, recursive=True, predicate=None, attribute_traversal_key=None,
                 with_path=False, expand_composites=False):
        """Leaves reachable from this module's attributes that satisfy `predicate`, with their
        attribute paths (`('layers', 0, 'w')`) when `with_path`."""
        return _flatten_module(self, recursive, predicate or (lambda _: True),
                               attribute_traversal_key, with_path, (), {id(self)}, [])

    @classmethod
    def with_name_scope(cls, method):
        """Decorator: run `method` inside the module's name scope."""
        @functools.wraps(method)
        def wrapped(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        return wrapped

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__qualname__} object at {id(self):#x}>"


def _is_variable(x) -> bool:
    return isinstance(x, Variable)


def _is_trainable(x) -> bool:
    return isinstance(x, Variable) and x.trainable


def _is_module(x) -> bool:
    return isinstance(x, Module)


def leaves_with_paths(value, path=()):
    """(path, leaf) pairs of a nested list/tuple/dict (dict keys sorted as `nest` does)."""
    if isinstance(value, dict):
        for k in sorted(value, key=repr):
            yield from leaves_with_paths(value[k], path + (k,))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from leaves_with_paths(v, path + (i,))
    else:
        yield path, value


def _flatten_module(module, recursive, predicate, key, with_path, prefix, seen, stack):
    if id(module) in stack:   # a cycle: list its leaves, do not descend again
        recursive = False
    submodules = []
    attrs = vars(module)
    for name in sorted(attrs, key=key):
        for path, leaf in leaves_with_paths(attrs[name], (name,)):
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (prefix + path, leaf) if with_path else leaf
            if recursive and isinstance(leaf, Module):
                submodules.append((prefix + path, leaf))
    stack.append(id(module))
    for path, sub in submodules:
        yield from _flatten_module(sub, recursive, predicate, key, with_path, path, seen, stack)
    stack.pop()
