"""The compiler-IR API: every stage of a ConcreteFunction, from one registry.

`Function.experimental_get_compiler_ir(*args)(stage=...)` is TF's entry point;
`Function.compiler_ir(*args)` returns a `CompilerIR` with `.stages`, `.text(stage)`,
`.cost_analysis()`, `.memory_analysis()` and `.timings()`. Graph-level stages need only the
trace; XLA stages specialize to the concrete arguments given (so `None` dims work, unlike TF).
"""
from __future__ import annotations

from . import compilation
from ..eager import config

STAGES: dict = {}
XLA_STAGES = ("stablehlo", "stablehlo_serialized", "hlo", "hlo_no_metadata", "hlo_serialized",
              "optimized_hlo", "optimized_hlo_serialized", "optimized_hlo_proto_serialized",
              "optimized_hlo_dot")


def stage(name: str, doc: str):
    def deco(fn):
        fn.__doc__ = doc
        STAGES[name] = fn
        return fn
    return deco


@stage("source", "The Python source that was traced: AutoGraph's converted code, each line "
                 "tagged with the user line it comes from (the original source when "
                 "autograph=False).")
def _source(ir):
    from ..autograph.converter import source_stage
    return source_stage(ir.cf.function)


@stage("graph", "The traced FuncGraph (nodes, attributes, control inputs, locations).")
def _graph(ir):
    return ir.cf.graph.to_text()


@stage("dataflow", "The df module imported from the FuncGraph, before passes.")
def _dataflow(ir):
    from ...ir.printing import print_module
    return print_module(ir.cf.dataflow_module())


@stage("optimized", "The df module after the pass pipeline.")
def _optimized(ir):
    from ...ir.printing import print_module
    return print_module(ir.cf.optimized_module())


@stage("stablehlo", "StableHLO as lowered (MLIR text with locations).")
def _stablehlo(ir):
    return ir.xla().lowered.module.operation.get_asm(enable_debug_info=True)


@stage("stablehlo_serialized", "StableHLO as MLIR bytecode (bytes).")
def _stablehlo_serialized(ir):
    from ...runtime.jax_internals import module_to_bytecode
    return module_to_bytecode(ir.xla().lowered.module)


@stage("hlo", "HLO before XLA's optimizations, each instruction with TF's metadata={op_type "
              "op_name source_file source_line}.")
def _hlo(ir):
    from ...runtime.jax_internals import hlo_text
    return hlo_text(ir.xla().lowered.module)


@stage("hlo_no_metadata", "HLO before optimizations, without op metadata.")
def _hlo_no_metadata(ir):
    from ...runtime.jax_internals import hlo_text
    return hlo_text(ir.xla().lowered.module, metadata=False)


@stage("hlo_serialized", "The HloModuleProto before optimizations (bytes).")
def _hlo_serialized(ir):
    from ...runtime.jax_internals import hlo_computation
    return hlo_computation(ir.xla().lowered.module).as_serialized_hlo_module_proto()


@stage("optimized_hlo", "HLO after XLA's optimizations (fusions visible).")
def _optimized_hlo(ir):
    return ir.xla().loaded.hlo_modules()[0].to_string()


@stage("optimized_hlo_serialized", "The optimized HloModuleProto (bytes).")
def _optimized_hlo_serialized(ir):
    return ir.xla().loaded.hlo_modules()[0].as_serialized_hlo_module_proto()


@stage("optimized_hlo_proto_serialized", "The optimized HloModuleProto (bytes; TF's alias).")
def _optimized_hlo_proto_serialized(ir):
    return _optimized_hlo_serialized(ir)


@stage("optimized_hlo_dot", "Graphviz dot of the optimized HLO.")
def _optimized_hlo_dot(ir):
    from ...runtime.jax_internals import xla_client as xc
    return xc.hlo.hlo_module_to_dot_graph(ir.xla().loaded.hlo_modules()[0])


class CompilerIR:
    """Every stage of one ConcreteFunction, specialized to `values` for the XLA stages
    (raw argument values; None when only symbolic specs were given). `executable`: the XLA
    executable of these values, when the caller has it (a compile dumping its stages)."""

    def __init__(self, cf, values=None, executable=None):
        self.cf = cf
        self._values = values
        self._executable = executable

    def xla(self):
        if self._executable is not None:
            return self._executable
        if self._values is None:
            raise ValueError(f"XLA stages of {self.cf.name} need concrete arguments (tensors, "
                             f"not TensorSpecs with None dims); graph stages "
                             f"({', '.join(s for s in STAGES if s not in XLA_STAGES)}) work "
                             f"without them")
        return self.cf.xla_specialization(self._values)

    @property
    def stages(self) -> list:
        return list(STAGES)

    def text(self, stage: str):
        if stage.startswith("after:"):
            return self.pipeline_report().after(stage[len("after:"):])
        fn = STAGES.get(stage)
        if fn is None:
            raise ValueError(f"Unknown compiler IR stage {stage!r}; known stages: "
                             f"{', '.join(STAGES)}, after:<pass>")
        return fn(self)

    def pipeline_report(self):
        """The pass pipeline's PipelineReport: each run's record with the IR after it."""
        if getattr(self, "_pipeline_report", None) is None:
            self._pipeline_report = self.cf.pipeline_report()
        return self._pipeline_report

    def pass_report(self) -> "PassReport":
        """Per pass run: name, seconds, op counts before/after, iteration, and a unified
        diff of the IR when the pass changed it (a list of dicts; printed, a table)."""
        return PassReport(r.as_dict() for r in self.pipeline_report().records)

    def __call__(self, stage: str = "hlo", device_name=None, platform_name=None):
        """TF's `experimental_get_compiler_ir(...)(stage=...)`."""
        return self.text(stage)

    def cost_analysis(self) -> dict:
        """XLA's cost estimate of the compiled computation (flops, bytes accessed, ...)."""
        return dict(self.xla().loaded.cost_analysis())

    def memory_analysis(self) -> dict:
        """XLA's memory sizes of the compiled program: per device for a sharded one (each
        device holds its shards of the arguments, results and temporaries)."""
        stats = self.xla().loaded.get_compiled_memory_stats()
        return {k: getattr(stats, k) for k in dir(stats)
                if k.endswith("_in_bytes") and not k.startswith("_")}

    def timings(self) -> dict:
        """Seconds per phase: trace, import, passes, lowering, XLA compile (when compiled)."""
        out = dict(self.cf.timings)
        if self._values is not None:
            out.update(self.xla().timings)
        return out


class PassReport(list):
    """`pass_report()`'s records (dicts), printed as a table: pass, round, time, ops
    before/after, changed."""

    def __str__(self):
        from ...passes.pipeline import pass_table
        return pass_table(self)


_EXT = {"stablehlo": "mlir", "dataflow": "mlir", "optimized": "mlir", "optimized_hlo_dot": "dot",
        "stablehlo_serialized": "mlirbc", "hlo_serialized": "pb",
        "optimized_hlo_serialized": "pb", "optimized_hlo_proto_serialized": "pb"}


def dump(ir: CompilerIR, directory: str, shapes: str, signature: str, xla: bool) -> list:
    """Write every stage (graph stages only when `xla` is False) as
    `<function>.<argument shapes>.<signature hash>.<stage>.<ext>` files, e.g.
    `step.f32[4],i32[].3f2a9c01d7.hlo.txt`; returns the paths written. The hash tells apart
    traces whose shapes agree (Python values, nested structures)."""
    import hashlib
    import os
    import re
    os.makedirs(directory, exist_ok=True)
    tag = hashlib.sha1(signature.encode()).hexdigest()[:10]
    stem = re.sub(r"[^\w.,\[\]?-]", "_", f"{ir.cf.name}.{shapes or 'noargs'}.{tag}")
    written = []
    for name in STAGES:
        if name in XLA_STAGES and not xla:
            continue
        data = ir.text(name)
        path = os.path.join(directory, f"{stem}.{name}.{_EXT.get(name, 'txt')}")
        with open(path, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        written.append(path)
    return written


def _dump_compile(cf, values, executable):
    """A compile's stages, written to FLOWJIT_DUMP_TO (graph stages only for a plan)."""
    dump(CompilerIR(cf, values, executable), config.dump_dir(),
         compilation.shape_signature(cf, values), repr(cf.trace_key), xla=values is not None)


compilation.DUMPERS.append(_dump_compile)
