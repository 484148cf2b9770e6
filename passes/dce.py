"""`dce`: remove pure ops whose results are unused (never a token-carrying op)."""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from . import register_pass
from .effects import is_dead


def remove_dead(module) -> int:
    """Erase dead ops, innermost and last first so chains die in one sweep."""
    removed = 0
    for op in reversed(list(module.walk())):
        if op.parent is not None and is_dead(op):
            Rewriter.erase_op(op, safe_erase=False)
            removed += 1
    return removed


@register_pass
@dataclass(frozen=True)
class DeadCodeElimination(ModulePass):
    name = "dce"

    def apply(self, ctx, op) -> None:
        while remove_dead(op):
            pass
