"""Trace types: the cache key of a call, as TF's tf.function computes it.

Tensors and NumPy arrays are keyed by (dtype, shape); Python scalars, strings and None by
value; list/tuple/dict/namedtuple by structure and leaves; Variables and other objects by
identity. One walk of the arguments builds the key and collects the tensors to feed.
"""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...ir.shapes import TensorShape
from ..composite.base import CompositeKind, CompositeSpec
from ..eager.dispatch import convert_to_tensor
from .specs import TensorSpec
from .type_spec import NoneTensorSpec
from ..eager.tensor import Tensor

TENSOR = "T"
USER = "U"   # an object's own trace type, from its `__tf_tracing_type__`
LITERAL = "L"  # None, bool, int, float, str, bytes: keyed by value, as TF's Literal
_NAN = ("nan",)  # TF matches NaN literals against each other though Python does not


class TraceType:
    """TF's `tf.types.experimental.TraceType`: a user class returns one from
    `__tf_tracing_type__(context)` to choose how its instances key the trace cache. Subclasses
    define `is_subtype_of`, `most_specific_common_supertype`, `placeholder_value` (what the
    traced body receives), `__eq__` and `__hash__`."""

    def is_subtype_of(self, other) -> bool:
        raise NotImplementedError

    def most_specific_common_supertype(self, others):
        raise NotImplementedError

    def placeholder_value(self, placeholder_context=None):
        raise NotImplementedError

    def __eq__(self, other):
        raise NotImplementedError

    def __hash__(self):
        raise NotImplementedError


class TracingContext:
    """The `context` passed to `__tf_tracing_type__` (TF's TracingContext)."""


def key_and_flat(value, flat: list):
    """The hashable trace type of `value`; tensors found are appended to `flat`.

    Leaves: `("T", dtype, shape)`, `("L", value)` for a Python literal (compared by value:
    `2`, `2.0` and `True == 1` share a trace, as in TF), `(numpy scalar type, value)`,
    `("V", id)`, `("obj", id)`.
    Containers: `(kind, children)` where kind is list/tuple/a namedtuple class,
    `(dict, keys)` for dicts, or a `CompositeKind` for a composite tensor (its components are
    the children)."""
    if isinstance(value, Tensor):
        flat.append(value)
        shape = value._tt.shape if value._value is None else tuple(value._value.shape)
        layout = value._layout
        return (TENSOR, value._dtype, shape) if layout is None else \
            (TENSOR, value._dtype, shape, layout)
    if isinstance(value, np.ndarray):
        dt = D.from_numpy(value.dtype)
        t = Tensor._wrap(value, dt) if dt is not D.string else convert_to_tensor(value)
        flat.append(t)
        return (TENSOR, t._dtype, value.shape)
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return (LITERAL, _NAN if value != value else value)
    if isinstance(value, (tuple, list)):
        kind = type(value) if hasattr(value, "_fields") else type(value) is list and list or tuple
        return (kind, tuple(key_and_flat(v, flat) for v in value))
    if isinstance(value, dict):
        keys = tuple(sorted(value, key=repr))
        return ((dict, keys), tuple(key_and_flat(value[k], flat) for k in keys))
    if getattr(value, "_tf_composite", False):
        # keyed by its spec, as TF: a SparseTensor's entry count or a ragged tensor's row
        # lengths do not retrace; its dense shape (or number of rows) does
        parts = []
        for c, spec in zip(value._components(), value._type_spec._component_specs()):
            flat.append(c)
            parts.append((TENSOR, c._dtype, spec.shape.as_tuple()))
        return (CompositeKind(value._type_spec), tuple(parts))
    if hasattr(value, "_handle") and hasattr(value, "assign"):  # a Variable: by identity
        return ("V", id(value))
    if isinstance(value, TensorSpec):
        raise TypeError("TensorSpec arguments are only accepted by get_concrete_function")
    if isinstance(value, np.generic):
        return (type(value), value.item())
    tracing_type = getattr(value, "__tf_tracing_type__", None)
    if tracing_type is not None:
        return (USER, tracing_type(_CONTEXT))
    return ("obj", id(value))


_CONTEXT = TracingContext()


def spec_key(spec) -> tuple:
    """The trace type a TensorSpec (or nested specs, or Python values) stands for."""
    if isinstance(spec, TensorSpec):
        return (TENSOR, spec.dtype, spec.shape.as_tuple())
    if isinstance(spec, CompositeSpec):
        return (CompositeKind(spec), tuple(spec_key(c) for c in spec._component_specs()))
    if isinstance(spec, NoneTensorSpec):
        return (LITERAL, None)
    if isinstance(spec, (tuple, list)):
        kind = type(spec) if hasattr(spec, "_fields") else type(spec) is list and list or tuple
        return (kind, tuple(spec_key(s) for s in spec))
    if isinstance(spec, dict):
        keys = tuple(sorted(spec, key=repr))
        return ((dict, keys), tuple(spec_key(spec[k]) for k in keys))
    return key_and_flat(spec, [])


def is_container(k) -> bool:
    return len(k) == 2 and k[0] not in (TENSOR, "V", "obj", USER, LITERAL) and \
        isinstance(k[1], tuple)


def accepts(general, specific) -> bool:
    """True if a trace made for `general` can run a call of type `specific` (None dims and
    unknown rank accept any size)."""
    if general == specific:
        return True
    if general[0] == TENSOR:
        if specific[0] != TENSOR or general[1] is not specific[1] or \
                general[3:] != specific[3:]:   # a DTensor's layout
            return False
        g, s = general[2], specific[2]
        if g is None:
            return True
        if s is None or len(g) != len(s):
            return False
        return all(a is None or a == b for a, b in zip(g, s))
    if is_container(general) and is_container(specific) and general[0] == specific[0] \
            and len(general[1]) == len(specific[1]):
        return all(accepts(a, b) for a, b in zip(general[1], specific[1]))
    if general[0] == USER:
        return specific[0] == USER and bool(specific[1].is_subtype_of(general[1]))
    return False


def literal_value(key):
    """The Python value a literal trace type stands for (its first caller's value)."""
    return float("nan") if key[1] is _NAN else key[1]


def without_shapes(key):
    """`key` with every tensor's shape unknown (what a ConcreteFunction checks on a call)."""
    if key[0] == TENSOR:
        return key[:2] + (None,) + key[3:]
    if is_container(key):
        return (key[0], tuple(without_shapes(c) for c in key[1]))
    return key


def relax(old, new):
    """The most specific trace type accepting both (TF's reduce_retracing), or None."""
    if old == new:
        return old
    if old[0] == TENSOR:
        if new[0] != TENSOR or old[1] is not new[1] or old[3:] != new[3:]:
            return None
        if old[2] is None or new[2] is None:
            return (TENSOR, old[1], None) + old[3:]
        shape = TensorShape.from_tuple(old[2]).most_specific_compatible_shape(
            TensorShape.from_tuple(new[2]))
        return (TENSOR, old[1], shape.as_tuple()) + old[3:]
    if is_container(old) and is_container(new) and old[0] == new[0] \
            and len(old[1]) == len(new[1]):
        parts = tuple(relax(a, b) for a, b in zip(old[1], new[1]))
        return None if None in parts else (old[0], parts)
    return None


def describe(key) -> str:
    """A trace type as a user reads it."""
    if key[0] == TENSOR:
        shape = TensorShape.from_tuple(key[2]) if key[2] is not None else TensorShape(None)
        layout = f" with layout {key[3].sharding_specs}" if len(key) > 3 else ""
        return repr(TensorSpec(shape, key[1])) + layout
    if key[0] == "V":
        return f"Variable(id={key[1]})"
    if key[0] == "obj":
        return f"object(id={key[1]})"
    if key[0] == USER:
        return repr(key[1])
    if isinstance(key[0], CompositeKind):
        return repr(key[0])
    if key[0] == LITERAL:
        value = literal_value(key)
        return f"{type(value).__name__}({value!r})"
    if is_container(key):
        kind = key[0]
        if isinstance(kind, tuple):  # dict
            return "{" + ", ".join(f"{k!r}: {describe(c)}" for k, c in zip(kind[1], key[1])) + "}"
        inner = ", ".join(describe(c) for c in key[1])
        return f"[{inner}]" if kind is list else f"{kind.__name__}({inner})"
    return f"{key[0].__name__}({key[1]!r})"


def first_difference(old, new, path=""):
    """(path, old part, new part) of the first place two trace types differ, else None."""
    if old == new:
        return None
    if is_container(old) and is_container(new) and old[0] == new[0] \
            and len(old[1]) == len(new[1]):
        names = old[0][1] if isinstance(old[0], tuple) else range(len(old[1]))
        for n, a, b in zip(names, old[1], new[1]):
            d = first_difference(a, b, f"{path}[{n!r}]")
            if d is not None:
                return d
    return (path, old, new)


def count_differences(old, new) -> int:
    """How many leaves of two trace types differ (a structure change counts as one)."""
    if old == new:
        return 0
    if is_container(old) and is_container(new) and old[0] == new[0] \
            and len(old[1]) == len(new[1]):
        return sum(count_differences(a, b) for a, b in zip(old[1], new[1]))
    return 1
