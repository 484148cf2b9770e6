"""`tf.distribute`: MirroredStrategy as per-replica programs on XLA's replicas.

`strategy.run(fn, args)` traces `fn` once (a `function(jit_compile=True)`) on one replica's
arguments and compiles it for `num_replicas` = the strategy's device count: every device runs
the same program on its own values, and `ReplicaContext.all_reduce` (also the optimizers'
gradient aggregation) lowers to `stablehlo.all_reduce` across the replicas. Variables created
in `scope()` hold one copy per device (a replicated array); after a step that aggregates its
gradients every copy holds the same value.
"""
from __future__ import annotations

import contextlib
import enum
import threading

from ...runtime import spmd
from ..composite.base import CompositeTensor
from ..eager import dispatch
from ..data.distribute import DistributedDataset
from ..export import runs, tf_export
from ..ops.collective import all_reduce
from .per_replica import PerReplica
from ..eager.tensor import Tensor
from ..state.variables import Variable


class ReduceOp(enum.Enum):
    """TF's `tf.distribute.ReduceOp`."""
    SUM = "SUM"
    MEAN = "MEAN"


def _reduction(reduce_op) -> str:
    if isinstance(reduce_op, str):
        reduce_op = ReduceOp(reduce_op.upper())
    return reduce_op.value.lower()


@tf_export("distribute.ReplicaContext")
class ReplicaContext:
    """TF's `tf.distribute.ReplicaContext`: inside `run`, the replica's view of the group."""

    def __init__(self, strategy, num_replicas: int):
        self._strategy = strategy
        self._num = num_replicas

    strategy = property(lambda self: self._strategy)
    num_replicas_in_sync = property(lambda self: self._num)

    @runs("all_reduce")
    def all_reduce(self, reduce_op, value, options=None):
        """`value` (a tensor or a nest of tensors) reduced over every replica."""
        from .. import nest
        how = _reduction(reduce_op)

        def reduce(v):
            if not isinstance(v, CompositeTensor) or self._num > 1:
                # a composite (IndexedSlices) is reduced dense: its rows differ per replica
                return all_reduce(dispatch.convert_to_tensor(v), how, self._num)
            return v      # one replica's composite is its own reduction
        return nest.map_structure(reduce, value, expand_composites=False)


class ValueContext:
    """TF's `tf.distribute.experimental.ValueContext`."""

    def __init__(self, replica_id_in_sync_group=0, num_replicas_in_sync=1):
        self.replica_id_in_sync_group = replica_id_in_sync_group
        self.num_replicas_in_sync = num_replicas_in_sync


class InputContext:
    """TF's `tf.distribute.InputContext`: which input pipeline a `dataset_fn` builds."""

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self.num_input_pipelines = num_input_pipelines
        self.input_pipeline_id = input_pipeline_id
        self.num_replicas_in_sync = num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size):
        if global_batch_size % self.num_replicas_in_sync != 0:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible "
                             f"by `num_replicas_in_sync` {self.num_replicas_in_sync}")
        return global_batch_size // self.num_replicas_in_sync


_STATE = threading.local()   # .replica: the ReplicaContext of a run being traced
_DEFAULT = None


def get_replica_context():
    """The replica context: the tracing replica's inside `run`, None inside `scope()` (a
    cross-replica context, as TF), else the default single-replica context."""
    ctx = getattr(_STATE, "replica", None)
    if ctx is not None:
        return ctx
    if getattr(_STATE, "strategy", None) is not None:
        return None
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = ReplicaContext(None, 1)
    return _DEFAULT


def in_cross_replica_context() -> bool:
    return getattr(_STATE, "replica", None) is None and \
        getattr(_STATE, "strategy", None) is not None


def get_strategy():
    return getattr(_STATE, "strategy", None)


def aggregate_gradients(grads):
    """The optimizers' gradient aggregation: summed over the replicas inside `run`."""
    ctx = getattr(_STATE, "replica", None)
    if ctx is None or ctx.num_replicas_in_sync == 1:
        return grads
    # an IndexedSlices is summed dense (its rows differ per replica)
    return [g if g is None else all_reduce(dispatch.convert_to_tensor(g), "sum",
                                           ctx.num_replicas_in_sync) for g in grads]


class MirroredStrategy:
    """TF's `tf.distribute.MirroredStrategy(devices=None)`: synchronous data parallelism
    over the given devices (default: every device of the default platform)."""

    def __init__(self, devices=None, cross_device_ops=None):
        from .dtensor import create_mesh
        self._mesh = create_mesh([("replica", len(devices) if devices else
                                   len(spmd.devices()))], devices=devices)
        self._jax_mesh = self._mesh.jax_mesh
        self._functions: dict = {}
        self._programs: dict = {}   # ConcreteFunction -> its replica Program

    num_replicas_in_sync = property(lambda self: self._mesh.size)
    extended = property(lambda self: self)

    @property
    def worker_devices(self):
        return tuple(self._mesh.local_devices())

    @contextlib.contextmanager
    def scope(self):
        """Variables created inside hold one copy per replica."""
        from ..function.context import context
        ctx = context()
        prev_strategy, prev_hook = getattr(_STATE, "strategy", None), ctx.create_hook
        _STATE.strategy = self
        ctx.create_hook = self._create_variable_value
        try:
            yield self
        finally:
            _STATE.strategy = prev_strategy
            ctx.create_hook = prev_hook

    def _create_variable_value(self, initial_value, dtype):
        value = dispatch.convert_to_tensor(initial_value() if callable(initial_value)
                                           else initial_value, dtype=dtype)
        return Tensor._wrap(spmd.put(value._host(), spmd.sharding(self._jax_mesh, ())),
                            value.dtype)

    def experimental_distribute_values_from_function(self, value_fn):
        n = self.num_replicas_in_sync
        return PerReplica([dispatch.convert_to_tensor(value_fn(ValueContext(i, n)))
                           for i in range(n)])

    def experimental_distribute_dataset(self, dataset, options=None):
        """Each global batch of `dataset` split along its first axis over the replicas."""
        return DistributedDataset.split_batches(dataset, self.num_replicas_in_sync)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """One input pipeline (`dataset_fn(InputContext)`); replicas take its elements in
        turn, each a per-replica batch."""
        n = self.num_replicas_in_sync
        return DistributedDataset.round_robin(dataset_fn(InputContext(1, 0, n)), n)

    def experimental_local_results(self, value):
        """The per-replica values: a PerReplica's, or for a variable created in this
        strategy's scope its copy on each replica device (as tensors), else `(value,)`."""
        if isinstance(value, PerReplica):
            return value.values
        held = getattr(getattr(value, "_value", None), "_value", None)
        if isinstance(value, Variable) and getattr(held, "sharding", None) is not None and \
                getattr(held.sharding, "mesh", None) == self._jax_mesh:
            return tuple(Tensor._wrap(p, value.dtype) for p in spmd.device_shards(held))
        return (value,)

    def run(self, fn, args=(), kwargs=None):
        """`fn(*args)` on every replica: a PerReplica argument gives each replica its own
        value, any other argument is read by all. Returns PerReplica results (plain tensors
        with one replica)."""
        from ..function import func_graph, trace_type
        from .. import nest
        args, kwargs = tuple(args), dict(kwargs or {})
        if func_graph.current() is not None:
            return self._run_in_graph(fn, args, kwargs)
        compiled, cf, first = self._replica_trace(fn, args, kwargs)
        program = self._programs.get(cf)
        if program is None:
            from ..function.program import Program
            program = self._programs[cf] = Program(cf, ReplicaBackend(self._jax_mesh))
        # The function's tensor arguments in its own order (replica 0's stand for theirs).
        replicas = {id(v.values[0]): v
                    for v in nest.flatten((args, kwargs), expand_composites=False)
                    if isinstance(v, PerReplica)}
        flat: list = []
        trace_type.key_and_flat(compiled.bind(first[0], first[1]), flat)
        return program([[c._host() for c in replicas[id(t)].values] if id(t) in replicas else
                        t._host() for t in flat])

    def _replica_trace(self, fn, args, kwargs):
        """(fn as a jit-compiled function, its trace on replica 0's arguments, those
        arguments), traced under a ReplicaContext."""
        from .. import nest
        from ..function.function import function
        compiled = self._functions.get(fn)
        if compiled is None:
            compiled = self._functions[fn] = function(fn, jit_compile=True)
        first = nest.map_structure(lambda v: v.values[0] if isinstance(v, PerReplica) else v,
                                   (args, kwargs), expand_composites=False)
        prev, _STATE.replica = getattr(_STATE, "replica", None), \
            ReplicaContext(self, self.num_replicas_in_sync)
        try:
            cf = compiled.get_concrete_function(*first[0], **first[1])
        finally:
            _STATE.replica = prev
        return compiled, cf, first

    def _run_in_graph(self, fn, args, kwargs):
        """`run` while a tf.function traces: one stateful host call that runs the replica
        program (as an eager `run` does) when the function runs, so its variable updates
        happen in program order; the results are PerReplica values of the call's outputs."""
        from .. import nest
        from ..ops.checks import ensure_shape
        from ..ops.script import py_function
        n = self.num_replicas_in_sync
        _, cf, _ = self._replica_trace(fn, args, kwargs)
        leaves = nest.flatten((args, kwargs), expand_composites=False)
        inputs = [t for v in leaves if isinstance(v, (PerReplica, Tensor))
                  for t in (v.values if isinstance(v, PerReplica) else (v,))]
        outs = nest.flatten(cf.structured_outputs, expand_composites=False)

        def call(*values):
            it = iter(values)
            given = [PerReplica([next(it) for _ in v.values]) if isinstance(v, PerReplica) else
                     next(it) if isinstance(v, Tensor) else v for v in leaves]
            args2, kwargs2 = nest.pack_sequence_as((args, kwargs), given, expand_composites=False)
            results = nest.flatten(self.run(fn, args2, kwargs2), expand_composites=False)
            return [r for res in results for r in
                    (res.values if isinstance(res, PerReplica) else (res,) * n)]
        flat = py_function(call, inputs, [o.dtype for o in outs for _ in range(n)])
        per = [PerReplica([ensure_shape(t, o.shape) for t in flat[i * n:(i + 1) * n]])
               if n > 1 else ensure_shape(flat[i], o.shape) for i, o in enumerate(outs)]
        return nest.pack_sequence_as(cf.structured_outputs, per, expand_composites=False)

    def update(self, var, fn, args=(), kwargs=None, group=True):
        """TF's `strategy.extended.update`: `fn(var, *args, **kwargs)` on the mirrored
        variable, whose one value serves every replica (Keras's optimizers update through
        it)."""
        return fn(var, *tuple(args), **dict(kwargs or {}))

    def reduce(self, reduce_op, value, axis=None):
        """Reduce a PerReplica value across replicas (and along `axis` within each)."""
        import numpy as np
        from ..function import func_graph
        if func_graph.current() is not None:
            return _reduce_in_graph(_reduction(reduce_op),
                                    self.experimental_local_results(value), axis)
        parts = [dispatch.convert_to_tensor(v)._host()
                 for v in self.experimental_local_results(value)]
        how = _reduction(reduce_op)
        dtype = dispatch.convert_to_tensor(parts[0]).dtype
        if axis is None:
            stacked = np.stack(parts)
            out = stacked.sum(0) if how == "sum" else stacked.mean(0)
        else:
            joined = np.concatenate(parts, axis=axis)
            out = joined.sum(axis) if how == "sum" else joined.mean(axis)
        return Tensor(np.asarray(out, dtype=dtype.np), dtype)


class ReplicaBackend:
    """`MirroredStrategy.run`'s programs: one per-device program every device of the mesh
    runs on its own arguments (`num_replicas` = the device count). A call's flat arguments
    are host values, a list of per-replica values for a PerReplica argument."""

    lowers_to_xla = True

    def __init__(self, jax_mesh):
        self.jax_mesh = jax_mesh

    def key(self, program, values):
        from ..function import compilation
        return compilation.xla_key(program, _replica0(values))

    def compile(self, program, values):
        from ..function import compilation
        return compilation.compile_xla(
            program, _replica0(values), lambda lowered, values, timings: self._build(
                program.record, lowered, timings), donate=False)

    def call(self, program, flat):
        from ..function.function_call import rebuild
        record = program.record
        vals = flat + record.capture_values
        outs = program.executable(vals)(vals)
        per = [PerReplica([Tensor._wrap(p, dt) for p in pieces]) if len(pieces) > 1 else
               Tensor._wrap(pieces[0], dt) for pieces, dt in zip(outs, record.out_dtypes)]
        return rebuild(record.structure, per)

    def _build(self, record, lowered, timings):
        if lowered.host_inputs:
            from ...ir.errors import UnimplementedError
            raise UnimplementedError(None, None, f"{record.name}: stateful random ops are "
                                     f"not supported under MirroredStrategy.run")
        return spmd.build_replicas(lowered.module, self.jax_mesh, lowered.num_results,
                                   lowered.written_args, timings)


def _reduce_in_graph(how, parts, axis):
    from ..ops import array
    from ..ops import reduce as R
    parts = [dispatch.convert_to_tensor(p) for p in parts]
    joined = array.stack(parts) if axis is None else array.concat(parts, axis)
    return (R.reduce_sum if how == "sum" else R.reduce_mean)(joined, 0 if axis is None
                                                             else axis)


def _replica0(values):
    """Replica 0's values stand for all (the key and the compile see one replica)."""
    return [v[0] if type(v) is list else v for v in values]


__all__ = ["InputContext", "MirroredStrategy", "ReduceOp", "ReplicaContext", "get_replica_context",
           "in_cross_replica_context", "get_strategy"]
