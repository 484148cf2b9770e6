"""Grappler-style passes over `df` modules: one xDSL `ModulePass` per file, a registry users
extend with `@register_pass`, and the pipeline (`pipeline.py`, TF's MetaOptimizer).

    @register_pass(after="cse")          # or plain @register_pass: by name only
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
# name -> ("after" | "before", anchor): user passes placed in the default schedule.
PLACEMENTS: dict = {}
# The pipeline spec's name for the whole default schedule ("default,my-pass").
DEFAULT_NAME = "default"


def register_pass(cls=None, *, after: str | None = None, before: str | None = None):
    """Make a ModulePass available by its `name` to pipelines and flowjit-opt. With `after=`
    or `before=` (the name of a pass in the default schedule) it also joins the default
    schedule right after / before that pass. Usable as `@register_pass` or
    `@register_pass(after="cse")`."""
    if after is not None and before is not None:
        raise ValueError("register_pass takes after= or before=, not both")
    if cls is None:
        return lambda c: register_pass(c, after=after, before=before)
    name = getattr(cls, "name", None)
    if not name:
        raise ValueError(f"{cls.__name__} needs a `name`")
    if name == DEFAULT_NAME:
        raise ValueError(f"'{DEFAULT_NAME}' names the default schedule in pipeline specs; "
                         f"choose another name for {cls.__name__}")
    if name in PASSES and PASSES[name] is not cls:
        raise ValueError(f"a pass named '{name}' is already registered ({PASSES[name]})")
    anchor = after or before
    if anchor is not None:
        from .pipeline import schedule
        order = schedule()
        if anchor not in order:
            raise ValueError(f"register_pass({name!r}): '{anchor}' is not in the default "
                             f"schedule: {', '.join(order)}")
        PLACEMENTS[name] = ("after" if after else "before", anchor)
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
