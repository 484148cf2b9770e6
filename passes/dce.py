"""`dce`: remove pure ops whose results are unused (never a token-carrying op)."""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from ..ir.effects import is_dead
from ..ir.walk import preorder
from . import register_pass


def remove_dead(module) -> int:
    """Erase dead ops in one sweep, in reverse pre-order. In pre-order a value's definition
    comes before all its uses (dominance; uses inside nested regions included) and a region op
    before its body, so walking backwards visits every op after all its users and after its
    own body: a dead chain, or a region op whose body is pure and whose results are unused,
    goes in one sweep. Returns how many ops were erased (nested ones of an erased region op
    not counted)."""
    removed = 0
    for op in reversed(preorder(module.regions, [])):
        if op.parent is not None and is_dead(op):
            Rewriter.erase_op(op, safe_erase=False)
            removed += 1
    return removed


@register_pass
@dataclass(frozen=True)
class DeadCodeElimination(ModulePass):
    name = "dce"

    def apply(self, ctx, op) -> bool:
        return remove_dead(op) > 0
