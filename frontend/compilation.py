"""Compiling one ConcreteFunction: import → passes → executor plan, or → StableHLO → XLA.

Everything a cache miss does lives here: the df module (imported once), the pass pipeline,
the executor Plan, the XLA executables (one per concrete argument shape, under the one key
`xla_key`), the compile logs (`FLOWJIT_LOG_COMPILES=1`) and the dumps (`FLOWJIT_DUMP_TO`).
Callers hold `tracing.COMPILE_LOCK`.
"""
from __future__ import annotations

import logging
import time

from ..ir.registry import TT, ResourceTT
from ..ir.shapes import format_shape
from ..lowering.stablehlo import core as stablehlo_core
from . import config

log = logging.getLogger("flowjit")

MAX_EXECUTABLES = 64      # XLA executables kept per ConcreteFunction (LRU)


def _import(cf):
    from ..ir.importer import import_graph
    t0 = time.perf_counter()
    module = import_graph(cf.graph, cf._name)
    cf.timings["import"] = time.perf_counter() - t0
    return module


def dataflow_module(cf):
    """The df module before passes (imported once, when first asked for)."""
    if cf._module is None:
        cf._module = _import(cf)
    return cf._module


def optimized_module(cf):
    """The df module after the pass pipeline. Unless the dataflow module was asked for
    already (then it is copied and kept), the pipeline runs on a module imported for it:
    importing is cheaper than copying (xDSL's clone of 10k ops costs more than the import),
    and the dataflow stage, asked for later, imports its own."""
    if cf._optimized is None:
        module = cf._module.clone() if cf._module is not None else _import(cf)
        cf._optimized = optimize(cf, module, cf.timings)
    return cf._optimized


def optimize(cf, module, timings):
    """Run the pass pipeline (the function's `passes=` spec, else the default schedule)."""
    from ..passes.pipeline import run_pipeline
    t0 = time.perf_counter()
    cf.last_pipeline_report = run_pipeline(module, cf._passes_spec)
    timings["passes"] = time.perf_counter() - t0
    return module


def pipeline_report(cf, module=None):
    """Run the pipeline on a copy of `module` (default: the dataflow module) recording the IR
    after every pass: the `after:<pass>` stages and `pass_report()` read it."""
    from ..passes.pipeline import run_pipeline
    module = (module or dataflow_module(cf)).clone()
    return run_pipeline(module, cf._passes_spec, record_ir=True)


def build_plan(cf):
    """The executor Plan of the optimized module."""
    from ..lowering.plan import build_plan as plan_of
    module = optimized_module(cf)
    t0 = time.perf_counter()
    cf._plan = plan_of(module, cf._name)
    cf.timings["plan"] = time.perf_counter() - t0
    cf._compile_count += 1
    if config.LOG_COMPILES:
        log.warning("flowjit: %s import %.1f ms, plan %.1f ms", cf._name,
                    cf.timings.get("import", 0) * 1e3, cf.timings["plan"] * 1e3)
    if config.dump_dir():
        _dump(cf, None)
    return cf._plan


# --- XLA ----------------------------------------------------------------------------------
def xla_key(cf, values) -> tuple:
    """The one key of a ConcreteFunction's XLA executables: the concrete shapes of the
    arguments and of the variables declared with `None` dims, and the generation of the
    lowering rules (overriding a rule recompiles). `values`: the arguments' device buffers
    followed by the captures (ResourceHandles for variables)."""
    n = cf._num_args
    return (tuple([v.shape for v in values[:n]]),
            tuple([values[n + i].value_shape() for i in cf._resizable]),
            stablehlo_core.RULE_GENERATION)


def xla_executable(cf, values):
    """The XLA executable for these argument values, compiling on a miss."""
    key = xla_key(cf, values)
    exe = cf._xla_cache.get(key)
    if exe is None:
        exe = _compile_xla(cf, values, key)
    return exe


def _compile_xla(cf, values, key):
    from ..ir.importer import import_graph
    from ..ir.specialize import specialize
    from ..runtime import xla
    timings = {"trace": cf.timings.get("trace", 0.0)}
    t0 = time.perf_counter()
    graph = specialize(cf.graph, _concrete_types(cf, values))
    module = import_graph(graph, cf._name)
    t1 = time.perf_counter()
    timings["import"] = t1 - t0
    module = optimize(cf, module, timings)
    t2 = time.perf_counter()
    build = cf._executable_builder   # a multi-device program's own (frontend/sharded.py)
    lowered = stablehlo_core.lower_module(module, cf._name,
                                          donate=cf._donate and build is None)
    timings["lowering"] = time.perf_counter() - t2
    exe = xla.build(lowered, timings, cf._num_args, values[cf._num_args:]) \
        if build is None else build(cf, lowered, values, timings)
    exe.rule_generation = key[2]   # a cached call checks it without building the key
    exe.df_module = module
    exe.lowered = lowered
    reused = cf._compile_count   # earlier compiles of this trace: this one reuses the trace
    cf._compile_count += 1
    cf._xla_cache[key] = exe
    if len(cf._xla_cache) > MAX_EXECUTABLES:
        cf._xla_cache.popitem(last=False)
    if config.LOG_COMPILES:
        how = (f"reusing its trace (compile {reused + 1} of that trace)" if reused
               else "after tracing")
        log.warning("flowjit: XLA compile of %s for %s, %s: %s", cf._name,
                    shape_signature(cf, values), how,
                    ", ".join(f"{k} {v * 1e3:.1f} ms" for k, v in timings.items()))
    if config.dump_dir():
        _dump(cf, values)
    return exe


def _concrete_types(cf, values):
    """The placeholders' types with the shapes of the values given (variables: their value's)."""
    types = []
    for p, v in zip(cf.graph.inputs, values):
        tt = p.out_types[0]
        if isinstance(tt, ResourceTT):
            types.append(ResourceTT.of(TT(tt.value.dtype, tuple(v.value_shape()))))
        else:
            types.append(TT(tt.dtype, tuple(v.shape)))
    return types


def shape_signature(cf, values=None) -> str:
    """The arguments' dtypes and shapes as `f32[4],i32[]` (concrete when `values` is given;
    `?` marks a `None` dim of the trace)."""
    parts = []
    for i, p in enumerate(cf.graph.inputs[:cf._num_args]):
        tt = p.out_types[0]
        shape = tuple(values[i].shape) if values is not None else tt.shape
        parts.append(f"{tt.dtype.mlir}{format_shape(shape)}")
    return ",".join(parts)


def _dump(cf, values):
    from .compiler_ir import CompilerIR, dump
    ir = CompilerIR(cf, values)
    dump(ir, config.dump_dir(), shape_signature(cf, values), repr(cf._key),
         xla=values is not None)
