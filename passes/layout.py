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
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from ..ir.dialect import OP_CLASSES, DfOp, encode_attr, from_xdsl_type, to_xdsl_type
from ..ir.ops.math import BINARY, COMPARE, UNARY
from ..ir.registry import TT
from . import register_pass
from .constant_folding import const_op, const_value, make_const
from .effects import is_dead

UNARY_ELEMENTWISE = frozenset(UNARY) | {"is_nan", "is_finite", "cast", "relu", "relu6",
                                        "elu", "selu", "leaky_relu", "gelu", "identity"}
BINARY_ELEMENTWISE = frozenset(BINARY) | frozenset(COMPARE)
_TRANSPOSE = "df.transpose"


_PERMS: dict = {}     # id(perm attribute) -> (attribute, perm), during one run
_CREATED: list = []   # transposes made during one run (they may cancel with others)


def _perm(op, rank):
    a = op.attributes["perm"]
    e = _PERMS.get(id(a))
    if e is None or e[0] is not a:
        e = _PERMS[id(a)] = (a, tuple(int(p) for p in a.get_values()))
    return tuple(p % rank for p in e[1])


def _erase(op):
    """Erase an op none of whose results is used (cheaper than Rewriter.erase_op, which
    rewires every result to an ErasedSSAValue)."""
    op.detach()
    op.drop_all_references()


def _rank(value):
    t = value.type
    return len(t.get_shape()) if isinstance(t, TensorType) else None


def _sole_user(value, block):
    use = value.get_unique_use()
    if use is None:
        return None
    user = use.operation
    return user if isinstance(user, DfOp) and user.parent is block else None


def _compose(p, q):
    """transpose(transpose(x, p), q) == transpose(x, r)."""
    return tuple(p[i] for i in q)


def _new_transpose(value, perm, before, location):
    tt = from_xdsl_type(value.type)
    shape = tuple(tt.shape[i] for i in perm)
    op = OP_CLASSES["transpose"].create(operands=[value],
                                        result_types=[to_xdsl_type(TT(tt.dtype, shape))],
                                        attributes={"perm": encode_attr(tuple(perm))})
    op.location = location
    Rewriter.insert_op(op, InsertPoint.before(before))
    _CREATED.append(op)
    return op.results[0]


def _const(value):
    op = const_op(value)
    return None if op is None else const_value(op)


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
    if r is not None and r <= rank and _const(v) is not None:
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
        user = _sole_user(cur, block)
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


def _transposed_const(v, rank, q, before):
    arr = _const(v)
    arr = np.ascontiguousarray(np.transpose(arr.reshape((1,) * (rank - arr.ndim) + arr.shape),
                                            q))
    tt = from_xdsl_type(v.type)
    op = make_const(arr, to_xdsl_type(TT(tt.dtype, arr.shape)), v.owner.location)
    Rewriter.insert_op(op, InsertPoint.before(before))
    return op.results[0]


def _rewrite(t1, chain, t2) -> bool:
    x = t1.operands[0]
    rank = _rank(x)
    p = _perm(t1, rank)
    q = _perm(t2, rank)
    r = _compose(p, q)
    identity = r == tuple(range(rank))
    out = t2.results[0]
    if not chain:
        if identity:
            if x.type != out.type:
                return False
            out.replace_all_uses_with(x)
        else:
            new = _new_transpose(x, r, t2, t2.location)
            if new.type != out.type:
                _CREATED.pop()
                _erase(new.owner)
                return False
            out.replace_all_uses_with(new)
        _erase(t2)
        if not t1.results[0].uses:
            _erase(t1)
        return True
    if not identity:
        return False
    cur_old, cur_new = t1.results[0], x
    replaced = []
    for op in chain:
        operands = []
        for v in op.operands:
            if v is cur_old:
                operands.append(cur_new)
                continue
            plan = _plan_other(v, rank, p)
            if plan != "keep":
                replaced.append(v.owner)
            if plan == "keep":
                operands.append(v)
            elif plan == "input":
                operands.append(v.owner.operands[0])
            elif plan == "const":
                operands.append(_transposed_const(v, rank, q, t2))
            else:
                operands.append(_new_transpose(v, q, t2, op.location))
        tt = from_xdsl_type(op.results[0].type)
        ty = out.type if op is chain[-1] else to_xdsl_type(
            TT(tt.dtype, tuple(tt.shape[i] for i in q)))
        new = type(op).create(operands=operands, result_types=[ty],
                              attributes=dict(op.attributes))
        new.location = op.location
        Rewriter.insert_op(new, InsertPoint.before(t2))
        cur_old, cur_new = op.results[0], new.results[0]
    out.replace_all_uses_with(cur_new)
    for dead in [t2] + chain[::-1] + [t1]:
        _erase(dead)
    for op in replaced:   # operands only the chain used (old transposes, constants)
        if isinstance(op, DfOp) and op.parent is not None and is_dead(op):
            _erase(op)
    return True


def cancel_transposes(module) -> int:
    """Rewrite until nothing matches (each rewrite removes at least one transpose). After
    the first sweep only transposes are revisited: the surviving ones and the new ones."""
    total = 0
    work = [o for o in module.walk() if o.name == _TRANSPOSE]
    try:
        while True:
            done = 0
            for t1 in work:
                if t1.parent is None:
                    continue
                m = _match(t1)
                if m is not None:
                    done += _rewrite(t1, *m)
            total += done
            if not done:
                return total
            work = [t for t in work + _CREATED if t.parent is not None]
            _CREATED.clear()
    finally:
        _CREATED.clear()
        _PERMS.clear()


@register_pass
@dataclass(frozen=True)
class Layout(ModulePass):
    name = "layout"

    def apply(self, ctx, op) -> None:
        cancel_transposes(op)
