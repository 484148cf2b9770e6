"""TF's `tf.register_tensor_conversion_function`: user types that `convert_to_tensor` (and
so every op) accepts, each converted by the functions registered for its type or a base type,
lowest priority first; a function returning `NotImplemented` passes to the next."""
from __future__ import annotations

import numbers

import numpy as np

from ..export import tf_export

# (priority, registration order, base_type, conversion_func), kept sorted.
_REGISTERED: list = []
# Types TF converts itself: registering for them is refused.
_BUILTIN = (numbers.Number, np.ndarray, np.generic)


@tf_export("register_tensor_conversion_function")
def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """Register `conversion_func(value, dtype=None, name=None, as_ref=False)` for instances
    of `base_type` (a type or a tuple of types); it returns a Tensor or `NotImplemented`."""
    types = base_type if isinstance(base_type, tuple) else (base_type,)
    if not all(isinstance(t, type) for t in types):
        raise TypeError("Argument `base_type` must be a type or a tuple of types. "
                        f"Obtained: {base_type}")
    if any(issubclass(t, _BUILTIN) for t in types):
        raise TypeError("Cannot register conversions for Python numeric types and NumPy "
                        "scalars and arrays.")
    if not callable(conversion_func):
        raise TypeError("Argument `conversion_func` must be callable. Received "
                        f"{conversion_func}.")
    _REGISTERED.append((priority, len(_REGISTERED), types, conversion_func))
    _REGISTERED.sort(key=lambda r: r[:2])


def is_registered(value) -> bool:
    return bool(_REGISTERED) and any(isinstance(value, r[2]) for r in _REGISTERED)


def convert_registered(value, dtype, tensor_class):
    """`value` converted by its registered functions (None when none is registered for its
    type); `dtype` is a DType or None, `tensor_class` what counts as a Tensor."""
    for _, _, types, fn in _REGISTERED:
        if not isinstance(value, types):
            continue
        out = fn(value, dtype=dtype, name=None, as_ref=False)
        if out is NotImplemented:
            continue
        if not isinstance(out, tensor_class):
            raise RuntimeError(f"Conversion function {fn!r} for type {type(value)} returned "
                               f"non-Tensor: {out!r}")
        if dtype is not None and out.dtype is not dtype:
            raise RuntimeError(f"Conversion function {fn!r} for type {type(value)} returned "
                               f"incompatible dtype: requested = {dtype.name}, actual = "
                               f"{out.dtype.name}")
        return out
    return None
