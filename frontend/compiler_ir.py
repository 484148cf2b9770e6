"""The compiler-IR API: every stage of a ConcreteFunction as text, from one registry.

`Function.experimental_get_compiler_ir(*args)(stage=...)` is TF's entry point;
`Function.compiler_ir(*args)` returns a `CompilerIR` with `.stages` and `.text(stage)`.
Stages are registered with `@stage(name)`; the XLA stages join when the StableHLO backend does.
"""
from __future__ import annotations

STAGES: dict = {}


def stage(name: str, doc: str):
    def deco(fn):
        fn.__doc__ = doc
        STAGES[name] = fn
        return fn
    return deco


@stage("graph", "The traced FuncGraph (nodes, attributes, control inputs, locations).")
def _graph(cf):
    return cf.graph.to_text()


@stage("dataflow", "The df module imported from the FuncGraph, before passes.")
def _dataflow(cf):
    from ..ir.printing import print_module
    return print_module(cf.dataflow_module())


@stage("optimized", "The df module after the pass pipeline.")
def _optimized(cf):
    from ..ir.printing import print_module
    return print_module(cf.optimized_module())


def stage_text(cf, name: str) -> str:
    fn = STAGES.get(name)
    if fn is None:
        raise ValueError(f"Unknown compiler IR stage {name!r}; known stages: "
                         f"{', '.join(STAGES)}")
    return fn(cf)


def get_compiler_ir(cf):
    """TF's `experimental_get_compiler_ir(...)` result: call it with `stage=`."""
    def compiler_ir(stage: str = "hlo", **kwargs):
        return stage_text(cf, stage)
    return compiler_ir


class CompilerIR:
    """Every stage of one ConcreteFunction."""

    def __init__(self, cf):
        self._cf = cf

    @property
    def stages(self) -> list:
        return list(STAGES)

    def text(self, stage: str) -> str:
        return stage_text(self._cf, stage)

    def timings(self) -> dict:
        return dict(self._cf.timings)
