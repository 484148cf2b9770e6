"""`layout`: cancel layout transposes around elementwise work (Grappler's layout optimizer
inserts NHWC<->NCHW transposes and then removes the pairs that cancel; here the frontend
and user code leave such pairs, e.g. `transpose(x, NHWC->NCHW)`, elementwise ops, and the
transpose back).

    transpose(x, p) -> e1 -> ... -> ek -> transpose(., q)   with p then q the identity
        => e1' -> ... -> ek' on x directly
    transpose(transpose(x, p), q) => x (p then q the identity), else transpose(x, p o q)

`e1..ek` are elementwise ops (unary math and activations, casts, and binary math and
comparisons). A binary op's other operand is a scalar (kept), a transpose by the same `p`
(its input is used), or a tensor of the same rank, which gets its own transpose by q
(transposing both operands commutes with broadcasting). Every intermediate value must have
exactly one use, in the same block. Transposes move data and elementwise ops commute with
them, so the rewrite is exact for every value, NaN and -0.0 included.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.rewriter import InsertPoint

from ..ir.constants import make_const, value_of
from ..ir.dialect import OP_CLASSES, DfOp, encode_attr, from_xdsl_type, to_xdsl_type
from ..ir.ops.math import BINARY, COMPARE, UNARY
from ..ir.registry import TT
from . import register_pass
from .rewrite import PatternPass, RootedPattern, sole_user

UNARY_ELEMENTWISE = frozenset(UNARY) | {"is_nan", "is_finite", "cast", "relu", "relu6",
                                        "elu", "selu", "leaky_relu", "gelu", "identity"}
BINARY_ELEMENTWISE = frozenset(BINARY) | frozenset(COMPARE)
_TRANSPOSE = "df.transpose"


def _perm(op, rank):
    return tuple(int(p) % rank for p in op.attributes["perm"].get_values())


def _rank(value):
    t = value.type
    return len(t.get_shape()) if isinstance(t, TensorType) else None



def _compose(p, q):
    """transpose(transpose(x, p), q) == transpose(x, r)."""
    return tuple(p[i] for i in q)


def _transpose_op(value, perm, location):
    tt = from_xdsl_type(value.type)
    shape = tuple(tt.shape[i] for i in perm)
    op = OP_CLASSES["transpose"].create(operands=[value],
                                        result_types=[to_xdsl_type(TT(tt.dtype, shape))],
                                        attributes={"perm": encode_attr(tuple(perm))})
    op.location = location
    return op


def _new_transpose(rewriter, value, perm, before, location):
    op = _transpose_op(value, perm, location)
    rewriter.insert(op, InsertPoint.before(before))
    return op.results[0]


def _plan_other(v, rank, p):
    """How the operand `v` of a binary op in the chain follows the rewrite: kept (a scalar),
    replaced by its input (a transpose by p), by a transposed constant, or by a new
    transpose (a tensor of the full rank); None if it cannot."""
    r = _rank(v)
    if r == 0:
        return "keep"
    owner = v.owner
    if r == rank and isinstance(owner, DfOp) and owner.name == _TRANSPOSE and \
            _perm(owner, rank) == p:
        return "input"
    if r is not None and r <= rank and value_of(v) is not None:
        return "const"
    return "transpose" if r == rank else None


def _match(t1):
    """(chain, closing transpose) for the transpose `t1`, or None."""
    x = t1.operands[0]
    rank = _rank(x)
    if rank is None:
        return None
    p = _perm(t1, rank)
    block = t1.parent
    chain = []
    added = 0
    cur = t1.results[0]
    while True:
        user = sole_user(cur, block)
        if user is None:
            return None
        name = user.name[3:]
        if user.name == _TRANSPOSE:
            return chain, user
        if name in BINARY_ELEMENTWISE:
            a, b = user.operands
            if (a is cur) == (b is cur):
                return None
            plan = _plan_other(b if a is cur else a, rank, p)
            added += plan == "transpose"
            # at most one new transpose per rewrite (two go): the pass always shrinks
            if plan is None or added > 1:
                return None
        elif name not in UNARY_ELEMENTWISE or len(user.operands) != 1:
            return None
        if _rank(user.results[0]) != rank:
            return None
        chain.append(user)
        cur = user.results[0]


def _transposed_const(rewriter, v, rank, q, before):
    arr = value_of(v)
    arr = np.ascontiguousarray(np.transpose(arr.reshape((1,) * (rank - arr.ndim) + arr.shape),
                                            q))
    tt = from_xdsl_type(v.type)
    op = make_const(arr, to_xdsl_type(TT(tt.dtype, arr.shape)), v.owner.location)
    rewriter.insert(op, InsertPoint.before(before))
    return op.results[0]


def _cancel_pair(rewriter, t1, t2, r, identity):
    """transpose(transpose(x, p), q) => x, or transpose(x, r)."""
    x = t1.operands[0]
    out = t2.results[0]
    if identity:
        if x.type == out.type:
            rewriter.replace(t2, (), [x])
        return
    new = _transpose_op(x, r, t2.location)
    if new.results[0].type == out.type:
        rewriter.replace(t2, new)


def _rewrite_chain(rewriter, t1, chain, t2, p, q):
    """Run the chain on x itself; its other operands follow (see `_plan_other`)."""
    rank = len(p)
    cur_old, cur_new = t1.results[0], t1.operands[0]
    out = t2.results[0]
    for op in chain:
        operands = []
        for v in op.operands:
            if v is cur_old:
                operands.append(cur_new)
                continue
            plan = _plan_other(v, rank, p)
            if plan == "keep":
                operands.append(v)
            elif plan == "input":
                operands.append(v.owner.operands[0])
            elif plan == "const":
                operands.append(_transposed_const(rewriter, v, rank, q, t2))
            else:
                operands.append(_new_transpose(rewriter, v, q, t2, op.location))
        tt = from_xdsl_type(op.results[0].type)
        ty = out.type if op is chain[-1] else to_xdsl_type(
            TT(tt.dtype, tuple(tt.shape[i] for i in q)))
        new = type(op).create(operands=operands, result_types=[ty],
                              attributes=dict(op.attributes))
        new.location = op.location
        rewriter.insert(new, InsertPoint.before(t2))
        cur_old, cur_new = op.results[0], new.results[0]
    rewriter.replace(t2, (), [cur_new])
    for dead in chain[::-1]:   # each was used only by the next (the driver takes t1 and
        rewriter.erase(dead)   # the chain's other producers left dead)


class CancelTransposes(RootedPattern):
    """Each rewrite removes at least one transpose; transposes it creates are revisited (they
    may cancel with others)."""
    roots = (_TRANSPOSE,)

    def match_and_rewrite(self, t1, rewriter):
        m = _match(t1)
        if m is None:
            return
        chain, t2 = m
        rank = _rank(t1.operands[0])
        p = _perm(t1, rank)
        q = _perm(t2, rank)
        r = _compose(p, q)
        identity = r == tuple(range(rank))
        if not chain:
            _cancel_pair(rewriter, t1, t2, r, identity)
        elif identity:
            _rewrite_chain(rewriter, t1, chain, t2, p, q)


@register_pass
@dataclass(frozen=True)
class Layout(PatternPass):
    name = "layout"

    def patterns(self):
        return (CancelTransposes(),)
