"""TF's `tf.variable_creator_scope`: creators that every `tf.Variable(...)` in the scope
calls, innermost first, as `creator(next_creator, **kwargs)` with all of the constructor's
arguments; a creator may change them, call `next_creator(**kwargs)` or return anything else.
Subclasses of Variable are built directly, as TF's."""
from __future__ import annotations

import contextlib
import functools
import inspect
import threading

from ..export import tf_export

_STACKS = threading.local()   # per thread, as TF's creator stack


def _creators() -> list:
    stack = getattr(_STACKS, "creators", None)
    if stack is None:
        stack = _STACKS.creators = []
    return stack


@tf_export("variable_creator_scope")
@contextlib.contextmanager
def variable_creator_scope(variable_creator):
    """Within the scope, `tf.Variable(...)` calls `variable_creator(next_creator, **kwargs)`."""
    stack = _creators()
    stack.append(variable_creator)
    try:
        yield
    finally:
        stack.pop()


class CreatorScopedClass(type):
    """The metaclass of Variable: a call of the class itself goes through the creators."""

    def __call__(cls, *args, **kwargs):
        stack = getattr(_STACKS, "creators", None)
        if not stack or not cls.__dict__.get("_creator_root"):
            return super().__call__(*args, **kwargs)
        bound = inspect.signature(cls.__init__).bind(None, *args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        del arguments[next(iter(arguments))]   # self

        def build(**kw):
            return type.__call__(cls, **kw)
        for creator in stack:   # the outermost wraps the constructor, the innermost runs first
            build = functools.partial(creator, build)
        return build(**arguments)
