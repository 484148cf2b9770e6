"""`tf.profiler.experimental`: profiles written by jax's profiler (runtime/profiler.py) in
TensorBoard's profile-plugin layout, with flowjit's phases (trace, import, passes, lowering,
XLA compile, execute) as named ranges beside XLA's own events."""
from __future__ import annotations

import collections
import os

from ..ir.errors import AlreadyExistsError, UnavailableError
from ..runtime import profiler as _runtime
from .export import tf_export

ProfilerOptions = tf_export("profiler.experimental.ProfilerOptions")(collections.namedtuple(
    "ProfilerOptions", ["host_tracer_level", "python_tracer_level", "device_tracer_level",
                        "delay_ms"], defaults=[2, 0, 1, None]))


@tf_export("profiler.experimental.start")
def start(logdir, options=None):
    """Start profiling into `logdir` (TF's error if a profile is already being taken)."""
    try:
        _runtime.start(os.fspath(logdir))
    except RuntimeError:
        raise AlreadyExistsError(None, None, "Another profiler is running.") from None


@tf_export("profiler.experimental.stop")
def stop(save=True):
    """Stop profiling and write the profile (TF's error if none is being taken)."""
    try:
        _runtime.stop()
    except RuntimeError:
        raise UnavailableError(None, None, "Cannot export profiling results. No profiler "
                               "is running.") from None


@tf_export("profiler.experimental.Profile")
class Profile:
    """`with tf.profiler.experimental.Profile(logdir):` profiles the block."""

    def __init__(self, logdir, options=None):
        self._logdir = logdir
        self._options = options

    def __enter__(self):
        start(self._logdir, self._options)
        return self

    def __exit__(self, *exc):
        stop()
        return False


@tf_export("profiler.experimental.Trace")
class Trace:
    """A named range in the profile (`step_num=` makes it a training step, as TF's)."""

    def __init__(self, name, **kwargs):
        self._name = name
        self._kwargs = kwargs
        self._context = None

    def __enter__(self):
        kwargs = {k: v for k, v in self._kwargs.items() if k != "_r"}
        self._context = _runtime.annotation(self._name, **kwargs)
        self._context.__enter__()
        return self

    def __exit__(self, *exc):
        return self._context.__exit__(*exc)
