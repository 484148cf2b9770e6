"""XLA through PJRT: compile StableHLO, run it on device buffers, write variables back.

The client is jax's default backend for the platform in use (CPU here; GPU or TPU where jax
finds one), so nothing here names a device kind. Results stay device buffers (jax Arrays);
an eager Tensor copies one to the host only when read.
"""
from __future__ import annotations

import sys
import time

import numpy as np

from .resources import ResourceHandle

_BACKEND = None


def backend():
    """The PJRT client of the default platform (created once)."""
    global _BACKEND
    if _BACKEND is None:
        import jax.extend as jex
        _BACKEND = jex.backend.get_backend()
    return _BACKEND


def device():
    return backend().devices()[0]


def platform_devices() -> list:
    """(platform, index) of every device jax sees: the host CPUs, then the default
    backend's accelerators when it is not the CPU."""
    import jax
    found = [("cpu", i) for i, _ in enumerate(jax.devices("cpu"))]
    platform = backend().platform
    if platform != "cpu":
        found += [(platform, i) for i, _ in enumerate(backend().devices())]
    return found


_PUT = None


def to_device(value):
    """A device buffer for a host array (device buffers pass through). Goes straight to PJRT:
    jax.device_put would narrow int64/float64 to 32 bits unless jax's x64 mode is on, and
    flowjit keeps TF's dtypes whatever jax's global setting is."""
    global _PUT
    if not isinstance(value, (np.ndarray, np.generic)):
        return value
    if _PUT is None:
        import jax
        from . import jax_internals as jx
        dev = device()
        sharding = jax.sharding.SingleDeviceSharding(dev)
        _PUT = (jx.batched_device_put, jx.ShapedArray, sharding, [dev])
    put, aval, sharding, devs = _PUT
    value = np.asarray(value)
    if value.dtype.kind == "O":  # strings stay on the host: compiling refuses them by name
        return value
    return put(aval(value.shape, value.dtype), sharding, [value], devs, True, True,
               enable_x64=True)


def compile_module(mlir_module):
    """Compile a jaxlib `ir.Module` (StableHLO) to a loaded executable on one device."""
    from .jax_internals import module_to_bytecode, xla_client as xc
    code = module_to_bytecode(mlir_module)
    return backend().compile_and_load(code, xc.DeviceList((device(),)), xc.CompileOptions())


# A variable's buffer may be donated (updated in place by XLA) only when nothing but its
# handle refers to it; otherwise an eager Tensor read earlier would see a deleted buffer.
_PRIVATE_REFS = sys.getrefcount(object()) + 2


class XlaExecutable:
    """One compiled specialization: call with the raw argument values (host arrays, device
    buffers, or ResourceHandles for variables)."""

    def __init__(self, loaded, num_results: int, written_args, timings: dict, fillers=()):
        self.loaded = loaded
        self.num_results = num_results
        self.written_args = list(written_args)
        self.fillers = list(fillers)   # host inputs appended to every call's arguments
        self.timings = timings
        self._execute = loaded.execute_sharded
        self._locks = None   # the variables' locks, in one global order (no deadlock)

    def __call__(self, args):
        """`args`: device buffers, except variables, which come as ResourceHandles. The
        variables' locks are held from reading their buffers to writing the results back."""
        locks = self._locks
        if locks is None:
            handles = {id(a): a for a in args if type(a) is ResourceHandle}
            locks = self._locks = [handles[k].lock for k in sorted(handles)]
        for lock in locks:
            lock.acquire()
        try:
            return self._run(args)
        finally:
            for lock in locks:
                lock.release()

    def _run(self, args):
        bufs = list(args)
        for i, a in enumerate(args):
            if type(a) is ResourceHandle:
                v = a.value
                if type(v) is np.ndarray or isinstance(v, np.generic):
                    v = a.value = to_device(v)
                bufs[i] = v
        for i in self.written_args:
            h = args[i]
            if sys.getrefcount(h.value) > _PRIVATE_REFS:
                h.value = bufs[i] = bufs[i].copy()   # shared: donate a private copy
        if self.fillers:
            bufs += [to_device(fill()) for fill in self.fillers]
        outs = [o[0] for o in self._execute(bufs).disassemble_into_single_device_arrays()]
        n = self.num_results
        for k, i in enumerate(self.written_args):
            args[i].value = outs[n + k]
        return outs[:n]


def build(lowered, timings: dict) -> XlaExecutable:
    t0 = time.perf_counter()
    loaded = compile_module(lowered.module)
    timings["xla_compile"] = time.perf_counter() - t0
    return XlaExecutable(loaded, lowered.num_results, lowered.written_args, timings,
                         lowered.host_inputs)
