"""Running functions and eager ops over DTensors (frontend/distribute/dtensor.py holds the API).

A trace over DTensor arguments (their layouts are part of the trace type), or relayouting
onto a mesh of several devices, runs on the sharded backend, with or without `jit_compile`
(as TF's DTensor runs plain `tf.function`s): it compiles through the one XLA path, the
lowering declares the mesh and each argument's Shardy sharding, XLA partitions the program
(`num_partitions` = mesh size) and chooses the results' shardings, which come back as
layouts. An eager op with a DTensor input runs as a cached one-op such function. Importing
this module installs the backend's claim and the eager hook.
"""
from __future__ import annotations

import threading

from ...ir.errors import InvalidArgumentError, UnimplementedError
from ...runtime import spmd, xla
from ..function import backends, compilation
from ..eager import dispatch
from ..function.function_call import rebuild
from .dtensor import DTensor, Layout, _ShardedOperand, fetch_layout, relayout

_OP_PROGRAMS: dict = {}
_OP_LOCK = threading.Lock()


def _op_function(opdef, attrs):
    """The jit_compile=True function running one op (cached per op and attributes)."""
    try:
        key = (opdef.name, tuple(attrs.items()))
        hash(key)
    except TypeError:
        key = (opdef.name, repr(sorted(attrs.items())))
    fn = _OP_PROGRAMS.get(key)
    if fn is None:
        from ..function.function import function

        def run_op(*inputs):
            return dispatch.apply(opdef.name, list(inputs), attrs)
        with _OP_LOCK:
            fn = _OP_PROGRAMS.setdefault(key, function(run_op, jit_compile=True,
                                                       name=opdef.name))
    return fn


def _execute_sharded(opdef, inputs, attrs):
    """An eager op with a DTensor input: one sharded program (plain inputs replicated)."""
    mesh = next(fetch_layout(t).mesh for t in inputs if isinstance(t, DTensor))
    args = [t if isinstance(t, DTensor) else relayout(t, Layout.replicated(mesh, t.ndim))
            for t in inputs]
    # The Program itself, not the function's __call__: a recording tape would replay the
    # one op eagerly, landing here again; the caller's `apply` records the op.
    return _op_function(opdef, attrs).get_concrete_function(*args).program(args)


dispatch.sharded_hook = (_ShardedOperand, _execute_sharded)


def layouts_of(flat_key) -> list | None:
    """The layout of each tensor leaf of a trace type, or None when no leaf has one."""
    from ..function import trace_type
    found = []

    def walk(k):
        if k[0] == trace_type.TENSOR:
            found.append(k[3] if len(k) > 3 else None)
        elif trace_type.is_container(k):
            for c in k[1]:
                walk(c)
    walk(flat_key)
    return found if any(found) else None


class ShardedBackend:
    """A trace over a DTensor mesh (DTensor arguments, or a relayout inside), with or
    without `jit_compile`: one SPMD program per concrete argument shape, partitioned by XLA
    over the mesh."""

    lowers_to_xla = True

    def __init__(self, mesh, layouts):
        self.mesh = mesh
        self.layouts = layouts              # per argument: its Layout, or None

    def key(self, program, values):
        return compilation.xla_key(program, values)

    def compile(self, program, values):
        return compilation.compile_xla(
            program, values, lambda lowered, values, timings: self._build(
                program.record, lowered, values, timings), donate=False)

    def call(self, program, flat):
        record = program.record
        vals = [t._value for t in flat] + record.capture_values
        exe = program.executable(vals)
        outs = exe(vals)
        if xla.SYNCHRONOUS:
            xla.wait(outs)
        return rebuild(record.structure, [DTensor.from_array(v, dt, layout) for v, dt, layout in
                                          zip(outs, record.out_dtypes, exe.result_layouts)])

    def _build(self, record, lowered, values, timings):
        """The partitioned executable of the lowered module."""
        from ...lowering.stablehlo.collective import annotate_shardings, result_shapes
        from ...runtime.resources import ResourceHandle
        if lowered.host_inputs:
            raise UnimplementedError(None, None, f"{record.name}: stateful random ops are not "
                                     f"supported in a function over DTensors")
        mesh = self.mesh
        n_args = record.num_args
        specs = []
        for i, v in enumerate(values):
            lay = self.layouts[i] if i < n_args else fetch_layout(record.captures[i - n_args])
            raw = v.value if type(v) is ResourceHandle else v
            spec = lay.mesh_axes if lay is not None else spmd.spec_of(raw)
            specs.append(spec if spec is not None else (None,) * len(raw.shape))
        n = lowered.num_results
        written = {n + k: specs[i] for k, i in enumerate(lowered.written_args)}
        annotate_shardings(lowered.module, mesh.axes(), specs, written)
        exe = spmd.build(lowered.module, mesh.jax_mesh, specs, result_shapes(lowered.module), n,
                         lowered.written_args, timings)
        exe.result_layouts = [Layout.from_mesh_axes(s, mesh) for s in exe.result_specs[:n]]
        return exe


def claim(record):
    """The sharded backend for a trace over DTensor arguments or relayouting onto a mesh
    (None for any other trace)."""
    key = record.trace_key
    layouts = layouts_of(key) if isinstance(key, tuple) else None
    inner = getattr(record.graph, "dtensor_mesh", None)
    if layouts is None and inner is None:
        return None
    layouts = layouts or [None] * record.num_args
    meshes = {lay.mesh for lay in layouts if lay is not None} | ({inner} if inner else set())
    if len(meshes) > 1:
        raise InvalidArgumentError(None, None, f"{record.name}: DTensors on {len(meshes)} "
                                   f"different meshes; relayout them onto one")
    return ShardedBackend(meshes.pop(), layouts)


backends.CLAIMS.append(claim)
