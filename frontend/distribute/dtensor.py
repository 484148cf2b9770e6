"""`tf.experimental.dtensor`: meshes, layouts and sharded tensors on XLA's SPMD partitioner.

A DTensor is an eager Tensor whose value is a sharded device array (one buffer per device
of its mesh, `runtime/spmd.py`) together with its `Layout`. Three paths run ops on them:
- a `function(jit_compile=True)` called with DTensors traces once per layout (the layouts
  are part of the trace type) and compiles one partitioned program per shape: the layouts
  become the arguments' Shardy shardings, XLA propagates them and inserts the collectives;
  results come back as DTensors in the layouts XLA chose;
- an eager op on a DTensor runs as such a one-op program, cached per op, attributes, shapes
  and layouts (plain tensors beside it count as replicated);
- `jit_compile=False` refuses DTensors by name (never a silently gathered run).
The last two live in `frontend/distribute/sharded.py`.
"""
from __future__ import annotations

import contextlib
import math
import os
import threading

import numpy as np

from ...ir.errors import InvalidArgumentError, UnimplementedError
from ...runtime import spmd
from ..eager import dispatch
from ..function import func_graph
from ..export import runs, tf_export
from ..eager.tensor import Tensor
from ..state.variables import Variable

UNSHARDED = "unsharded"
MATCH = "match"


class Mesh:
    """TF's `dtensor.Mesh`: named axes over a grid of devices."""

    def __init__(self, dim_names, global_device_ids, local_device_ids, local_devices,
                 mesh_name: str = "", global_devices=None, use_xla_spmd: bool = False):
        # (use_xla_spmd: TF's switch; flowjit's meshes always compile with XLA's SPMD)
        ids = np.asarray(global_device_ids)
        if len(dim_names) != ids.ndim:
            raise ValueError(f"Number of mesh dimensions does not match number of dimension "
                             f"names: {ids.ndim} != {len(dim_names)}")
        self._dim_names = list(dim_names)
        self._shape = list(ids.shape)
        self._ids = ids
        self._local_ids = list(local_device_ids)
        self._local_devices = list(local_devices)
        self._name = mesh_name
        by_id = {d.id: d for d in spmd.devices()}
        self._jax = spmd.make_mesh([by_id[int(i)] for i in ids.flat], dim_names, ids.shape)
        self._global_devices = global_devices or [spmd.device_name(by_id[int(i)])
                                                  for i in ids.flat]

    dim_names = property(lambda self: list(self._dim_names))
    size = property(lambda self: int(self._ids.size))
    # the jax Mesh the sharded programs are built over (runtime/spmd.py)
    jax_mesh = property(lambda self: self._jax)
    name = property(lambda self: self._name)

    def shape(self):
        return list(self._shape)

    def dim_size(self, dim_name) -> int:
        return self._shape[self._dim_names.index(dim_name)]

    def device_type(self) -> str:
        return self._global_devices[0].rsplit("/device:", 1)[1].split(":")[0]

    def local_devices(self):
        return list(self._local_devices)

    def local_device_ids(self):
        return list(self._local_ids)

    def global_device_ids(self):
        return self._ids.copy()

    def num_local_devices(self) -> int:
        return len(self._local_devices)

    def is_remote(self) -> bool:
        return not self._local_ids

    def axes(self) -> list:
        """[(axis name, size), ...]: what the lowering declares as the Shardy mesh."""
        return list(zip(self._dim_names, self._shape))

    def to_string(self) -> str:
        dims = ",".join(f"{n}={s}" for n, s in zip(self._dim_names, self._shape))
        ids = ",".join(str(int(i)) for i in self._ids.flat)
        local = ",".join(str(i) for i in self._local_ids)
        return f"{self._name}|{dims}|{ids}|{local}|{','.join(self._local_devices)}"

    def __repr__(self):
        return f"Mesh.from_string({self.to_string()})"

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, Mesh) and self.to_string() == other.to_string()

    def __hash__(self):
        return hash(self.to_string())


def _mesh_devices(device_type):
    kind = None if device_type is None else device_type.upper()
    devs = spmd.devices()
    if kind is not None:
        devs = [d for d in devs if d.platform.upper() == kind]
        if not devs:
            raise ValueError(f"No {kind} devices found for the mesh.")
    return devs


def _build_mesh(mesh_dims, mesh_name, devs, use_xla_spmd):
    if isinstance(mesh_dims, dict):
        mesh_dims = list(mesh_dims.items())
    if mesh_dims is None:
        mesh_dims = [("x", len(devs))]
    names = [n for n, _ in mesh_dims]
    sizes = [int(s) for _, s in mesh_dims]
    if math.prod(sizes) != len(devs):
        raise ValueError(f"length of devices ({len(devs)}) must be equal to total size of "
                         f"the mesh of shape {sizes}")
    ids = np.array([d.id for d in devs]).reshape(sizes)
    me = spmd.process_info()[0]
    local = [d for d in devs if d.process_index == me]
    return Mesh(names, ids, [d.id for d in local], [spmd.device_name(d) for d in local],
                mesh_name, use_xla_spmd=use_xla_spmd)


def create_mesh(mesh_dims=None, mesh_name: str = "", devices=None, device_type=None,
                use_xla_spmd: bool = False) -> Mesh:
    """A mesh over this client's devices (`devices`: TF device strings; default all of
    `device_type`, or of the default platform)."""
    devs = _mesh_devices(device_type)
    if devices is not None:
        from ..eager.device import parse_device_spec
        by_kind_index = {(d.platform.upper(), d.id): d for d in devs}
        chosen = []
        for name in devices:
            fields = parse_device_spec(name)
            found = by_kind_index.get((fields.get("device_type", "").upper(),
                                       fields.get("device_index")))
            if found is None:
                raise ValueError(f"create_mesh: no device {name!r} among "
                                 f"{[spmd.device_name(d) for d in devs]}")
            chosen.append(found)
        devs = chosen
    return _build_mesh(mesh_dims, mesh_name, devs, use_xla_spmd)


def create_distributed_mesh(mesh_dims, mesh_name: str = "", local_devices=None,
                            device_type=None, use_xla_spmd: bool = False) -> Mesh:
    """A mesh over the devices of every client (`initialize_accelerator_system` joined
    them): the global devices in id order."""
    return _build_mesh(mesh_dims, mesh_name, _mesh_devices(device_type), use_xla_spmd)


class Layout:
    """TF's `dtensor.Layout`: per tensor dimension, the mesh axis it is split over, or
    `UNSHARDED`."""

    def __init__(self, sharding_specs, mesh: Mesh):
        if not isinstance(mesh, Mesh):
            raise ValueError(f"mesh is not a valid Mesh object: {mesh!r}")
        seen = set()
        for s in sharding_specs:
            if s == UNSHARDED or s == MATCH:
                continue
            if s not in mesh.dim_names:
                # TF 2.21: ValueError('y: A dimension sharding must either be a valid mesh
                # dimension or UNSHARDED.')
                raise ValueError(f"{s}: A dimension sharding must either be a valid mesh "
                                 f"dimension or UNSHARDED.")
            if s in seen:
                raise ValueError(f"Mesh dimension {s} was repeated in sharding "
                                 f"specification {list(sharding_specs)}. Mesh dimensions "
                                 f"must be unique in a layout.")
            seen.add(s)
        self._specs = tuple(sharding_specs)
        self._mesh = mesh
        self._axes = tuple(None if s in (UNSHARDED, MATCH) else s for s in self._specs)

    @classmethod
    def replicated(cls, mesh, rank):
        return cls([UNSHARDED] * rank, mesh)

    @classmethod
    def batch_sharded(cls, mesh, batch_dim, rank, axis=0):
        return cls([UNSHARDED] * axis + [batch_dim] + [UNSHARDED] * (rank - axis - 1), mesh)

    @classmethod
    def inner_sharded(cls, mesh, inner_dim, rank):
        return cls.batch_sharded(mesh, inner_dim, rank, axis=rank - 1)

    @classmethod
    def from_mesh_axes(cls, axes, mesh):
        """The layout whose dimension i is sharded over mesh axis `axes[i]` (None: not)."""
        return cls([UNSHARDED if a is None else a for a in axes], mesh)

    sharding_specs = property(lambda self: list(self._specs))
    # per dimension, the mesh axis it is sharded over or None: the partitioner's spec
    mesh_axes = property(lambda self: self._axes)
    mesh = property(lambda self: self._mesh)
    rank = property(lambda self: len(self._specs))

    def is_fully_replicated(self) -> bool:
        return all(a is None for a in self._axes)

    def num_shards(self, idx) -> int:
        a = self._axes[idx]
        return 1 if a is None else self._mesh.dim_size(a)

    def to_string(self) -> str:
        # TF's text: each spec followed by a comma, the last by ", " (none for a scalar)
        specs = ",".join(self._specs) + ("," if self._specs else "")
        return f"sharding_specs:{specs} mesh:{self._mesh.to_string()}"

    def __repr__(self):
        return f"Layout.from_string({self.to_string()})"

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, Layout) and self._specs == other._specs \
            and self._mesh == other._mesh

    def __hash__(self):
        return hash((self._specs, self._mesh))

    def _sharding(self):
        return spmd.sharding(self._mesh.jax_mesh, self._axes)


class DTensor(Tensor):
    """An eager tensor sharded over a mesh: a sharded device array and its Layout."""

    __slots__ = ("_layout",)

    @classmethod
    def from_array(cls, array, dtype, layout):
        """The DTensor over a sharded device array laid out as `layout` (not checked)."""
        t = cls.__new__(cls)
        t._value = array
        t._dtype = dtype
        t._device = None   # the sharded backend reads `_value`
        t._layout = layout
        return t

    @property
    def device(self) -> str:
        # TF 2.21 reports its DTensor device, a CUSTOM device; flowjit's mesh has no such
        # device, so the name says which mesh holds the value.
        return f"/job:localhost/replica:0/task:0/device:CUSTOM:0 ({self._layout.mesh!r})"

    def _host(self):
        """Eager kernels never see a DTensor: dispatch runs the op as a sharded program."""
        raise _ShardedOperand

    def numpy(self):
        if not self._layout.is_fully_replicated():
            # TF 2.21: UnimplementedError('Trying to copy a non-single-device and
            # non-replicated DTensor is not supported. ...')
            raise UnimplementedError(None, None, "Trying to copy a non-single-device and "
                                     "non-replicated DTensor is not supported. Use "
                                     "dtensor.unpack, or relayout to a replicated layout.")
        v = spmd.shards(self._value)[0]
        return v[()] if v.ndim == 0 else v

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.numpy(), dtype=dtype)

    def _summary(self) -> str:
        """TF's DTensor value text: one value when replicated, else each device's piece."""
        pieces = spmd.shards(self._value)
        if self._layout.is_fully_replicated():
            return _value_text(pieces[0])
        names = [d.split("/device:")[1] for d in self._layout.mesh._global_devices]
        return "{" + ", ".join(f'"{n}": {_value_text(p)}' for n, p in zip(names, pieces)) + "}"

    def __repr__(self):
        return (f"<tf.Tensor: shape={tuple(self._value.shape)}, dtype={self._dtype.name}, "
                f'value={self._summary()}, layout="{self._layout.to_string()}">')

    def __str__(self):
        return (f'tf.Tensor({self._summary()}, layout="{self._layout.to_string()}", '
                f"shape={tuple(self._value.shape)}, dtype={self._dtype.name})")


def _value_text(array) -> str:
    """A value as TF's C++ side prints it: nested brackets, entries apart by a space,
    numbers in their shortest form (2.0 prints as 2)."""
    array = np.asarray(array)
    if array.ndim == 0:
        value = array.item()
        if isinstance(value, bytes):
            return value.decode("utf-8", "backslashreplace")
        text = str(array.dtype.type(value)) if isinstance(value, float) else str(value)
        return text[:-2] if text.endswith(".0") else text
    return "[" + " ".join(_value_text(row) for row in array) + "]"


def is_dtensor(tensor) -> bool:
    """Whether `tensor` is a DTensor (a tensor laid out on a mesh)."""
    return isinstance(tensor, DTensor)


class _ShardedOperand(Exception):
    """Raised by `DTensor._host`: the eager op must run as a sharded program."""


# --- creating and taking apart DTensors ---------------------------------------------------
def _check_divisible(shape, layout: Layout, opname):
    if len(shape) != layout.rank:
        raise ValueError(f"{opname}: the layout has rank {layout.rank} but the tensor has "
                         f"shape {list(shape)}")
    for i, n in enumerate(shape):
        k = layout.num_shards(i)
        if n is not None and n % k:
            raise InvalidArgumentError(
                None, opname, f"{opname}: dimension {i} of shape {list(shape)} is not "
                f"divisible by the {k} shards of layout {layout.sharding_specs}")


@tf_export("experimental.dtensor.relayout")
@runs("relayout")
def relayout(tensor, layout: Layout, name=None):
    """The tensor in `layout` (a plain tensor is placed; a DTensor is resharded). Traced, it
    is a sharding constraint, and the function runs over the layout's mesh."""
    graph = func_graph.current()
    if graph is not None:
        from ..ops.collective import relayout as relayout_op
        x = dispatch.convert_to_tensor(tensor)
        if x.shape.rank is not None:
            _check_divisible(x.shape.as_list(), layout, "relayout")
        while graph.outer is not None:
            graph = graph.outer
        if layout.mesh.size > 1:
            known = getattr(graph, "dtensor_mesh", None)
            if known is not None and known != layout.mesh:
                raise ValueError(f"relayout: a function runs over one mesh; this one already "
                                 f"uses {known!r}")
            graph.dtensor_mesh = layout.mesh
        return relayout_op(x, layout.sharding_specs, layout.mesh.axes())
    t = dispatch.convert_to_tensor(tensor)
    _check_divisible(tuple(t._value.shape), layout, "relayout")
    value = t._value if isinstance(t, DTensor) else t._host()
    return DTensor.from_array(spmd.put(value, layout._sharding()), t._dtype, layout)


def copy_to_mesh(tensor, layout: Layout, source_layout=None):
    return relayout(tensor, layout)


def pack(tensors, layout: Layout):
    """A DTensor from one component per device of the layout's mesh (in mesh order)."""
    comps = [dispatch.convert_to_tensor(t) for t in tensors]
    mesh = layout.mesh
    if len(comps) != mesh.num_local_devices():
        # TF 2.21: InvalidArgumentError('The dtensor device ... expected 4 inputs to
        # DTensorPack, but got 3')
        raise InvalidArgumentError(None, "pack", f"expected {mesh.num_local_devices()} "
                                   f"inputs to DTensorPack, but got {len(comps)}")
    local = comps[0].shape.as_list()
    shape = [n * layout.num_shards(i) for i, n in enumerate(local)]
    target = layout._sharding()
    index_map = target.addressable_devices_indices_map(tuple(shape))
    full = np.zeros(shape, comps[0].dtype.np)
    for dev, c in zip(sorted(index_map, key=lambda d: d.id), comps):
        if c.shape.as_list() != local:
            raise InvalidArgumentError(None, "pack", f"pack: components have different "
                                       f"shapes: {local} and {c.shape.as_list()}")
        full[index_map[dev]] = c._host()
    return DTensor.from_array(spmd.put(full, target), comps[0].dtype, layout)


def unpack(tensor):
    """The per-device components of a DTensor, in mesh device order."""
    if not isinstance(tensor, DTensor):
        raise TypeError(f"unpack: expected a DTensor, got {type(tensor).__name__}")
    # each component stays on its device, which its `device` then names
    return [Tensor._wrap(p, tensor._dtype) for p in spmd.device_shards(tensor._value)]


def fetch_layout(tensor):
    """The layout of a DTensor or DVariable (None for a regular tensor)."""
    if isinstance(tensor, DVariable):
        return tensor.layout
    return getattr(tensor, "_layout", None)


def check_layout(tensor, layout):
    if fetch_layout(tensor) != layout:
        raise ValueError(f"Layout of tensor: {fetch_layout(tensor)}, did not match expected "
                         f"layout: {layout}")


_DEFAULT_MESH = threading.local()
_ACTIVE_DEFAULT_MESHES = [0]   # how many default_mesh blocks are open, on any thread


@tf_export("experimental.dtensor.default_mesh")
@contextlib.contextmanager
def default_mesh(mesh: Mesh):
    """Inside, an eager op without DTensor inputs gives DTensors replicated on `mesh` (TF's
    DTensor places such ops on the default mesh; `tf.constant` stays a plain tensor)."""
    prev = getattr(_DEFAULT_MESH, "mesh", None)
    _DEFAULT_MESH.mesh = mesh
    _ACTIVE_DEFAULT_MESHES[0] += 1
    dispatch.mesh_results_hook[0] = _on_default_mesh
    try:
        yield mesh
    finally:
        _DEFAULT_MESH.mesh = prev
        _ACTIVE_DEFAULT_MESHES[0] -= 1
        if not _ACTIVE_DEFAULT_MESHES[0]:
            dispatch.mesh_results_hook[0] = None


def _on_default_mesh(out):
    mesh = getattr(_DEFAULT_MESH, "mesh", None)
    if mesh is None:
        return out
    if isinstance(out, tuple):
        return tuple(_on_default_mesh(t) for t in out)
    if isinstance(out, DTensor) or out.dtype.name == "string":
        return out
    return relayout(out, Layout.replicated(mesh, rank=out.shape.rank))


def call_with_layout(fn, layout, *args, **kwargs):
    """`fn(*args, **kwargs)` with its result laid out as `layout`."""
    out = fn(*args, **kwargs)
    return relayout(out, layout) if layout is not None else out


# --- DVariable -----------------------------------------------------------------------------
class DVariable(Variable):
    """A Variable whose value is a DTensor: reads give DTensors, assigns keep the layout."""

    def __init__(self, initial_value, *args, dtype=None, name=None, layout=None, **kwargs):
        value = initial_value() if callable(initial_value) else initial_value
        value = dispatch.convert_to_tensor(value, dtype=dtype)
        layout = layout or fetch_layout(value)
        if layout is None:
            raise ValueError("DVariable: the initial value must be a DTensor, or a layout "
                             "must be given")
        value = relayout(value, layout)
        super().__init__(value, *args, name=name, **kwargs)
        self._layout = layout

    layout = property(lambda self: self._layout)

    @property
    def _value(self):
        """The value as a DTensor; a value restored from a checkpoint (a host array) is
        placed into the layout on first read."""
        h = self._handle
        h.value = spmd.put(h.value, self._layout._sharding())
        return DTensor.from_array(h.value, self._dtype, self._layout)

    def _update(self, opname, value, what):
        """Eager assign (`opname` None), assign_add ("add") or assign_sub ("sub"): the new
        value is computed and stored in the layout under the variable's lock."""
        given = self._checked(value, what)
        h = self._handle
        with h.lock:
            new = given if opname is None else dispatch.apply(opname, (self._value, given))
            h.value = relayout(new, self._layout)._value

    def assign(self, value, use_locking=None, name=None, read_value=True):
        if func_graph.current() is not None:
            return super().assign(value, use_locking, name, read_value)
        self._update(None, value, "assign")
        return self if read_value else None

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        if func_graph.current() is not None:
            return super().assign_add(delta, use_locking, name, read_value)
        self._update("add", delta, "assign_add")
        return self if read_value else None

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        if func_graph.current() is not None:
            return super().assign_sub(delta, use_locking, name, read_value)
        self._update("sub", delta, "assign_sub")
        return self if read_value else None

    def __repr__(self):
        return f"<DVariable '{self._name}' shape={self.shape} dtype={self._dtype.name}, " \
               f"layout={self._layout.sharding_specs}>"


# --- clients ---------------------------------------------------------------------------------
def num_clients() -> int:
    return spmd.process_info()[1]


def client_id() -> int:
    return spmd.process_info()[0]


def local_devices(device_type, for_client_id=None):
    me = client_id() if for_client_id is None else for_client_id
    return [spmd.device_name(d) for d in _mesh_devices(device_type)
            if d.process_index == me]


def num_local_devices(device_type) -> int:
    return len(local_devices(device_type))


def num_global_devices(device_type) -> int:
    return len(_mesh_devices(device_type))


def job_name() -> str:
    return os.environ.get("DTENSOR_JOB_NAME", "localhost")


def initialize_accelerator_system(device_type=None, enable_coordination_service=True,
                                  num_logical_cpu_devices=None,
                                  experimental_reset_context=False,
                                  experimental_enable_megcore=False) -> str:
    """Join this process to the others named by TF's variables (`DTENSOR_CLIENT_ID`,
    `DTENSOR_NUM_CLIENTS`, `DTENSOR_JOBS`: the clients' host:port, the first one is the
    coordinator) through PJRT's distributed runtime; returns the device type. A client
    silent for FLOWJIT_HEARTBEAT_TIMEOUT seconds (default 100) fails the others."""
    if num_logical_cpu_devices is not None and not spmd.backend_started():
        spmd.set_host_device_count(num_logical_cpu_devices)
    clients = int(os.environ.get("DTENSOR_NUM_CLIENTS", "1"))
    if clients > 1:
        jobs = os.environ["DTENSOR_JOBS"].split(",")
        if len(jobs) != clients:
            raise ValueError(f"DTENSOR_JOBS lists {len(jobs)} clients but DTENSOR_NUM_CLIENTS "
                             f"is {clients}")
        spmd.join_processes(jobs[0], clients, int(os.environ.get("DTENSOR_CLIENT_ID", "0")),
                            int(os.environ.get("FLOWJIT_HEARTBEAT_TIMEOUT", "100")))
    return (device_type or _mesh_devices(None)[0].platform).upper()


def shutdown_accelerator_system():
    spmd.leave_processes()


__all__ = ["Mesh", "Layout", "DVariable", "UNSHARDED", "MATCH", "create_mesh",
           "create_distributed_mesh", "relayout", "copy_to_mesh", "pack", "unpack",
           "fetch_layout", "check_layout", "is_dtensor", "call_with_layout", "num_clients", "client_id",
           "local_devices", "num_local_devices", "num_global_devices", "job_name",
           "initialize_accelerator_system", "shutdown_accelerator_system", "default_mesh"]
