"""XLA through PJRT: compile StableHLO, run it on device buffers, write variables back.

The client is jax's default backend for the platform in use (CPU here; GPU or TPU where jax
finds one), so nothing here names a device kind. Results stay device buffers (jax Arrays);
an eager Tensor copies one to the host only when read.
"""
from __future__ import annotations

import time

import numpy as np

from . import profiler
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


SYNCHRONOUS = False   # tf.config.experimental.set_synchronous_execution: wait for every call


def set_synchronous(flag: bool):
    global SYNCHRONOUS
    SYNCHRONOUS = bool(flag)


def wait(buffers):
    """Block until the device buffers are computed (a call's errors surface here)."""
    for b in buffers:
        ready = getattr(b, "block_until_ready", None)
        if ready is not None:
            ready()
    return buffers


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


def compile_module(mlir_module, host_callbacks=()):
    """Compile a jaxlib `ir.Module` (StableHLO) to a loaded executable on one device;
    `host_callbacks` are the Python callables its callback custom calls name by index."""
    from .jax_internals import module_to_bytecode, xla_client as xc
    devices = xc.DeviceList((device(),))
    if host_callbacks:   # only the module form of compile takes callbacks
        return backend().compile_and_load(mlir_module, executable_devices=devices,
                                          compile_options=xc.CompileOptions(),
                                          host_callbacks=list(host_callbacks))
    code = module_to_bytecode(mlir_module)
    return backend().compile_and_load(code, devices, xc.CompileOptions())


class XlaExecutable:
    """One compiled specialization, its arguments classified once: the call's own device
    buffers come first, then the captures (constants as device buffers, variables as
    ResourceHandles), then host inputs filled before every run."""

    def __init__(self, loaded, num_results: int, written_args, timings: dict, fillers=(),
                 first_capture=0, captures=(), host_callbacks=(), failures=None):
        self.loaded = loaded
        self.num_results = num_results
        self.written_args = list(written_args)
        self.fillers = list(fillers)
        self.timings = timings
        self._execute = _cpp_dispatch(loaded)
        # variables' slots are filled per call from their handles
        self._captures = [c if type(c) is ResourceHandle else to_device(c) for c in captures]
        written = set(self.written_args)
        self._read = [(first_capture + i, c) for i, c in enumerate(captures)
                      if type(c) is ResourceHandle and first_capture + i not in written]
        self._donated = [(i, captures[i - first_capture]) for i in self.written_args]
        handles = {id(c): c for c in captures if type(c) is ResourceHandle}
        self._locks = [handles[k].lock for k in sorted(handles)]  # one global order
        # run(*bufs): the call's own argument buffers in, the result buffers out
        if handles or self.fillers:
            self.run = self._run
        elif self._captures:
            self.run = self._run_with_constants
        else:
            self.run = self._execute
        self._host_callbacks = list(host_callbacks)   # alive as long as the executable
        if self._host_callbacks:
            self._run_callbacks_free, self._failures = self.run, failures
            self.run = self._run_with_callbacks

    def __call__(self, bufs):
        return self.run(*bufs)

    def _run_with_constants(self, *bufs):
        return self._execute(*bufs, *self._captures)

    def _run_with_callbacks(self, *bufs):
        """Prints and asserts run on the host during the call: it ends when they have, and a
        failed assert raises here."""
        outs = self._run_callbacks_free(*bufs)
        wait(outs)
        failures = self._failures
        if failures:
            first = failures[0]
            failures.clear()
            raise first
        return outs

    def _run(self, *bufs):
        """Variables: their locks are held from reading their buffers to writing the results
        back, and a donated buffer is one the handle owns alone (runtime/resources.py)."""
        args = [*bufs, *self._captures]
        args += [to_device(fill()) for fill in self.fillers]
        locks = self._locks
        for lock in locks:
            lock.acquire()
        try:
            for i, h in self._read:
                args[i] = _device_value(h)
            for i, h in self._donated:
                _device_value(h)
                args[i] = h.donate(_copy)
            outs = self._execute(*args)
            n = self.num_results
            for k, (_, h) in enumerate(self._donated):
                h.adopt(outs[n + k])
        finally:
            for lock in locks:
                lock.release()
        return outs[:n] if self._donated else outs


_PJIT_CACHE = None


def _cpp_dispatch(loaded):
    """`loaded` called through jax.jit's C++ dispatch, `call(*buffers) -> [buffers]`: after
    the first call it checks the arguments' avals and shardings and executes without Python
    (half the cost of `loaded.execute`). A miss (first call, other shardings) runs
    `loaded.execute` and gives the C++ side what it needs for the next calls."""
    global _PJIT_CACHE
    from . import jax_internals as jx
    if _PJIT_CACHE is None:
        _PJIT_CACHE = jx.PjitFunctionCache(capacity=4096)

    def execute(*args):   # also the C++ cache's key for this executable (held weakly)
        return loaded.execute(list(args))

    def cache_miss(*args):
        outs = execute(*args)
        fast = jx.MeshExecutableFastpathData(
            loaded, jx.tree_structure([0] * len(outs)), [a.sharding for a in args],
            [o.sharding for o in outs], [o.aval for o in outs],
            [o._committed for o in outs], [True] * len(args), [None] * len(args), [])
        return outs, fast, False

    call = jx.pjit("flowjit_executable", execute, cache_miss, [], [],
                   jx.JitGlobalCppCacheKeys(), jx.dispatch_registry, jx.cc_shard_arg,
                   _PJIT_CACHE)
    call.keep_alive = execute
    return call


def _device_value(handle):
    """A variable's value as a device buffer, uploaded once (the upload is the handle's own)."""
    v = handle.lend()
    if type(v) is np.ndarray or isinstance(v, np.generic):
        v = to_device(v)
        handle.adopt(v)
    return v


def _copy(buffer):
    return buffer.copy()


def build(lowered, timings: dict, first_capture=0, captures=()) -> XlaExecutable:
    t0 = time.perf_counter()
    with profiler.phase("xla_compile"):
        loaded = compile_module(lowered.module, lowered.host_callbacks)
    timings["xla_compile"] = time.perf_counter() - t0
    return XlaExecutable(loaded, lowered.num_results, lowered.written_args, timings,
                         lowered.host_inputs, first_capture, captures, lowered.host_callbacks,
                         lowered.failures)
