"""Parsing ops under XLA: refused at compile time, as TF does for string tensors (the
driver's check, `core.refuse_strings`, names the op; these rules register the refusal)."""
from __future__ import annotations

from ...ir.registry import OPS
from .core import refuse_strings, register_lowering

for _name, _opdef in OPS.items():
    if _opdef.family == "parsing":
        register_lowering(_name)(lambda ctx, op, *operands: refuse_strings(ctx.fname, op))
