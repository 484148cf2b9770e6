"""`loop-invariant-code-motion`: move pure, region-free ops whose operands are all defined
outside a `df.while` out of its `cond` and `body` regions, to just before the loop, so they
run once instead of once per iteration. Hoisted values make the ops that use them invariant
in turn (one in-order sweep per region catches whole chains), and inner loops are visited
before outer ones, so an op climbs out of every loop it does not depend on.

Only `effects.is_pure` ops move (never a token-carrying op, never a region op). Moving an op
out of the body also runs it when the loop runs zero times, so a body op moves only when it
cannot raise where it did not before:
- ops whose kernels check values (integer division by zero, out-of-range indices, ...) —
  `VALUE_CHECKED` — stay, unless the check only concerns integers and the op is a float op;
- all of its operand and result shapes must be static (a shape mismatch found at run time
  would raise; with static shapes inference already checked it at trace time).
The cond region runs before every iteration, and at least once, so its ops move freely, as
long as the region has no side effect that an error would now overtake.
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from ..ir.dialect import DfOp, WhileOp, YieldOp, from_xdsl_type
from ..ir.effects import is_pure
from . import register_pass

# Ops whose kernels raise InvalidArgumentError depending on values: name -> True when only
# integer inputs can raise (division by zero, negative integer powers).
VALUE_CHECKED = {
    "div": True, "floordiv": True, "floormod": True, "pow": True, "reciprocal": True,
    "gather": False, "gather_nd": False, "scatter_nd": False,
    "tensor_scatter_nd_update": False, "tensor_scatter_nd_add": False,
    "where_indices": False, "range": False, "argmax": False, "argmin": False,
    "sparse_softmax_cross_entropy_with_logits": False,
    "random_uniform_int": False, "stateless_random_uniform_int": False,
}


def _static(value) -> bool:
    t = value.type
    return isinstance(t, TensorType) and DYNAMIC_INDEX not in t.get_shape()


def _speculatable(op) -> bool:
    """May `op` run where it did not run before (a zero-trip loop) without a new error?"""
    int_only = VALUE_CHECKED.get(op.name[3:])
    if int_only is not None:
        tt = from_xdsl_type(op.results[0].type) if op.results else None
        if not int_only or tt is None or not tt.dtype.is_floating:
            return False
    return all(_static(v) for v in op.operands) and all(_static(r) for r in op.results)


def _defining_op(value):
    owner = value.owner
    return owner if isinstance(owner, Operation) else owner.parent_op()


def _inside(value, loop) -> bool:
    """Is `value` defined inside `loop` (a block argument or a result of a nested op)?"""
    op = _defining_op(value)
    while op is not None:
        if op is loop:
            return True
        op = op.parent_op()
    return False


def _hoist_region(loop, region, speculative: bool) -> int:
    """Move the invariant ops of `region` (a single block) before `loop`, in order."""
    moved = 0
    for op in list(region.block.ops):
        if not isinstance(op, DfOp) or not is_pure(op):
            continue
        if any(_inside(v, loop) for v in op.operands):
            continue
        if speculative and not _speculatable(op):
            continue
        op.detach()
        Rewriter.insert_op(op, InsertPoint.before(loop))
        moved += 1
    return moved


def hoist(loop) -> int:
    cond_pure = all(is_pure(o) or isinstance(o, YieldOp) for o in loop.cond_region.walk())
    moved = _hoist_region(loop, loop.cond_region, speculative=not cond_pure)
    return moved + _hoist_region(loop, loop.body_region, speculative=True)


@register_pass
@dataclass(frozen=True)
class LoopInvariantCodeMotion(ModulePass):
    name = "loop-invariant-code-motion"

    def apply(self, ctx, op) -> bool:
        loops = [o for o in op.walk() if type(o) is WhileOp]
        # inner loops first: what leaves them may leave more
        return sum(hoist(loop) for loop in reversed(loops)) > 0
