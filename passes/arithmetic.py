"""`arithmetic`: Grappler-style algebraic simplifications, each exact for every input value.

One walk; patterns are looked up by op name. Every rewrite replaces a value by another of
exactly the same type (so no broadcast, dtype or rank change can slip in), and producers left
dead are erased on the way (`effects.is_dead` decides).

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
  `x`'s own type -> x (a type with a `?` dim also needs no static 0 dim: TF's -1 rule turns
  `[0, 0]` into `[1, 0]` for a target `[-1, 0]`)
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
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from ..ir import dtypes as D
from ..ir.dialect import OP_CLASSES, DfOp, encode_attr
from . import register_pass
from .constant_folding import const_raw, type_info
from .effects import is_dead

TransposeOp = OP_CLASSES["transpose"]
ReshapeOp = OP_CLASSES["reshape"]


# --- helpers --------------------------------------------------------------------------------
def _producer(value, opname: str):
    """The op named `df.<opname>` that defines `value`, or None."""
    if isinstance(value, OpResult) and value.op.name == opname:
        return value.op
    return None


def _tt(value):
    return type_info(value.type)[0]


def _static(tt) -> bool:
    return tt is not None and tt.shape is not None and None not in tt.shape


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
    return raw == e * n or (n > 1 and raw == e)   # full, or a splat stored once


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
        if op.name == "df.fill_like" and _tt(value).shape != ():
            return None
    return None


# --- the rewriter ---------------------------------------------------------------------------
class _Simplifier:
    def __init__(self):
        self.count = 0

    def replace(self, op, value) -> bool:
        """Replace op's single result by `value` if the types are identical."""
        res = op.results[0]
        if res.type != value.type:
            return False
        producers = [v.op for v in op.operands if isinstance(v, OpResult)]
        res.replace_all_uses_with(value)
        Rewriter.erase_op(op)
        self.count += 1
        self._erase_dead(producers)
        return True

    def replace_new(self, op, new) -> bool:
        producers = [v.op for v in op.operands if isinstance(v, OpResult)]
        Rewriter.replace_op(op, new)
        self.count += 1
        self._erase_dead(producers)
        return True

    def _erase_dead(self, ops):
        # Producers precede their users in the walk, so they were visited already.
        while ops:
            o = ops.pop()
            if o.parent is not None and is_dead(o):
                ops.extend(v.op for v in o.operands if isinstance(v, OpResult))
                Rewriter.erase_op(o)

    # --- binary identities ------------------------------------------------------------------
    def _neutral(self, op, x, c, which) -> bool:
        src = _splat_source(c)
        if src is None:
            return False
        tt, raw = const_raw(src)
        if not _is_neutral(tt, raw, which):
            return False
        if isinstance(x.type, UnrankedTensorType) and _tt(c).shape != ():
            return False
        return self.replace(op, x)

    def either_side(test):
        def rule(self, op):
            x, y = op.operands
            return self._neutral(op, x, y, test) or self._neutral(op, y, x, test)
        return rule

    def right_side(test):
        def rule(self, op):
            x, y = op.operands
            return self._neutral(op, x, y, test)
        return rule

    mul = either_side("one")
    div = right_side("one")
    add = either_side("add")
    sub = right_side("sub")
    logical_and = either_side("true")
    logical_or = either_side("false")
    del either_side, right_side

    # --- involutions --------------------------------------------------------------------------
    def involution(opname):
        def rule(self, op):
            inner = _producer(op.operands[0], opname)
            return inner is not None and self.replace(op, inner.operands[0])
        return rule

    neg = involution("df.neg")
    logical_not = involution("df.logical_not")
    del involution

    def identity(self, op):
        return self.replace(op, op.operands[0])

    cast = identity  # `replace` checks the type: only a cast to x's own dtype goes

    # --- data movement ------------------------------------------------------------------------
    def transpose(self, op):
        x = op.operands[0]
        perm = op.python_attrs()["perm"]
        n = len(perm)
        perm = tuple(p % n for p in perm) if n else ()
        inner = _producer(x, "df.transpose")
        if inner is not None:
            p1 = inner.python_attrs()["perm"]
            if len(p1) != n:
                return False
            p1 = tuple(p % n for p in p1)
            perm = tuple(p1[p] for p in perm)
            x = inner.operands[0]
        if perm == tuple(range(n)):
            return self.replace(op, x)
        if inner is None:
            return False
        new = TransposeOp.create(operands=[x], result_types=[op.results[0].type],
                                 attributes={"perm": encode_attr(perm)}, location=op.location)
        return self.replace_new(op, new)

    def reshape(self, op):
        out = _tt(op.results[0])
        x = op.operands[0]
        inner = _producer(x, "df.reshape")
        if inner is not None and _static(out) and _static(_tt(inner.results[0])):
            src = inner.operands[0]
            if src.type == op.results[0].type:
                return self.replace(op, src)
            attrs = dict(op.attributes)
            attrs["shape"] = encode_attr(tuple(out.shape))
            new = ReshapeOp.create(operands=[src], result_types=[op.results[0].type],
                                   attributes=attrs, location=op.location)
            return self.replace_new(op, new)
        if out is None or out.shape is None:
            return False
        if not _static(out) and 0 in out.shape:
            return False
        return self.replace(op, x)

    def squeeze(self, op):
        inner = _producer(op.operands[0], "df.expand_dims")
        if inner is None:
            return False
        rank = len(_tt(op.operands[0]).shape or ())
        if not rank:
            return False
        axes = op.python_attrs()["axis"] or ()
        a = inner.python_attrs()["axis"] % rank
        if axes and {s % rank for s in axes if -rank <= s < rank} != {a}:
            return False
        if axes and any(not -rank <= s < rank for s in axes):
            return False
        return self.replace(op, inner.operands[0])

    def expand_dims(self, op):
        inner = _producer(op.operands[0], "df.squeeze")
        if inner is None:
            return False
        x = inner.operands[0]
        xt = _tt(x)
        if xt is None or xt.shape is None:
            return False
        rank = len(xt.shape)
        axes = inner.python_attrs()["axis"] or ()
        if axes:
            if any(not -rank <= s < rank for s in axes):
                return False
            removed = {s % rank for s in axes}
        elif _static(xt):
            removed = {i for i, d in enumerate(xt.shape) if d == 1}
        else:
            return False
        a = op.python_attrs()["axis"]
        if len(removed) != 1 or not -rank <= a < rank or {a % rank} != removed:
            return False
        return self.replace(op, x)

    def tile(self, op):
        if all(m == 1 for m in op.python_attrs()["multiples"]):
            return self.replace(op, op.operands[0])
        return False

    def broadcast_to(self, op):
        return _static(_tt(op.operands[0])) and self.replace(op, op.operands[0])

    def pad(self, op):
        a = op.python_attrs()
        if a["mode"] == "CONSTANT" and all(p == 0 for p in a["paddings"]):
            return self.replace(op, op.operands[0])
        return False

    def slice(self, op):
        a = op.python_attrs()
        xt = _tt(op.operands[0])
        if xt is None or xt.shape is None or any(b != 0 for b in a["begin"]):
            return False
        # a size known only at run time (None) may cut even an unknown dim
        if all(s == -1 or (s is not None and s == d) for s, d in zip(a["size"], xt.shape)):
            return self.replace(op, op.operands[0])
        return False

    def concat(self, op):
        # a known rank: concat of a scalar raises at run time, and that error must stay
        return len(op.operands) == 1 and _tt(op.operands[0]).shape is not None and \
            self.replace(op, op.operands[0])


PATTERNS = {f"df.{name}": getattr(_Simplifier, name) for name in (
    "mul", "div", "add", "sub", "logical_and", "logical_or", "neg", "logical_not",
    "identity", "cast", "transpose", "reshape", "squeeze", "expand_dims", "tile",
    "broadcast_to", "pad", "slice", "concat")}


@register_pass
@dataclass(frozen=True)
class ArithmeticOptimizer(ModulePass):
    name = "arithmetic"

    def apply(self, ctx, op) -> None:
        s = _Simplifier()
        todo = [o for o in op.walk() if o.name in PATTERNS and isinstance(o, DfOp)]
        for o in todo:
            if o.parent is not None:
                PATTERNS[o.name](s, o)
