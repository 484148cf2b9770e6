"""`debug-stripper` (off by default; TF's `debug_stripper` option turns it on): removes
`df.assert` ops, as Grappler's DebugStripper turns Assert into a no-op. The token chain is
rethreaded: whatever consumed the assert's token takes the token the assert consumed, so the
other side effects keep their order. The condition and data computations become dead and
`dce` removes them. `df.print` stays (it is output, not a check)."""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from . import register_pass


def strip_asserts(module) -> int:
    asserts = [op for op in module.walk() if op.name == "df.assert"]
    for op in asserts:
        op.results[-1].replace_all_uses_with(op.operands[-1])
        Rewriter.erase_op(op)
    return len(asserts)


@register_pass
@dataclass(frozen=True)
class DebugStripper(ModulePass):
    name = "debug-stripper"

    def apply(self, ctx, op) -> None:
        strip_asserts(op)
