"""Kernels for variable ops: they read and replace `ResourceHandle.value` (never mutate)."""
from __future__ import annotations

import numpy as np

from . import kernel


@kernel("read_variable")
def read_variable(handle):
    return handle.value


@kernel("assign_variable")
def assign_variable(handle, value):
    handle.value = value
    return ()


@kernel("assign_add_variable")
def assign_add_variable(handle, delta):
    handle.value = np.asarray(np.add(handle.value, delta))
    return ()


@kernel("assign_sub_variable")
def assign_sub_variable(handle, delta):
    handle.value = np.asarray(np.subtract(handle.value, delta))
    return ()
