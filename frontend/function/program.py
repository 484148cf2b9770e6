"""`Program`: what is compiled from one trace and how it is called (TF's AtomicFunction).

A ConcreteFunction is the record of a trace; its Program owns everything built from it: the
df module before and after the pass pipeline, and the backend's executables (an executor
Plan, XLA executables per concrete shape, SPMD or replica programs), cached under the
backend's key. The backend (backends.py) decides the key, compiles and calls.
"""
from __future__ import annotations

import collections
import functools
from typing import Hashable, Protocol

from .context import COMPILE_LOCK

MAX_EXECUTABLES = 64      # executables kept per Program (LRU)


class Backend(Protocol):
    """How a Program's executables are keyed, built and called."""

    def key(self, program: "Program", values) -> Hashable:
        """The cache key of the executable for these raw argument values (the call's own
        followed by the captures')."""

    def compile(self, program: "Program", values):
        """A new executable for these values (COMPILE_LOCK held)."""

    def call(self, program: "Program", flat):
        """Run on the call's flat tensor arguments; returns the traced output structure."""

    lowers_to_xla: bool    # its executables are XLA's (the compiler IR's XLA stages)


class Program:
    """The compiled forms of one ConcreteFunction and its call, on one backend."""

    def __init__(self, record, backend: Backend):
        self.record = record                # the ConcreteFunction
        self.backend = backend
        self.module = None                  # the df module before passes (imported once)
        self.optimized = None               # the df module after the pass pipeline
        self.last_pipeline_report = None
        self.compile_count = 0              # executables built (executor plans included)
        self.executables: collections.OrderedDict = collections.OrderedDict()
        # The executable a call may use without building a key (the one executor plan; the
        # XLA executable of a trace with static shapes), set by the backend.
        self.fast_executable = None
        self._xla = None                    # XLA's Program for the compiler IR of another
        # call(flat): the backend's call bound to this Program (no Python frame in between)
        self.call = functools.partial(backend.call, self)

    @property
    def compiles(self) -> int:
        """Executables built for this trace, the compiler IR's XLA ones included."""
        return self.compile_count + (self._xla.compile_count if self._xla else 0)

    def __call__(self, flat):
        return self.call(flat)

    def executable(self, values):
        """The executable for these raw argument values, compiling on a miss."""
        key = self.backend.key(self, values)
        exe = self.executables.get(key)
        if exe is None:
            with COMPILE_LOCK:   # concurrent first calls compile once
                exe = self.executables.get(key)
                if exe is None:
                    exe = self.backend.compile(self, values)
                    self.compile_count += 1
                    self.executables[key] = exe
                    if len(self.executables) > MAX_EXECUTABLES:
                        self.executables.popitem(last=False)
        return exe

    def xla_executable(self, values):
        """The XLA executable for these values whatever this Program's backend (the compiler
        IR's stages read it): its own when it lowers to XLA, else one of an XLA Program of
        the same trace."""
        if self.backend.lowers_to_xla:
            return self.executable(values)
        if self._xla is None:
            from .backends import XLA
            self._xla = Program(self.record, XLA)
        return self._xla.executable(values)
