"""`arithmetic`: Grappler-style algebraic simplifications, each exact for every input value.

Each rewrite is a pattern (`passes/rewrite.py` applies them); every one replaces a value by
another of exactly the same type (so no broadcast, dtype or rank change can slip in).

Identities (`c` a constant whose every element is the neutral value):
- `x * c`, `c * x` (c = 1), `x / c` (c = 1)                 -> x   (IEEE: x*1 and x/1 are x,
  NaN, Inf and -0.0 included)
- `x - c` with c = 0 (ints) or c = +0.0 (floats)          -> x   (-0.0 - +0.0 = -0.0)
- `x + c`, `c + x` with c = 0 (ints) or c = -0.0 (floats) -> x.  `x + +0.0` is NOT rewritten:
  -0.0 + 0.0 = +0.0 in IEEE, so it is not x for x = -0.0 (Grappler's guard). `x * 0` is never
  rewritten for floats (NaN * 0 and Inf * 0 are NaN).
- `logical_and(x, true)`, `logical_or(x, false)` (either side)  -> x
`c` may also be a `broadcast_to` / `fill_like` of such a constant (`tf.ones`, `ones_like`).
A binary rewrite also needs `x`'s rank known or `c` a scalar: with an unknown rank the result
type `tensor<*>` matches `x`'s even if a `c` of rank 2 would add dims at run time.

Involutions and composition:
- `neg(neg(x))`, `logical_not(logical_not(x))` -> x  (two's complement: neg(neg(MIN)) = MIN)
- `transpose(transpose(x, p1), p2)` -> `transpose(x, p1[p2])`, or x when that is the identity;
  a transpose by the identity permutation -> x
- `reshape(reshape(x))` -> one reshape to the outer (static) shape, or x; only when both
  results are static, so the element-count check at run time is the same one. A reshape to
  `x`'s own type -> x when that type has at most one `?` dim (two `?` dims may trade sizes:
  `[4, 6]` to `[12, 2]`) and, with one, no static 0 dim (TF's -1 rule turns `[0, 0]` into
  `[1, 0]` for a target `[-1, 0]`)
- `squeeze(expand_dims(x, a), [a])`, `expand_dims(squeeze(x, [a]), a)` -> x (the type check
  makes the squeezed dim a static 1, so no run-time squeeze error is lost)
- `cast(x)` to x's own dtype, `identity(x)` -> x (`stop_gradient` is kept: it matters to
  gradients)
- no-op data movement: `tile` by all-ones multiples, `broadcast_to` x's own static shape,
  `pad` CONSTANT by zeros, `slice` of everything, `concat` of one tensor -> x
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import UnrankedTensorType
from xdsl.ir import OpResult

from ..ir import dtypes as D
from ..ir.constants import const_raw, is_static, tt_of
from ..ir.dialect import OP_CLASSES, encode_attr
from . import register_pass
from .rewrite import PatternPass, RootedPattern

TransposeOp = OP_CLASSES["transpose"]
ReshapeOp = OP_CLASSES["reshape"]


# --- helpers --------------------------------------------------------------------------------
def _producer(value, opname: str):
    """The op named `df.<opname>` that defines `value`, or None."""
    if isinstance(value, OpResult) and value.op.name == opname:
        return value.op
    return None


def _replace(rewriter, op, value) -> None:
    """Replace op's single result by `value` if the types are identical."""
    if op.results[0].type == value.type:
        rewriter.replace(op, (), [value])


def _replace_new(rewriter, op, new) -> None:
    new.location = op.location
    rewriter.replace(op, new)


# Neutral elements as the element bytes a constant must repeat (little-endian, as the
# attribute stores them): comparing bytes is exact (it tells -0.0 from +0.0) and needs no
# decoding. Booleans are read as values (any nonzero byte is true).
def _elem_bytes(dt, value) -> bytes:
    return np.array(value, dtype=dt.np).astype(np.dtype(dt.np).newbyteorder("<")).tobytes()


def _neutral_bytes(dt, which):
    if dt.is_floating:
        value = {"one": 1.0, "add": -0.0, "sub": 0.0}[which]  # x + -0.0 and x - +0.0 are x
    else:
        value = {"one": 1, "add": 0, "sub": 0}[which]
    return _elem_bytes(dt, value)


_NEUTRAL: dict = {}


def _is_neutral(tt, raw, which) -> bool:
    dt = tt.dtype
    if dt is D.bool_:
        a = np.frombuffer(raw, np.uint8)
        return bool(np.all(a != 0)) if which == "true" else not bool(np.any(a))
    if which in ("true", "false"):
        return False
    e = _NEUTRAL.get((dt, which))
    if e is None:
        e = _NEUTRAL[(dt, which)] = _neutral_bytes(dt, which)
    n = 1
    for d in tt.shape:
        n *= d
    if len(raw) == len(e):   # one element, or a splat stored once
        return raw == e
    return len(raw) == len(e) * n and raw == e * n


# Ops whose every element is one operand's (scalar) constant: `tf.ones`/`tf.zeros` are a
# broadcast of a scalar, `ones_like` a fill; looking through them finds the neutral element
# without waiting for constant folding.
_SPLATS = {"df.broadcast_to": 0, "df.fill_like": 1}


def _splat_source(value):
    """The `df.const` whose elements make up `value` (directly or broadcast), or None."""
    for _ in range(4):
        if not isinstance(value, OpResult):
            return None
        op = value.op
        if op.name == "df.const":
            return op
        k = _SPLATS.get(op.name)
        if k is None:
            return None
        value = op.operands[k]
        if op.name == "df.fill_like" and tt_of(value).shape != ():
            return None
    return None


def _is_neutral_operand(x, c, which) -> bool:
    src = _splat_source(c)
    if src is None:
        return False
    tt, raw = const_raw(src)
    if not _is_neutral(tt, raw, which):
        return False
    return not (isinstance(x.type, UnrankedTensorType) and tt_of(c).shape != ())


# --- patterns -------------------------------------------------------------------------------
class NeutralOperand(RootedPattern):
    """`x op c` (or `c op x` where op commutes) -> x when `c` is op's neutral element."""
    # op -> (which neutral element, may it stand on the left)
    RULES = {"df.mul": ("one", True), "df.div": ("one", False), "df.add": ("add", True),
             "df.sub": ("sub", False), "df.logical_and": ("true", True),
             "df.logical_or": ("false", True)}
    roots = tuple(RULES)

    def match_and_rewrite(self, op, rewriter):
        which, either = self.RULES[op.name]
        x, y = op.operands
        if _is_neutral_operand(x, y, which):
            _replace(rewriter, op, x)
        elif either and _is_neutral_operand(y, x, which):
            _replace(rewriter, op, y)


class Involution(RootedPattern):
    """`neg(neg(x))`, `logical_not(logical_not(x))` -> x."""
    roots = ("df.neg", "df.logical_not")

    def match_and_rewrite(self, op, rewriter):
        inner = _producer(op.operands[0], op.name)
        if inner is not None:
            _replace(rewriter, op, inner.operands[0])


class ForwardOperand(RootedPattern):
    """`identity(x)` -> x, and `cast(x)` to x's own dtype (the type check decides)."""
    roots = ("df.identity", "df.cast")

    def match_and_rewrite(self, op, rewriter):
        _replace(rewriter, op, op.operands[0])


def _perm(op, n):
    perm = op.python_attrs()["perm"]
    return tuple(p % n for p in perm) if n else ()


class ComposeTransposes(RootedPattern):
    """`transpose(transpose(x, p1), p2)` -> `transpose(x, p1[p2])`, or x when that is the
    identity; a transpose by the identity -> x."""
    roots = ("df.transpose",)

    def match_and_rewrite(self, op, rewriter):
        x = op.operands[0]
        n = len(op.python_attrs()["perm"])
        perm = _perm(op, n)
        inner = _producer(x, "df.transpose")
        if inner is not None:
            p1 = _perm(inner, n)
            if len(p1) != n:
                return
            perm = tuple(p1[p] for p in perm)
            x = inner.operands[0]
        if perm == tuple(range(n)):
            _replace(rewriter, op, x)
        elif inner is not None:
            _replace_new(rewriter, op, TransposeOp.create(
                operands=[x], result_types=[op.results[0].type],
                attributes={"perm": encode_attr(perm)}))


class FoldReshape(RootedPattern):
    """`reshape(reshape(x))` -> one reshape (both static), a reshape to x's type -> x."""
    roots = ("df.reshape",)

    def match_and_rewrite(self, op, rewriter):
        out = tt_of(op.results[0])
        x = op.operands[0]
        inner = _producer(x, "df.reshape")
        if inner is not None and is_static(out) and is_static(tt_of(inner.results[0])):
            src = inner.operands[0]
            if src.type == op.results[0].type:
                return _replace(rewriter, op, src)
            attrs = dict(op.attributes)
            attrs["shape"] = encode_attr(tuple(out.shape))
            return _replace_new(rewriter, op, ReshapeOp.create(
                operands=[src], result_types=[op.results[0].type], attributes=attrs))
        if out is None or out.shape is None:
            return
        unknown = out.shape.count(None)
        if unknown > 1 or (unknown and 0 in out.shape):
            return
        _replace(rewriter, op, x)


class SqueezeExpandDims(RootedPattern):
    """`squeeze(expand_dims(x, a), [a])` -> x."""
    roots = ("df.squeeze",)

    def match_and_rewrite(self, op, rewriter):
        inner = _producer(op.operands[0], "df.expand_dims")
        if inner is None:
            return
        rank = len(tt_of(op.operands[0]).shape or ())
        if not rank:
            return
        axes = op.python_attrs()["axis"] or ()
        a = inner.python_attrs()["axis"] % rank
        if axes and {s % rank for s in axes if -rank <= s < rank} != {a}:
            return
        if axes and any(not -rank <= s < rank for s in axes):
            return
        _replace(rewriter, op, inner.operands[0])


class ExpandDimsSqueeze(RootedPattern):
    """`expand_dims(squeeze(x, [a]), a)` -> x."""
    roots = ("df.expand_dims",)

    def match_and_rewrite(self, op, rewriter):
        inner = _producer(op.operands[0], "df.squeeze")
        if inner is None:
            return
        x = inner.operands[0]
        xt = tt_of(x)
        if xt is None or xt.shape is None:
            return
        rank = len(xt.shape)
        axes = inner.python_attrs()["axis"] or ()
        if axes:
            if any(not -rank <= s < rank for s in axes):
                return
            removed = {s % rank for s in axes}
        elif is_static(xt):
            removed = {i for i, d in enumerate(xt.shape) if d == 1}
        else:
            return
        a = op.python_attrs()["axis"]
        if len(removed) == 1 and -rank <= a < rank and {a % rank} == removed:
            _replace(rewriter, op, x)


def _noop_tile(op):
    return all(m == 1 for m in op.python_attrs()["multiples"])


def _noop_broadcast(op):
    return is_static(tt_of(op.operands[0]))


def _noop_pad(op):
    a = op.python_attrs()
    return a["mode"] == "CONSTANT" and all(p == 0 for p in a["paddings"])


def _noop_slice(op):
    a = op.python_attrs()
    xt = tt_of(op.operands[0])
    if xt is None or xt.shape is None or any(b != 0 for b in a["begin"]):
        return False
    # a size known only at run time (None) may cut even an unknown dim
    return all(s == -1 or (s is not None and s == d) for s, d in zip(a["size"], xt.shape))


def _noop_concat(op):
    # a known rank: concat of a scalar raises at run time, and that error must stay
    return len(op.operands) == 1 and tt_of(op.operands[0]).shape is not None


class NoOpDataMovement(RootedPattern):
    """`tile` by ones, `broadcast_to` x's own static shape, `pad` by zeros, `slice` of
    everything, `concat` of one tensor -> x."""
    TESTS = {"df.tile": _noop_tile, "df.broadcast_to": _noop_broadcast, "df.pad": _noop_pad,
             "df.slice": _noop_slice, "df.concat": _noop_concat}
    roots = tuple(TESTS)

    def match_and_rewrite(self, op, rewriter):
        if self.TESTS[op.name](op):
            _replace(rewriter, op, op.operands[0])


PATTERNS = (NeutralOperand(), Involution(), ForwardOperand(), ComposeTransposes(),
            FoldReshape(), SqueezeExpandDims(), ExpandDimsSqueeze(), NoOpDataMovement())


@register_pass
@dataclass(frozen=True)
class ArithmeticOptimizer(PatternPass):
    name = "arithmetic"

    def patterns(self):
        return PATTERNS
