"""TF's `tf.CriticalSection`: `execute(fn)` runs `fn` while holding the section, so the
executions of one section never interleave. Eagerly the section is a lock each execution
holds; while tracing, `fn`'s ops join the function's program order (stateful ops run in the
order they were traced, and each variable update holds the variable's lock)."""
from __future__ import annotations

import itertools
import threading

from ..export import tf_export

_ids = itertools.count()


@tf_export("CriticalSection")
class CriticalSection:
    """A section `execute(fn)` serializes on."""

    def __init__(self, name=None, shared_name=None, critical_section_def=None,
                 import_scope=None):
        self._name = name or f"CriticalSection_{next(_ids)}"
        self._lock = threading.Lock()
        self._holder = None   # the thread executing in the section

    @property
    def name(self) -> str:
        return self._name

    def execute(self, fn, exclusive_resource_access=True, name=None):
        """The result of `fn()`, run while this thread holds the section."""
        if not callable(fn):
            raise TypeError(f"'{type(fn).__name__}' object is not callable")
        me = threading.get_ident()
        if self._holder == me:   # the lock is not reentrant: TF refuses rather than hang
            raise ValueError("Attempting to lock a CriticalSection in which we are already "
                             "running. This is illegal and may cause deadlocks.")
        with self._lock:
            self._holder = me
            try:
                return fn()
            finally:
                self._holder = None
