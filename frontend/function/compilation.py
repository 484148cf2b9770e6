"""Compiling one trace: import → passes → executor plan, or → StableHLO → XLA.

Everything a cache miss does lives here, as functions of the trace's `Program` (program.py),
which keeps what they build: the df module (imported once), the pass pipeline, the executor
Plan, the lowering of an XLA executable (one per concrete argument shape, under the one key
`xla_key`), the compile logs (`FLOWJIT_LOG_COMPILES=1`) and the dumps (`FLOWJIT_DUMP_TO`).
Callers hold `context.COMPILE_LOCK`.
"""
from __future__ import annotations

import logging
import time

from ...ir.registry import TT, ResourceTT
from ...ir.shapes import format_shape
from ...lowering import rule_generation
from ...runtime import profiler
from ..eager import config

log = logging.getLogger("flowjit")


def _import(program):
    from ...ir.importer import import_graph
    cf = program.record
    t0 = time.perf_counter()
    with profiler.phase("import"):
        module = import_graph(cf.graph, cf.name)
    cf.timings["import"] = time.perf_counter() - t0
    return module


def dataflow_module(program):
    """The df module before passes (imported once, when first asked for)."""
    if program.module is None:
        program.module = _import(program)
    return program.module


def optimized_module(program):
    """The df module after the pass pipeline. Unless the dataflow module was asked for
    already (then it is copied and kept), the pipeline runs on a module imported for it:
    importing is cheaper than copying (xDSL's clone of 10k ops costs more than the import),
    and the dataflow stage, asked for later, imports its own."""
    if program.optimized is None:
        module = program.module.clone() if program.module is not None else _import(program)
        program.optimized = optimize(program, module, program.record.timings)
    return program.optimized


def optimize(program, module, timings):
    """Run the pass pipeline (the function's `passes=` spec, else the default schedule)."""
    from ...passes.pipeline import run_pipeline
    t0 = time.perf_counter()
    with profiler.phase("passes"):
        program.last_pipeline_report = run_pipeline(module, program.record.passes_spec)
    timings["passes"] = time.perf_counter() - t0
    return module


def pipeline_report(program, module=None):
    """Run the pipeline on a copy of `module` (default: the dataflow module) recording the IR
    after every pass: the `after:<pass>` stages and `pass_report()` read it."""
    from ...passes.pipeline import run_pipeline
    module = (module or dataflow_module(program)).clone()
    return run_pipeline(module, program.record.passes_spec, record_ir=True)


def build_plan(program):
    """The executor Plan of the optimized module."""
    from ...lowering.plan import build_plan as plan_of
    cf = program.record
    module = optimized_module(program)
    t0 = time.perf_counter()
    with profiler.phase("plan"):
        plan = plan_of(module, cf.name)
    cf.timings["plan"] = time.perf_counter() - t0
    if config.LOG_COMPILES:
        log.warning("flowjit: %s import %.1f ms, plan %.1f ms", cf.name,
                    cf.timings.get("import", 0) * 1e3, cf.timings["plan"] * 1e3)
    if config.dump_dir():
        _dump(cf, None)
    return plan


# --- XLA ----------------------------------------------------------------------------------
def xla_key(program, values) -> tuple:
    """The one key of a trace's XLA executables: the concrete shapes of the arguments and of
    the variables declared with `None` dims, and the generation of the lowering rules
    (overriding a rule recompiles). `values`: the arguments' device buffers followed by the
    captures (ResourceHandles for variables)."""
    cf = program.record
    n = cf.num_args
    return (tuple([v.shape for v in values[:n]]),
            tuple([values[n + i].value_shape() for i in cf.resizable]),
            rule_generation.GENERATION)


def compile_xla(program, values, build, donate):
    """Specialize the trace to these values' shapes, import, optimize and lower it, then
    `build(lowered, values, timings)` the backend's executable from the lowered module.
    `donate`: whether variables' buffers are donated to the executable."""
    from ...ir.importer import import_graph
    from ...ir.specialize import specialize
    from ...lowering.stablehlo import lower_module
    cf = program.record
    timings = {"trace": cf.timings.get("trace", 0.0)}
    t0 = time.perf_counter()
    with profiler.phase("import"):
        graph = specialize(cf.graph, _concrete_types(cf, values))
        module = import_graph(graph, cf.name)
    t1 = time.perf_counter()
    timings["import"] = t1 - t0
    module = optimize(program, module, timings)
    t2 = time.perf_counter()
    with profiler.phase("lowering"):
        lowered = lower_module(module, cf.name, donate=donate)
    timings["lowering"] = time.perf_counter() - t2
    exe = build(lowered, values, timings)
    exe.rule_generation = rule_generation.GENERATION   # a cached call checks it cheaply
    exe.df_module = module
    exe.lowered = lowered
    for hook in AFTER_XLA_COMPILE:
        hook(cf, values, exe)
    if config.LOG_COMPILES:
        reused = program.compile_count   # earlier compiles reuse the trace
        how = (f"reusing its trace (compile {reused + 1} of that trace)" if reused
               else "after tracing")
        log.warning("flowjit: XLA compile of %s for %s, %s: %s", cf.name,
                    shape_signature(cf, values), how,
                    ", ".join(f"{k} {v * 1e3:.1f} ms" for k, v in timings.items()))
    if config.dump_dir():
        _dump(cf, values, exe)
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
    for i, p in enumerate(cf.graph.inputs[:cf.num_args]):
        tt = p.out_types[0]
        shape = tuple(values[i].shape) if values is not None else tt.shape
        parts.append(f"{tt.dtype.mlir}{format_shape(shape)}")
    return ",".join(parts)


# Called with (cf, values, executable) after every XLA compile: the compilation cache stores
# the executable there (warm_start.py registers it).
AFTER_XLA_COMPILE: list = []

# Writes every compiler-IR stage of a compile to FLOWJIT_DUMP_TO: `dump(cf, values,
# executable)`, set by compiler_ir.py (which reads the stages through this module).
DUMPERS: list = []


def _dump(cf, values, executable=None):
    for dump in DUMPERS:
        dump(cf, values, executable)
