"""`inline`: Grappler's function optimizer, for what df has.

Function calls: df has no call op. A `tf.function` called while another is being traced is
traced inline into the caller's graph (frontend/function/function.py), so every call is already
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

from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from ..ir.constants import value_of
from ..ir.dialect import CaseOp
from . import register_pass
from .rewrite import PatternPass, RootedPattern, inline_region


def _taken_branch(op):
    n = len(op.branches)
    if n == 1:
        return op.branches[0]
    v = value_of(op.operands[0])
    if v is None or v.size != 1:
        return None
    i = int(v.reshape(()))
    return op.branches[i if 0 <= i < n else n - 1]


class InlineKnownCase(RootedPattern):
    roots = ("df.case",)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CaseOp, rewriter: PatternRewriter):
        region = _taken_branch(op)
        if region is not None:
            inline_region(rewriter, op, region)


@register_pass
@dataclass(frozen=True)
class Inline(PatternPass):
    name = "inline"

    def patterns(self):
        return (InlineKnownCase(),)
