"""tf.debugging's settings and type checks, and small tf utilities over Python state:
numeric checking (enable/disable_check_numerics), traceback filtering, device-placement
logging, assert_same_float_dtype, assert_proper_iterable, get_logger and
get_current_name_scope."""
from __future__ import annotations

import logging

from ...ir import dtypes as D
from ..export import tf_export
from ..function.context import context

# The process-wide switches TF keeps in its C++ runtime.
_SETTINGS = {"check_numerics": False, "traceback_filtering": True, "log_placement": False}


@tf_export("debugging.enable_check_numerics")
def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    """Records that numeric checking is on (TF then raises on the first NaN/Inf an op
    makes; flowjit keeps the setting for code that reads it: tf.debugging.check_numerics
    checks a tensor)."""
    _SETTINGS["check_numerics"] = True


@tf_export("debugging.disable_check_numerics")
def disable_check_numerics():
    """Turns numeric checking off again."""
    _SETTINGS["check_numerics"] = False


@tf_export("debugging.enable_traceback_filtering")
def enable_traceback_filtering():
    _SETTINGS["traceback_filtering"] = True


@tf_export("debugging.disable_traceback_filtering")
def disable_traceback_filtering():
    _SETTINGS["traceback_filtering"] = False


@tf_export("debugging.is_traceback_filtering_enabled")
def is_traceback_filtering_enabled():
    """Whether tracebacks hide the framework's frames (TF's default: True)."""
    return _SETTINGS["traceback_filtering"]


@tf_export("debugging.set_log_device_placement")
def set_log_device_placement(enabled):
    _SETTINGS["log_placement"] = bool(enabled)


@tf_export("debugging.get_log_device_placement")
def get_log_device_placement():
    return _SETTINGS["log_placement"]


@tf_export("debugging.assert_same_float_dtype")
def assert_same_float_dtype(tensors=None, dtype=None):
    """The common floating dtype of `tensors` (and `dtype`), float32 when there is none;
    ValueError when they differ or are not floating."""
    if tensors:
        dtype = _common_dtype(tensors, dtype)
    if not dtype:
        return D.float32
    dtype = D.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


def _common_dtype(tensors, dtype):
    expected = D.as_dtype(dtype) if dtype else None
    for t in tensors:
        if t is None:
            continue
        if expected is None:
            expected = t.dtype
        elif t.dtype != expected:
            raise ValueError(f"Tensor conversion requested dtype {expected.name} for Tensor "
                             f"with dtype {t.dtype.name}: {t!r}")
    return expected


@tf_export("debugging.assert_proper_iterable")
def assert_proper_iterable(values):
    """TypeError unless `values` is iterable and not a tensor, an array or a string."""
    if hasattr(values, "dtype") or isinstance(values, (str, bytes)):
        raise TypeError(f"Expected argument \"values\" to be iterable.  Found: "
                        f"{type(values)}")
    if not hasattr(values, "__iter__"):
        raise TypeError(f"Expected argument \"values\" to be iterable.  Found: "
                        f"{type(values)}")


@tf_export("get_logger")
def get_logger():
    """TF's Python logger (the "tensorflow" logging.Logger)."""
    return logging.getLogger("tensorflow")


@tf_export("get_current_name_scope")
def get_current_name_scope():
    """The name scope in effect ("" at the root)."""
    return "/".join(context().name_scopes)
