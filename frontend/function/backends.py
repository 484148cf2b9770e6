"""The backends a Program runs on, and the choice of one for a trace.

A backend (the `Backend` protocol of program.py) keys, compiles and calls a Program's
executables. The graph executor runs a Plan with NumPy kernels; XLA compiles one executable
per concrete argument shape. Other backends claim the traces they run (`CLAIMS`): the sharded
backend (sharded.py) takes every trace over DTensors, whatever `jit_compile` says, as TF's
DTensor runs plain `tf.function`s. MirroredStrategy makes its own replica Programs
(distribute.py).
"""
from __future__ import annotations

import numpy as np

from ...lowering import rule_generation
from ...runtime import xla
from . import compilation
from .function_call import rebuild
from ..eager.tensor import Tensor

# Functions record -> Backend or None, tried in order before `jit_compile` decides; a module
# defining a backend appends its claim when imported.
CLAIMS: list = []


def select(record):
    """The backend of a new trace: the first claim, else XLA under `jit_compile=True`, else
    the graph executor."""
    for claim in CLAIMS:
        backend = claim(record)
        if backend is not None:
            return backend
    return XLA if record.jit_compile else EXECUTOR


class ExecutorBackend:
    """One Plan per trace (shapes stay symbolic), run by the graph executor."""

    lowers_to_xla = False

    def key(self, program, values):
        return ()

    def compile(self, program, values):
        return compilation.build_plan(program)

    def call(self, program, flat):
        plan = program.fast_executable
        if plan is None:
            plan = program.fast_executable = program.executable(())
        record = program.record
        values = []
        for t in flat:
            v = t._value   # a device buffer's host copy is made once and kept (tensor.py)
            values.append(v if type(v) is np.ndarray else t._host())
        outs = plan.run(values + record.capture_values if record.capture_values else values)
        dtype = record.single_output_dtype
        if dtype is not None:   # Tensor._wrap inlined: one Python call less
            t = _new_tensor(Tensor)
            t._value = outs[0]
            t._dtype = dtype
            t._device = None
            return t
        return rebuild(record.structure, [_wrap(v, t.dtype)
                                          for v, t in zip(outs, plan.out_types)])


class XlaBackend:
    """One XLA executable per concrete argument shape on one device. A trace with static
    shapes keeps its executable at hand, so a cached call builds no key."""

    lowers_to_xla = True

    def key(self, program, values):
        return compilation.xla_key(program, values)

    def compile(self, program, values):
        record = program.record
        n = record.num_args
        return compilation.compile_xla(
            program, values, lambda lowered, values, timings: xla.build(
                lowered, timings, n, values[n:]), donate=record.donate_variables)

    def call(self, program, flat):
        # The cached call's path, kept to a few attribute reads (no comprehension frames):
        # its cost is added to XLA's own dispatch on every call.
        bufs = []
        for t in flat:
            d = t._device
            bufs.append(_on_device(t) if d is None else d)
        exe = program.fast_executable
        if exe is None or exe.rule_generation != rule_generation.GENERATION:
            record = program.record
            exe = program.executable(bufs + record.capture_values)
            if record.static_shapes:
                program.fast_executable = exe
        outs = exe.run(*bufs)
        if xla.SYNCHRONOUS:
            xla.wait(outs)
        record = program.record
        dtype = record.single_output_dtype
        if dtype is not None:   # Tensor._wrap_device inlined: one Python call less
            t = _new_tensor(Tensor)
            t._value = t._device = outs[0]
            t._dtype = dtype
            return t
        return rebuild(record.structure,
                       [_wrap_device(v, d) for v, d in zip(outs, record.out_dtypes)])


def _on_device(t):
    """The tensor's value as a device buffer, kept on the Tensor beside its host value."""
    d = t._device
    if d is None:
        d = xla.to_device(t._value)   # a device buffer passes through
        if type(d) is not np.ndarray:  # strings stay on the host (compiling refuses them)
            t._device = d
    return d


_wrap = Tensor._wrap
_wrap_device = Tensor._wrap_device
_new_tensor = Tensor.__new__
EXECUTOR = ExecutorBackend()
XLA = XlaBackend()
