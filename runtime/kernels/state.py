"""Kernels for variable ops: they read and replace `ResourceHandle.value`; an update mutates
it only where no one else holds it (see `_update`)."""
from __future__ import annotations

import sys

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


def _update(handle, delta, ufunc):
    """handle.value = ufunc(value, delta), in place when no one else can see the old value:
    the handle holds the only reference (refcount: the handle, `old`, getrefcount's argument)
    to an array that owns its writable memory, and the result has its shape and dtype. As
    TF's copy-on-read variables, a step that drops its read of the variable before the update
    (the generated plans do) updates without allocating; any other holder gets a new array."""
    with handle.lock:
        old = handle.value
        if type(old) is np.ndarray and old.base is None and old.flags.writeable and \
                sys.getrefcount(old) == 3 and np.shape(delta) in (old.shape, ()) and \
                np.result_type(old, delta) == old.dtype:
            ufunc(old, delta, out=old)
        else:
            handle.value = np.asarray(ufunc(old, delta))


@kernel("assign_add_variable")
def assign_add_variable(handle, delta):
    _check_shape(handle, delta, "assign_add_variable")
    _update(handle, delta, np.add)
    return ()


@kernel("assign_sub_variable")
def assign_sub_variable(handle, delta):
    _check_shape(handle, delta, "assign_sub_variable")
    _update(handle, delta, np.subtract)
    return ()
