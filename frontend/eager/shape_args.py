"""Shape-like op arguments that may be tensors computed in the graph (`tf.shape(x)[0]`, ...).

TF takes shapes, sizes and bounds as tensors. An argument's value is resolved as far as it is
known while the op is built: eager tensors and constants fully, graph arithmetic on static
shapes by partial evaluation (`ir.shape_values`). What stays unknown is None in the op's
attribute, and the tensor itself becomes a trailing operand that supplies the value at run
time (`ir.registry.op`'s `tensor_attrs`). Python values never touch this module's slow path.
"""
from __future__ import annotations

from ...ir import dtypes as D
from ...ir import errors
from ...ir.registry import OPS
from ...ir.shape_values import partial_value
from .dispatch import _is_tensor_like, _nested_has_tensor, apply, convert_to_tensor
from .tensor import Tensor


def _captured_value(node):
    """A placeholder's value when it captures an eager tensor (a constant made outside)."""
    cap = node.attrs.get("capture")
    if isinstance(cap, Tensor) and cap._value is not None:
        v = cap.numpy().tolist()
        return tuple(v) if isinstance(v, list) else v
    return None


def _error(t, traced_class, opname, message):
    """TF's class for a bad shape argument: `traced_class` while building a graph (TF's
    op-construction check), InvalidArgumentError for an eager tensor (TF's kernel check)."""
    text = f"{opname}: {message}"
    if t._value is not None:
        return errors.InvalidArgumentError(None, opname, text)
    return traced_class(text)


def traced_value(t):
    """What is known of integer tensor `t`'s value now: an int or tuple (entries None where
    unknown), or None (nothing known, not even the length)."""
    if t._value is not None:
        v = t.numpy().tolist()
        return tuple(v) if isinstance(v, list) else v
    node = getattr(t, "_node", None)
    if node is None:
        return None
    return partial_value(node, getattr(t, "_index", 0), _captured_value)


def is_tensor_arg(value) -> bool:
    """Whether a shape-like argument holds a tensor (alone or inside a list)."""
    return _is_tensor_like(value) or (isinstance(value, (list, tuple))
                                      and _nested_has_tensor(value))


def tensor_arg(value, opname: str, what: str, scalar=False, dtype=None, any_length=False):
    """(static value, run-time operand) of a shape-like argument holding tensors: the value as
    far as it is known (a tuple of int-or-None, or for `scalar` an int-or-None) and, when part
    of it is unknown, the integer tensor that holds it (else None). With `any_length` a vector
    whose length is unknown while tracing is None (the op's result has an unknown rank)."""
    t = convert_to_tensor(value, dtype_hint=dtype or D.int32)
    if not t.dtype.is_integer:
        raise _error(t, TypeError, opname, f"`{what}` has DataType {t.dtype.name} not in list "
                                           f"of allowed values: int32, int64")
    rank = t.shape.rank
    if rank is None or rank > 1 or (scalar and rank == 1 and t.shape[0] != 1):
        raise _error(t, ValueError, opname, f"`{what}` must be rank {0 if scalar else 1} but "
                                            f"is rank {rank}, shape {t.shape}")
    v = traced_value(t)
    if scalar and isinstance(v, tuple):
        v = v[0]
    elif not scalar and not isinstance(v, tuple):
        if rank == 1 and any_length:
            return None, t
        if rank == 1:
            raise NotImplementedError(
                f"{opname}: `{what}` has a length unknown while tracing ({t!r}); flowjit needs "
                f"its length to know the result's rank")
        v = (v,)
    partial = v is None or (isinstance(v, tuple) and None in v)
    return v, (t if partial else None)


def apply_tensor_attrs(opname: str, inputs, attrs: dict, operands: dict):
    """Apply `opname`; `operands` maps each attribute whose value is partial to the tensor
    holding it (None when known), appended after `inputs` in declaration order."""
    for v in operands.values():
        if v is not None:
            extra = tuple(operands[a] for a in OPS[opname].attr_operands(attrs))
            return apply(opname, tuple(inputs) + extra, attrs)
    return apply(opname, inputs, attrs)
