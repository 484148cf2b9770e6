"""Kernels for variable ops: they read and replace `ResourceHandle.value` (never mutate)."""
from __future__ import annotations

import numpy as np

from ...ir.errors import InvalidArgumentError
from . import kernel


def _check_shape(handle, value, opname: str):
    """A value of another shape never replaces a variable's value (TF refuses it at run time:
    with `None` dims in a signature, inference could not)."""
    shape = np.shape(value)
    if shape == np.shape(handle.value) or handle.shape.is_compatible_with(shape):
        return
    have = list(np.shape(handle.value))
    msg = (f"Trying to assign to variable '{handle.name}' with tensor with wrong shape. "
           f"Expected {have} got {list(shape)}") if opname == "assign_variable" else (
        f"Cannot update variable '{handle.name}' with shape {have} using a Tensor with shape "
        f"{list(shape)}, shapes must be equal.")
    raise InvalidArgumentError(None, opname, msg)


@kernel("read_variable")
def read_variable(handle):
    with handle.lock:   # not while an XLA call in another thread donates the buffer
        return handle.value


@kernel("assign_variable")
def assign_variable(handle, value):
    _check_shape(handle, value, "assign_variable")
    with handle.lock:
        handle.value = value
    return ()


@kernel("assign_add_variable")
def assign_add_variable(handle, delta):
    _check_shape(handle, delta, "assign_add_variable")
    with handle.lock:
        handle.value = np.asarray(np.add(handle.value, delta))
    return ()


@kernel("assign_sub_variable")
def assign_sub_variable(handle, delta):
    _check_shape(handle, delta, "assign_sub_variable")
    with handle.lock:
        handle.value = np.asarray(np.subtract(handle.value, delta))
    return ()
