"""`dependency`: Grappler's dependency optimizer, for df's explicit tokens.

- `df.identity` is dropped (its users take its operand). In TF an Identity often carries
  control dependencies; in df ordering lives only in tokens, so an identity orders nothing.
  When the identity changes the static type (a `?` dim, as branch inlining leaves them), it
  stays if a user needs the exact type: `func.return` (the signature), `df.yield` (the
  region op's result types) or a region op.
- A `df.cond` / `df.case` / `df.while` that carries a token but contains no side effect any
  more (its branches yield the token they captured, its body yields the token it got) only
  passes the token through: the token is removed from it, and its users take the incoming
  token. The region op becomes pure, so `dce`, `cse` and `loop-invariant-code-motion` can
  treat it like any other value computation. Inner region ops are rewritten first (the
  driver visits an op after the ops nested in it).
- A `df.create_token` nothing uses is removed.

Conservative by design: every stateful op keeps its token operand and result, so side
effects keep exactly their order; only edges that provably order nothing go.
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from ..ir.dialect import CaseOp, CondOp, DfOp, TokenType, WhileOp, YieldOp
from ..ir.effects import REGION_OPS, is_pure
from . import register_pass
from .rewrite import PatternPass, RootedPattern

_EXACT_TYPE_USERS = (func.ReturnOp, YieldOp) + REGION_OPS


class DropIdentity(RootedPattern):
    roots = ("df.identity",)

    def match_and_rewrite(self, op, rewriter):
        src, out = op.operands[0], op.results[0]
        if src.type != out.type and any(isinstance(u.operation, _EXACT_TYPE_USERS) or
                                         not isinstance(u.operation, DfOp) for u in out.uses):
            return
        rewriter.replace(op, (), [src])


def _is_token(value) -> bool:
    return isinstance(value.type, TokenType)


def _rebuild(rewriter, op, operands, keep_results):
    """Replace `op` by itself with new operands and only the results at `keep_results` (its
    regions move over); the dropped results must have no uses."""
    regions = [op.detach_region(r) for r in list(op.regions)]
    new = type(op).create(operands=operands,
                          result_types=[op.results[i].type for i in keep_results],
                          attributes=dict(op.attributes), properties=dict(op.properties),
                          regions=regions)
    new.location = op.location
    results = [None] * len(op.results)
    for i, r in zip(keep_results, new.results):
        results[i] = r
    rewriter.replace(op, new, results)


def _drop_yield_operand(block, index):
    y = block.last_op
    vals = list(y.operands)
    del vals[index]
    y.operands = vals


def _defined_inside(value, op) -> bool:
    owner = value.owner
    inner = owner if isinstance(owner, Operation) else owner.parent_op()
    while inner is not None:
        if inner is op:
            return True
        inner = inner.parent_op()
    return False


class UntokenBranches(RootedPattern):
    """cond/case: the token result is whatever all branches yield, if that is one value from
    above and the branches have no side effects."""
    roots = ("df.cond", "df.case")

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CondOp | CaseOp, rewriter: PatternRewriter):
        if not op.results or not _is_token(op.results[-1]) or not is_pure(op):
            return
        yielded = {r.block.last_op.operands[-1] for r in op.regions}
        if len(yielded) != 1:
            return
        tok = yielded.pop()
        if _defined_inside(tok, op):   # a token made in a branch (a create_token): leave it
            return
        rewriter.replace_all_uses_with(op.results[-1], tok)
        for r in op.regions:
            _drop_yield_operand(r.block, -1)
        _rebuild(rewriter, op, list(op.operands), range(len(op.results) - 1))


class UntokenLoop(RootedPattern):
    """while: a loop-carried token that the body yields unchanged and nothing else uses."""
    roots = ("df.while",)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WhileOp, rewriter: PatternRewriter):
        if not is_pure(op):
            return
        idx = [i for i, v in enumerate(op.operands) if _is_token(v)]
        if len(idx) != 1:
            return
        k = idx[0]
        cond, body = op.cond_region.block, op.body_region.block
        carg, barg = cond.args[k], body.args[k]
        if body.last_op.operands[k] is not barg or carg.uses or \
                any(u.operation is not body.last_op for u in barg.uses):
            return
        rewriter.replace_all_uses_with(op.results[k], op.operands[k])
        _drop_yield_operand(body, k)
        cond.erase_arg(carg)
        body.erase_arg(barg)
        operands = [v for i, v in enumerate(op.operands) if i != k]
        _rebuild(rewriter, op, operands, [i for i in range(len(op.results)) if i != k])


class DropUnusedToken(RootedPattern):
    roots = ("df.create_token",)

    def match_and_rewrite(self, op, rewriter):
        if op.results[0].first_use is None:
            rewriter.erase(op)


@register_pass
@dataclass(frozen=True)
class DependencyOptimizer(PatternPass):
    name = "dependency"

    def patterns(self):
        return (DropIdentity(), UntokenBranches(), UntokenLoop(), DropUnusedToken())
