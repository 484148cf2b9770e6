"""String ops under XLA: refused at compile time, as TF does (XLA has no string type). The
driver's check (`core.refuse_strings`) names the first op touching a string tensor before any
rule runs; these rules only register the refusal for the string ops themselves."""
from __future__ import annotations

from ...ir.registry import OPS
from .core import refuse_strings, register_lowering

for _name, _opdef in OPS.items():
    if _opdef.family == "strings":
        register_lowering(_name)(lambda ctx, op, *operands: refuse_strings(ctx.fname, op))
