"""The pass pipeline (Grappler's MetaOptimizer): a default schedule iterated to a fixpoint,
configured by TF's optimizer options or a pipeline spec such as `"cse,dce"` or
`"constant-folding{max-size=1024},dce"`, with a per-pass report.
"""
from __future__ import annotations

import difflib
import gc
import os
import time
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.utils.arg_spec import parse_pipeline

from . import PASSES, get_pass

# Grappler's order: shapes first, then folding and simplification, dedup, fusion, loops,
# control dependencies, and dead code removal last.
DEFAULT_SCHEDULE = ("shape-inference", "inline", "constant-folding", "arithmetic", "cse",
                    "remapper", "loop-invariant-code-motion", "layout", "dependency", "dce")
MAX_ITERATIONS = 3

# TF's `config.optimizer.set_experimental_options` keys -> the passes they switch.
TF_OPTIONS = {
    "layout_optimizer": ("layout",),
    "constant_folding": ("constant-folding",),
    "shape_optimization": ("shape-inference",),
    "remapping": ("remapper",),
    "arithmetic_optimization": ("arithmetic", "cse"),
    "dependency_optimization": ("dependency",),
    "loop_optimization": ("loop-invariant-code-motion",),
    "function_optimization": ("inline",),
    "debug_stripper": ("debug-stripper",),
    "disable_model_pruning": (),
    "scoped_allocator_optimization": (),
    "pin_to_host_optimization": (),
    "implementation_selector": (),
    "auto_mixed_precision": (),
    "disable_meta_optimizer": (),
    "min_graph_nodes": (),
}
OFF_BY_DEFAULT = {"debug-stripper"}

_options: dict = {}


def set_experimental_options(options: dict):
    """Validate and store TF's optimizer options (unknown keys raise, listing valid ones)."""
    bad = sorted(set(options) - set(TF_OPTIONS))
    if bad:
        raise ValueError(f"unknown optimizer option(s) {bad}; valid options: "
                         f"{', '.join(sorted(TF_OPTIONS))}")
    _options.update(options)


def get_experimental_options() -> dict:
    return dict(_options)


def default_passes() -> list:
    """The default schedule after TF's options (registered passes only)."""
    if _options.get("disable_meta_optimizer"):
        return []
    on = [p for p in DEFAULT_SCHEDULE if p in PASSES and p not in OFF_BY_DEFAULT]
    for key, value in _options.items():
        for p in TF_OPTIONS[key]:
            if value is False and p in on:
                on.remove(p)
            elif value is True and p not in on and p in PASSES:
                on.insert(len(on) - 1, p)
    if _options.get("disable_model_pruning") and "dce" in on:
        on.remove("dce")
    return on


def parse_spec(spec: str) -> list:
    """A pipeline spec -> pass instances; unknown names or options raise."""
    out = []
    for p in parse_pipeline(spec):
        opts = {k.replace("-", "_"): _option_value(v) for k, v in p.parameters.items()}
        out.append(get_pass(p.name, **opts))
    return out


def _option_value(v):
    vals = list(v)
    if len(vals) == 1:
        return vals[0]
    return tuple(vals)


@dataclass
class PassRecord:
    name: str
    seconds: float
    ops_before: int
    ops_after: int
    iteration: int
    ir_after: str | None = None
    diff: str | None = None

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("name", "seconds", "ops_before", "ops_after",
                                               "iteration", "diff")}


@dataclass
class PipelineReport:
    records: list = field(default_factory=list)

    def after(self, name: str) -> str:
        for r in reversed(self.records):
            if r.name == name and r.ir_after is not None:
                return r.ir_after
        raise ValueError(f"pass '{name}' did not run; ran: "
                         f"{', '.join(dict.fromkeys(r.name for r in self.records))}")

    def table(self) -> str:
        lines = [f"{'pass':<28} {'iter':>4} {'ms':>8} {'ops before':>10} {'ops after':>9}"]
        for r in self.records:
            lines.append(f"{r.name:<28} {r.iteration:>4} {r.seconds * 1e3:>8.2f} "
                         f"{r.ops_before:>10} {r.ops_after:>9}")
        return "\n".join(lines)


def count_ops(module) -> int:
    return sum(1 for _ in module.walk())


def run_pipeline(module, spec=None, *, record_ir: bool = False, verify_each: bool | None = None):
    """Run the pipeline on `module` in place; returns a PipelineReport.

    `spec` None runs the default schedule to a fixpoint (at most MAX_ITERATIONS rounds);
    a spec string or list of passes runs once, in order."""
    from ..ir.printing import print_module
    if verify_each is None:
        verify_each = os.environ.get("FLOWJIT_VERIFY_EACH_PASS") == "1"
    if spec is None:
        passes = [get_pass(n) for n in default_passes()]
        rounds = MAX_ITERATIONS
    else:
        passes = parse_spec(spec) if isinstance(spec, str) else list(spec)
        rounds = 1
    ctx = Context()
    report = PipelineReport()
    before_text = print_module(module) if record_ir else None
    gc_was = gc.isenabled()
    gc.disable()  # xDSL allocates many small objects; the notes measured up to 30% faster
    try:
        for it in range(rounds):
            start = count_ops(module)
            for p in passes:
                n0 = count_ops(module)
                t0 = time.perf_counter()
                p.apply(ctx, module)
                dt = time.perf_counter() - t0
                n1 = count_ops(module)
                rec = PassRecord(p.name, dt, n0, n1, it)
                if record_ir:
                    text = print_module(module)
                    rec.ir_after = text
                    if text != before_text:
                        rec.diff = "".join(difflib.unified_diff(
                            before_text.splitlines(True), text.splitlines(True),
                            f"before {p.name}", f"after {p.name}", n=2))
                    before_text = text
                report.records.append(rec)
                if verify_each:
                    module.verify()
            if spec is not None or count_ops(module) == start and not _changed(report, it):
                break
    finally:
        if gc_was:
            gc.enable()
    module.verify()
    return report


def _changed(report, it) -> bool:
    return any(r.ops_before != r.ops_after for r in report.records if r.iteration == it)
