"""TF's host queries: `tf.timestamp` (the host clock, read each time the op runs) and
`tf.check_pinned` (whether a tensor lives in CUDA-pinned host memory)."""
from __future__ import annotations

import time

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from .script import numpy_function


def _now():
    return np.float64(time.time())


@tf_export("timestamp")
def timestamp(name=None):
    """Seconds since the epoch as a float64 scalar, read when the op runs (a stateful host
    call, so a tf.function reads the clock on every call and in program order)."""
    return numpy_function(_now, [], D.float64, stateful=True)


@tf_export("check_pinned")
def check_pinned(tensor, name=None):
    """TF checks that `tensor` is in CUDA-pinned host memory; flowjit's host buffers are
    NumPy arrays, never pinned for CUDA, so it refuses as TF built without CUDA does."""
    convert_to_tensor(tensor)
    raise errors.FailedPreconditionError(None, "CheckPinned", "to check pinnedness, must be "
                                                              "built with `--config=cuda`")
