"""`inline`: Grappler's function optimizer, for what df has.

Function calls: df has no call op. A `tf.function` called while another is being traced is
traced inline into the caller's graph (frontend/function.py), so every call is already
inlined when the module reaches the passes.

Branch regions: a `df.case` whose branch is known at compile time — its index is a
`df.const`, or it has a single branch (out-of-range indices pick the last one, so a single
branch always runs) — is replaced by the ops of that branch. A `df.cond` with a constant
predicate is `constant-folding`'s (its `fold-branches` option), which also folds constant
`df.case` indices; this pass does the case part on its own, and without needing constant
operands for the single-branch form.

The branch's ops move, in order, to just before the case op, which is where they ran; its
token is captured from above and the token it yields replaces the case's token result, so
side effects keep their order. A yielded value whose type is more static than the case's
result goes through a `df.identity` of the old type, so users keep their exact types
(`dependency` drops it where the users allow).
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType, UnrankedTensorType
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from ..ir.dialect import OP_CLASSES, CaseOp, DfOp
from . import register_pass
from .effects import is_dead

_TENSORS = (TensorType, UnrankedTensorType)


def _constant_index(value):
    op = value.owner
    if isinstance(op, DfOp) and op.name == "df.const":
        v = op.python_attrs()["value"]
        if v.size == 1:
            return int(v.reshape(()))
    return None


def inline_region(op, region):
    """Replace the region op `op` by the ops of `region` (one of its regions)."""
    block = region.block
    y = block.last_op
    yielded = list(y.operands)
    Rewriter.erase_op(y)
    Rewriter.inline_block(block, InsertPoint.before(op))
    results, casts = [], []
    for r, v in zip(op.results, yielded):
        if r.type != v.type and isinstance(r.type, _TENSORS) and isinstance(v.type, _TENSORS):
            ident = OP_CLASSES["identity"].create(operands=[v], result_types=[r.type])
            ident.location = op.location
            casts.append(ident)
            v = ident.results[0]
        results.append(v)
    Rewriter.replace_op(op, casts, results)


def _taken_branch(op):
    n = len(op.branches)
    if n == 1:
        return op.branches[0]
    i = _constant_index(op.operands[0])
    if i is None:
        return None
    return op.branches[i if 0 <= i < n else n - 1]


@register_pass
@dataclass(frozen=True)
class Inline(ModulePass):
    name = "inline"

    def apply(self, ctx, op) -> None:
        cases = [o for o in op.walk() if type(o) is CaseOp]
        # inner first: an outer inline then moves (or drops) already-inlined inner branches
        for case in reversed(cases):
            region = _taken_branch(case)
            if region is not None:
                index = case.operands[0].owner
                inline_region(case, region)
                if isinstance(index, DfOp) and index.parent is not None and is_dead(index):
                    Rewriter.erase_op(index)
