"""More than one device: meshes, sharded buffers and SPMD executables.

A sharded value is a jax Array with a `NamedSharding` (one buffer per device of its mesh).
An SPMD executable is one StableHLO program partitioned by XLA (Shardy) with
`num_partitions` = the mesh size; it takes and returns sharded arrays. A replica program
(`num_replicas` = N) runs the same per-device program on every device, its collectives
crossing the replicas (MirroredStrategy). Nothing here names a device kind: the devices are
jax's, of the default backend.
"""
from __future__ import annotations

import time

import numpy as np


def backend_started() -> bool:
    from .jax_internals import backends_are_initialized
    return backends_are_initialized()


def set_host_device_count(count: int):
    """Split the host into `count` CPU devices (only before the backend starts)."""
    import jax
    jax.config.update("jax_num_cpu_devices", int(count))


def join_processes(coordinator: str, num_processes: int, process_id: int,
                   timeout_s: int):
    """Join the processes of one job through PJRT's distributed runtime (jax's coordination
    service at `coordinator`, gloo collectives on CPU); afterwards `devices()` lists every
    process's devices. A process that stops answering for `timeout_s` seconds makes the
    others fail instead of waiting in a collective."""
    import jax
    if backend_started():
        raise RuntimeError("initialize_accelerator_system must run before any op: the "
                           "device backend has already started")
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(coordinator, num_processes, process_id,
                               initialization_timeout=timeout_s,
                               heartbeat_timeout_seconds=timeout_s)


def leave_processes():
    import jax
    jax.distributed.shutdown()


def devices() -> list:
    """Every device of the default backend, across processes (global ids in order)."""
    import jax
    return sorted(jax.devices(), key=lambda d: d.id)


def process_info() -> tuple:
    """(this process's index, number of processes)."""
    import jax
    return jax.process_index(), jax.process_count()


def device_name(dev) -> str:
    """TF's full device string of a jax device."""
    return (f"/job:localhost/replica:0/task:{dev.process_index}/device:"
            f"{dev.platform.upper()}:{dev.id}")


def make_mesh(device_list, axis_names, axis_sizes):
    import jax
    grid = np.array(device_list, dtype=object).reshape(tuple(axis_sizes))
    return jax.sharding.Mesh(grid, tuple(axis_names))


def sharding(mesh, spec) -> object:
    """The NamedSharding of `mesh` splitting dim i over mesh axis spec[i] (None: whole)."""
    import jax
    return jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(*spec))


def spec_of(array) -> tuple | None:
    """The per-dimension mesh axes of a sharded array (None per unsplit dim), or None when
    it is not a mesh array or a dimension is split over several axes."""
    import jax
    sh = getattr(array, "sharding", None)
    if not isinstance(sh, jax.sharding.NamedSharding):
        return None
    spec = tuple(sh.spec) + (None,) * (array.ndim - len(sh.spec))
    if any(isinstance(s, tuple) and len(s) != 1 for s in spec):
        return None
    return tuple(s[0] if isinstance(s, tuple) else s for s in spec)


def put(value, target):
    """A sharded array of `value` (host array or device array) laid out as `target`.
    Host values go straight to PJRT so int64/float64 stay 64-bit whatever jax's x64 mode."""
    import jax
    if isinstance(value, jax.Array):
        if value.sharding is target or value.sharding == target:
            return value
        if value.is_fully_addressable and target.is_fully_addressable:
            value = np.asarray(value)
        else:
            return jax.device_put(value, target)
    from . import jax_internals as jx
    value = np.asarray(value)
    index_map = target.addressable_devices_indices_map(value.shape)
    pieces = []
    for dev, index in index_map.items():
        piece = np.array(value[index], order="C")   # (ascontiguousarray makes 0-d 1-d)
        pieces.append(jx.batched_device_put(
            jx.ShapedArray(piece.shape, piece.dtype), sharding_on(dev),
            [piece], [dev], True, True, enable_x64=True))
    return assemble(value.shape, target, pieces)


def shards(array) -> list:
    """The per-device pieces of a sharded array as NumPy arrays, in device order."""
    pieces = sorted(array.addressable_shards, key=lambda s: s.device.id)
    return [np.asarray(s.data) for s in pieces]


def device_shards(array) -> list:
    """The per-device pieces of a sharded array, each left on its device, in device order."""
    return [s.data for s in sorted(array.addressable_shards, key=lambda s: s.device.id)]


def assemble(shape, target, pieces):
    """A sharded array from per-device arrays (already on their devices, of the shard shape:
    the callers built them so, which spares jax's per-call checks)."""
    from . import jax_internals as jx
    return jx.ArrayImpl(jx.ShapedArray(tuple(shape), pieces[0].dtype), target, pieces,
                           committed=True, _skip_checks=True)


def compile_partitioned(module, mesh, replicas: bool = False):
    """Compile a StableHLO module (with its shardings) for every device of `mesh`:
    partitioned by XLA (`num_partitions` = mesh size), or with `replicas=True` as one
    per-device program run by each of `num_replicas` = mesh size replicas."""
    from .jax_internals import module_to_bytecode, xla_client as xc
    devs = list(mesh.devices.flat)
    n = len(devs)
    options = xc.CompileOptions()
    build = options.executable_build_options
    ids = np.array([d.id for d in devs])
    if replicas:
        options.num_replicas, options.num_partitions = n, 1
        options.device_assignment = xc.DeviceAssignment.create(ids.reshape(n, 1))
    else:
        options.num_replicas, options.num_partitions = 1, n
        build.use_spmd_partitioning = True
        build.use_shardy_partitioner = True
        options.device_assignment = xc.DeviceAssignment.create(ids.reshape(1, n))
    from .xla import backend
    code = module_to_bytecode(module)
    return backend().compile_and_load(code, xc.DeviceList(tuple(devs)), options)


def _one_axis(entry):
    """A PartitionSpec entry as one mesh axis name or None."""
    if isinstance(entry, tuple):
        return entry[0] if len(entry) == 1 else None
    return entry


class SpmdExecutable:
    """A partitioned program: call with sharded arrays, host arrays (put as the program's
    argument sharding says) or ResourceHandles; returns sharded arrays and writes the
    variables' new values back."""

    def __init__(self, loaded, mesh, arg_specs, result_shapes, num_results, written_args,
                 timings: dict):
        from .jax_internals import parse_flatten_op_sharding
        self.loaded = loaded
        self.mesh = mesh
        self.arg_shardings = [sharding(mesh, s) for s in arg_specs]
        chosen = loaded.get_output_shardings()   # None on a one-device mesh
        outs = []
        for k, shape in enumerate(result_shapes):
            p = () if chosen is None else \
                tuple(parse_flatten_op_sharding(chosen[k], mesh)[0])
            outs.append(p + (None,) * (len(shape) - len(p)))
        self.result_shardings = [sharding(mesh, s) for s in outs]
        for k, i in enumerate(written_args):   # a variable's next call finds its own sharding
            if self.result_shardings[num_results + k] == self.arg_shardings[i]:
                self.result_shardings[num_results + k] = self.arg_shardings[i]
        # What callers see: one mesh axis (or none) per dimension. A dimension XLA split
        # over several axes is gathered along them after the call.
        self.result_specs = [tuple(_one_axis(a) for a in s) for s in outs]
        self._regather = [k for k, (s, t) in enumerate(zip(outs, self.result_specs))
                          if s != t]
        self.result_shapes = [tuple(s) for s in result_shapes]
        self.num_results = num_results
        self.written_args = list(written_args)
        self.timings = timings
        self.fillers = []

    def __call__(self, args):
        from .resources import ResourceHandle
        handles = [a for a in args if type(a) is ResourceHandle]
        for h in handles:
            h.lock.acquire()
        try:
            bufs = [put(a.value if type(a) is ResourceHandle else a, sh)
                    for a, sh in zip(args, self.arg_shardings)]
            pieces = self.loaded.execute_sharded(bufs).disassemble_into_single_device_arrays()
            outs = [assemble(shape, sh, p) for shape, sh, p in
                    zip(self.result_shapes, self.result_shardings, pieces)]
            for k in self._regather:
                outs[k] = put(outs[k], sharding(self.mesh, self.result_specs[k]))
            n = self.num_results
            for k, i in enumerate(self.written_args):
                args[i].value = outs[n + k]
            return outs[:n]
        finally:
            for h in handles:
                h.lock.release()


def build(module, mesh, arg_specs, result_shapes, num_results, written_args,
          timings: dict) -> SpmdExecutable:
    t0 = time.perf_counter()
    loaded = compile_partitioned(module, mesh)
    timings["xla_compile"] = time.perf_counter() - t0
    return SpmdExecutable(loaded, mesh, arg_specs, result_shapes, num_results, written_args,
                          timings)


class ReplicaExecutable:
    """A per-replica program run by every device of `mesh` on its own arguments. An
    argument is a list of per-device values (one per replica) or one value every replica
    reads; returns per output the list of per-device results, and writes the variables back
    (replicated: after an all_reduce every replica holds the same value)."""

    def __init__(self, loaded, mesh, num_results, written_args, timings: dict):
        self.loaded = loaded
        self.mesh = mesh
        self.devices = list(mesh.devices.flat)
        self.replicated = sharding(mesh, ())
        self.num_results = num_results
        self.written_args = list(written_args)
        self.timings = timings
        self.fillers = []

    def _buffer(self, value):
        """One array holding each device's argument. Per-replica values are joined under a
        replicated sharding: PJRT reads only each device's own buffer."""
        if type(value) is not list:
            return put(value, self.replicated)
        pieces = [put(v, sharding_on(d)) for v, d in zip(value, self.devices)]
        return assemble(pieces[0].shape, self.replicated, pieces)

    def __call__(self, args):
        from .resources import ResourceHandle
        handles = [a for a in args if type(a) is ResourceHandle]
        for h in handles:
            h.lock.acquire()
        try:
            bufs = [self._buffer(a.value if type(a) is ResourceHandle else a) for a in args]
            outs = self.loaded.execute_sharded(bufs).disassemble_into_single_device_arrays()
            n = self.num_results
            for k, i in enumerate(self.written_args):
                pieces = outs[n + k]
                args[i].value = assemble(pieces[0].shape, self.replicated, pieces)
            return outs[:n]
        finally:
            for h in handles:
                h.lock.release()


def sharding_on(dev):
    import jax
    return jax.sharding.SingleDeviceSharding(dev)


def build_replicas(module, mesh, num_results, written_args, timings: dict):
    t0 = time.perf_counter()
    loaded = compile_partitioned(module, mesh, replicas=True)
    timings["xla_compile"] = time.perf_counter() - t0
    return ReplicaExecutable(loaded, mesh, num_results, written_args, timings)
