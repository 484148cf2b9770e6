"""`shape-inference`: refine `?` dims (and unknown ranks) of result types with the registry's
inference, and fold shape queries of statically known tensors into `df.const`.

Tracing already inferred every type, so a result can only become more static when an operand
did after tracing: a constant folded or a branch inlined with a more static type, a constant
typed `?` by `constant-folding`, an inlined call. Refinement is a meet: a known dim is never
changed, a `?` dim takes the inferred size; a conflict (which would be a run-time error)
leaves the op alone. Ops whose results are already fully static are skipped without running
their inference, so the pass costs next to nothing on specialized (XLA) graphs.

Types that must stay as declared, because something outside the value's users depends on
them, are not rewritten: operands of `func.return` (the function signature never changes)
and of a `df.while` region's `df.yield` (the loop-carried type is shared with the block
arguments and results). Nor is a type whose refinement would make a user's inference fail:
such a user can only be code that never runs (say a branch guarded by the shape itself), and
verification must not reject the program for it. The refined type is still used for the
value's other users.

`df.cond` / `df.case` results take the join of the types their branches yield (met with the
declared type); `df.while` types and block arguments are left alone.

Folded queries (Grappler's shape materialization):
- `shape(x)` and `size(x)` with a static `x` become constants;
- `size(shape(x))` (how the frontend composes `tf.rank` when the rank is unknown at trace
  time) folds once the rank is known, since `shape(x)` then has a static type;
- `strided_slice` / `slice` / `gather` (constant indices) of `shape(x)` fold when every
  selected dim is known, as `tf.shape(x)[1]` for an `x` of type `?x3`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.passes import ModulePass

from ..ir.constants import CONST_NAME, is_static, make_const, type_info, value_of
from ..ir.dialect import CaseOp, CondOp, DfOp, WhileOp, YieldOp, to_xdsl_type
from ..ir.registry import TT, infer_types
from ..runtime.kernels import KERNELS
from . import register_pass
from .rewrite import RootedPattern, apply_patterns

SHAPE_NAME = "df.shape"
SIZE_NAME = "df.size"
# Ops that pick elements of a shape vector: applied to the shape with -1 for unknown dims.
SHAPE_PICKERS = {"df.strided_slice", "df.slice", "df.gather"}


def meet(old, new):
    """`old` with its unknowns filled from `new`; None on a dtype/rank/dim conflict."""
    if not isinstance(old, TT) or not isinstance(new, TT) or old.dtype is not new.dtype:
        return None
    if new.shape is None:
        return old
    if old.shape is None:
        return new
    if len(old.shape) != len(new.shape):
        return None
    out = []
    for a, b in zip(old.shape, new.shape):
        if a is None:
            out.append(b)
        elif b is None or a == b:
            out.append(a)
        else:
            return None
    return TT(old.dtype, tuple(out))


def join(a, b):
    """The most static type both `a` and `b` satisfy (branches of a cond)."""
    if not isinstance(a, TT) or not isinstance(b, TT) or a.dtype is not b.dtype:
        return None
    if a.shape is None or b.shape is None or len(a.shape) != len(b.shape):
        return TT(a.dtype, None)
    return TT(a.dtype, tuple(x if x == y else None for x, y in zip(a.shape, b.shape)))


def _pinned(value) -> bool:
    for use in value.uses:
        user = use.operation
        if isinstance(user, func.ReturnOp):
            return True
        if isinstance(user, YieldOp) and isinstance(user.parent_op(), WhileOp):
            return True
    return False


class _Inference:
    def __init__(self):
        self.known: dict = {}   # value -> refined TT its (pinned) IR type could not take
        self.retyped = 0        # results whose IR type was refined

    def tt(self, value):
        if self.known:
            t = self.known.get(value)
            if t is not None:
                return t
        return type_info(value.type)[0]

    def refine(self, value, new):
        old = self.tt(value)
        if new == old:
            return
        m = meet(old, new)
        if m is None or m == old:
            return
        if _pinned(value) or not self._users_accept(value, m):
            self.known[value] = m   # (the IR keeps its type: not a change of the module)
        else:
            value._type = to_xdsl_type(m)  # same value, new type: users see it directly
            self.known.pop(value, None)
            self.retyped += 1

    def _users_accept(self, value, tt) -> bool:
        """Every df user still type-checks with `value` typed `tt`. A refinement can expose a
        conflict in code that never runs (a branch guarded by the shape itself): the IR type
        must then stay, or verification would reject a program that runs fine."""
        for use in value.uses:
            user = use.operation
            if not isinstance(user, DfOp):
                continue
            opdef = user.opdef
            operands = user.operands[:-1] if opdef.stateful else user.operands
            types = [tt if v is value else self.tt(v) for v in operands]
            try:
                infer_types(opdef, types, user.python_attrs() if opdef.attrs else {})
            except Exception:  # noqa: BLE001
                return False
        return True

    def block(self, block):
        for op in list(block.ops):
            if isinstance(op, DfOp):
                self.df_op(op)
            elif op.regions:
                for region in op.regions:
                    for b in region.blocks:
                        self.block(b)
                if isinstance(op, (CondOp, CaseOp)):
                    self.branch_op(op)

    def _open(self, results) -> bool:
        """Some result is not fully static yet (in the IR or in what is known)."""
        known = self.known
        for r in results:
            if not type_info(r.type)[1] and not (known and r in known and is_static(known[r])):
                return True
        return False

    def df_op(self, op):
        opdef = op.opdef
        results = op.results[:-1] if opdef.stateful else op.results
        if self._open(results):
            if op.name == CONST_NAME:  # the value's type, without decoding the value
                new = (type_info(op.attributes["value"].type)[0],)
            else:
                operands = op.operands[:-1] if opdef.stateful else op.operands
                try:
                    new = infer_types(opdef, [self.tt(v) for v in operands],
                                      op.python_attrs() if opdef.attrs else {})
                except Exception:  # noqa: BLE001 - an error stays where it was: at run time
                    new = ()
            if len(new) == len(results):
                for r, t in zip(results, new):
                    self.refine(r, t)

    def branch_op(self, op):
        regions = [op.then_region, op.else_region] if isinstance(op, CondOp) else op.branches
        yields = [r.block.last_op.operands for r in regions]
        for i, res in enumerate(op.results):
            if type_info(res.type)[1]:
                continue
            t = None
            for ys in yields:
                yt = self.tt(ys[i])
                t = yt if t is None else join(t, yt)
            if t is not None:
                self.refine(res, t)



# --- folds: patterns applied after the refinement walk, reading what it inferred ------------
class _Fold(RootedPattern):
    def __init__(self, inference: _Inference):
        self.inf = inference

    def replace_by_const(self, op, arr, rewriter):
        res = op.results[0]
        c = make_const(arr, res.type, op.location)
        t = self.inf.known.pop(res, None)
        if t is not None:
            self.inf.known[c.results[0]] = t
        rewriter.replace(op, c)


class FoldShape(_Fold):
    """`shape(x)` with a static `x` -> a constant."""
    roots = (SHAPE_NAME,)

    def match_and_rewrite(self, op, rewriter):
        t = self.inf.tt(op.operands[0])
        if isinstance(t, TT) and is_static(t):
            dt = self.inf.tt(op.results[0]).dtype
            self.replace_by_const(op, np.array(t.shape, dtype=dt.np).reshape(len(t.shape)),
                                  rewriter)


class FoldSize(_Fold):
    """`size(x)` with a static `x` -> a constant."""
    roots = (SIZE_NAME,)

    def match_and_rewrite(self, op, rewriter):
        t = self.inf.tt(op.operands[0])
        if isinstance(t, TT) and is_static(t):
            dt = self.inf.tt(op.results[0]).dtype
            self.replace_by_const(op, np.array(int(np.prod(t.shape, dtype=np.int64)),
                                               dtype=dt.np), rewriter)


class FoldShapePick(_Fold):
    """Elements picked out of `shape(x)` by constant indices -> a constant, when every
    picked dim is known."""
    roots = tuple(sorted(SHAPE_PICKERS))

    def match_and_rewrite(self, op, rewriter):
        inf = self.inf
        src = op.operands[0]
        shape_op = getattr(src, "op", None)
        if shape_op is None or shape_op.name != SHAPE_NAME:
            return
        t = inf.tt(shape_op.operands[0])
        if not isinstance(t, TT) or t.shape is None:
            return
        out = inf.tt(op.results[0])
        others = []
        for v in op.operands[1:]:
            arr = value_of(v)
            if arr is None:
                return
            others.append(arr)
        dims = np.array([-1 if d is None else d for d in t.shape],
                        dtype=inf.tt(src).dtype.np)
        try:
            arr = np.asarray(KERNELS[op.opdef.name](dims, *others, **op.python_attrs()))
        except Exception:  # noqa: BLE001 - left for run time
            return
        if (arr < 0).any() or arr.dtype != dims.dtype or meet(out, TT(out.dtype, arr.shape)) \
                != TT(out.dtype, arr.shape):
            return
        self.replace_by_const(op, arr, rewriter)


@register_pass
@dataclass(frozen=True)
class ShapeInference(ModulePass):
    """Refinement is a dataflow walk of its own (each op's inference needs its operands'
    refined types first, and a cond's results the join of its branches after them), so it
    does not fit a pattern's one-op view; the folds are patterns on its results."""
    name = "shape-inference"

    def apply(self, ctx, op) -> bool:
        inf = _Inference()
        for region in op.regions:
            for b in region.blocks:
                inf.block(b)
        folded = apply_patterns(op, (FoldShape(inf), FoldSize(inf), FoldShapePick(inf)))
        return bool(inf.retyped) or folded
