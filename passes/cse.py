"""`cse`: merge pure, region-free ops with the same name, operands, attributes and result
types. Flat and scoped: a value computed above a region is reused inside it (it dominates),
never the other way round."""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from . import register_pass
from .effects import is_pure


def _key(op):
    return (op.name, tuple(op.operands), tuple(sorted(op.attributes.items())),
            tuple(r.type for r in op.results))


def cse_block(block, known: dict) -> int:
    merged = 0
    for op in list(block.ops):
        if op.regions:
            for region in op.regions:
                for b in region.blocks:
                    merged += cse_block(b, dict(known))
            continue
        if not is_pure(op) or not op.results:
            continue
        k = _key(op)
        prev = known.get(k)
        if prev is None:
            known[k] = op
            continue
        for old, new in zip(op.results, prev.results):
            old.replace_all_uses_with(new)
        Rewriter.erase_op(op, safe_erase=False)
        merged += 1
    return merged


@register_pass
@dataclass(frozen=True)
class CommonSubexpressionElimination(ModulePass):
    name = "cse"

    def apply(self, ctx, op) -> None:
        for region in op.regions:
            for b in region.blocks:
                cse_block(b, {})
