"""Grappler-style passes over `df` modules: one xDSL `ModulePass` per file, a registry users
extend with `@register_pass`, and the pipeline (`pipeline.py`, TF's MetaOptimizer).

    @register_pass
    @dataclass(frozen=True)
    class MyPass(ModulePass):
        name = "my-pass"
        def apply(self, ctx, module): ...

`passes` may import `ir` and the runtime kernels (constant folding runs the NumPy kernels),
never `frontend` or `lowering`.
"""
from __future__ import annotations

from xdsl.passes import ModulePass

PASSES: dict = {}


def register_pass(cls):
    """Make a ModulePass available by its `name` to pipelines and flowjit-opt."""
    name = getattr(cls, "name", None)
    if not name:
        raise ValueError(f"{cls.__name__} needs a `name`")
    if name in PASSES and PASSES[name] is not cls:
        raise ValueError(f"a pass named '{name}' is already registered ({PASSES[name]})")
    PASSES[name] = cls
    return cls


def get_pass(name: str, **options) -> ModulePass:
    cls = PASSES.get(name)
    if cls is None:
        raise ValueError(f"unknown pass '{name}'; registered passes: {', '.join(sorted(PASSES))}")
    try:
        return cls(**options)
    except TypeError as e:
        raise ValueError(f"pass '{name}': bad options {options}: {e}") from None


from . import (dce, cse, shape_inference, constant_folding, arithmetic, remapper,  # noqa: E402,F401
               inline, licm, dependency, debug_stripper, layout)  # (registers the built-ins)
