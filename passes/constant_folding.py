"""`constant-folding`: evaluate pure ops whose operands are all `df.const` with the NumPy kernels
(the ones the graph executor runs) and replace them by `df.const`; inline the taken branch of a
`df.cond` / `df.case` whose predicate / index is a constant.

Guards, after Grappler's ConstantFolding:
- Only ops `ir.effects.is_pure` accepts are evaluated; stateful (token-carrying) ops never are.
  Ops of the `random` family are not folded either: their outputs are usually large and
  cheaper to generate than to store, and XLA lowers them with its own bit generator code.
- `max_size` bounds the number of elements of one folded op's results (default 1_000_000,
  4 MB of float32: about Grappler's 10 MiB `kMaxConstantSize` for 8-byte types, and small
  enough that building the constant attribute stays in the milliseconds). An op whose
  results are statically larger is not evaluated at all.
- `max_growth` (default 1024): an op may add at most this many elements over its constant
  operands. Generators (`range`, `fill_like`, `broadcast_to`, `tile`, `one_hot` ...) are cheap
  to run and costly to embed (the XLA lowering turns them into iota/broadcast instead of a
  literal), so folding must not blow a small graph up into a large constant.
- Nothing is folded that reads or makes a subnormal float: XLA's CPU backend flushes them
  to zero (as TF's CPU kernels do), the NumPy kernels do not, so the folded value could
  differ from what XLA computes; left in the graph, each backend keeps its own behavior.
- Ops with a float16/bfloat16 result are not folded unless `fold_half` is set: XLA's CPU
  backend evaluates chains of half-precision ops in float32 and drops the intermediate
  roundings, so a folded (rounded) constant would change what XLA computes. The executor
  rounds every op, and there folding them is exact. (Casts from half precision to wider
  types, comparisons and data movement of half values still fold.)
- A kernel that raises (a value-dependent error such as an out-of-range gather index) leaves
  the op alone, so the error still happens at run time, where it happened before.
- A folded constant keeps the result type of the value it replaces (type objects reused), so
  no user sees a type change; `shape-inference` refines a `?` dim of such a constant later.

Branch inlining keeps side effects exact: the ops of the taken region move, in order, to just
before the region op, which is where they ran before; the region's token is captured from
above, and the token it yields replaces the region op's token result, so the token chain is
rethreaded by construction. A yielded value whose type is more static than the region op's
result is routed through a `df.identity` of the old type (users keep their exact types;
`shape-inference` + `arithmetic` remove it where the function signature allows).

Exactness. In the executor a folded constant is bit for bit what the op computed before
(the same kernel). Under XLA, XLA compiles an unfolded constant expression with its own
liberties: a*b+c contracted into an FMA, division by a constant turned into multiplication
by its reciprocal, half precision evaluated in float32, subnormals flushed to zero. The
folded value is the IEEE per-op result instead, so XLA's output may move by a few ulps (as
with Grappler, which folds with the CPU kernels before XLA sees the graph). The last two
cases change results grossly (overflow, NaN) and are guarded above; transcendental kernels
may also differ from XLA's in the last ulp.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.ir import OpResult
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from ..ir import dtypes as D
from ..ir.constants import CONST_NAME, const_op, const_value, make_const, numel, type_info
from ..ir.dialect import OP_CLASSES, CaseOp, CondOp
from ..ir.effects import is_pure
from ..runtime.kernels import KERNELS
from . import register_pass
from .rewrite import PatternPass, RootedPattern, inline_region

NOT_FOLDED_FAMILIES = frozenset({"random"})
HALF = (D.float16, D.bfloat16)


def _fits(tt, arr) -> bool:
    """The kernel's array matches the declared result type (dtype exactly, shape where known)."""
    if tt is None or D.from_numpy(arr.dtype) is not tt.dtype:
        return False
    if tt.shape is None:
        return True
    return len(tt.shape) == arr.ndim and all(d is None or d == a
                                             for d, a in zip(tt.shape, arr.shape))


# float dtype -> its smallest normal number (other dtypes: absent)
_TINY = {"float16": 2.0 ** -14, "bfloat16": 2.0 ** -126, "float32": 2.0 ** -126,
         "float64": 2.0 ** -1022}


def _has_subnormal(a: np.ndarray) -> bool:
    """A nonzero float below the smallest normal: XLA's CPU backend flushes those to zero
    (inputs and results), the NumPy kernels do not."""
    tiny = _TINY.get(a.dtype.name)
    if tiny is None or a.size == 0:
        return False
    if a.size == 1:
        return 0.0 < abs(float(a.reshape(-1)[0])) < tiny
    mag = np.abs(a)
    return bool(((mag < tiny) & (mag > 0)).any())


class _Constants:
    """(array, holds a subnormal) of each constant, decoded once per run of the pass."""

    def __init__(self):
        self.entries: dict = {}

    def entry(self, op):
        e = self.entries.get(op)
        if e is None:
            a = const_value(op)
            e = self.entries[op] = (a, _has_subnormal(a))
        return e

    def remember(self, op, arr):
        self.entries[op] = (arr, False)


class FoldOp(RootedPattern):
    """A pure df op whose operands are all constants -> the constants its kernel computes."""

    def __init__(self, consts: _Constants, max_size: int, max_growth: int, fold_half: bool):
        # every df op but the constant itself (ops registered from user code included)
        self.roots = tuple(c.name for c in OP_CLASSES.values() if c.name != CONST_NAME)
        self.consts = consts
        self.max_size = max_size
        self.max_growth = max_growth
        self.fold_half = fold_half

    def match_and_rewrite(self, op, rewriter):
        consts = []
        for v in op.operands:  # the cheapest test first: most ops have a non-constant operand
            if not isinstance(v, OpResult) or v.op.name != CONST_NAME:
                return
            consts.append(v.op)
        opdef = op.opdef
        if not is_pure(op) or opdef.family in NOT_FOLDED_FAMILIES or not op.results:
            return
        kernel = KERNELS.get(opdef.name)
        if kernel is None:
            return
        out_tts = [type_info(r.type)[0] for r in op.results]
        if not self.fold_half and any(t is None or t.dtype in HALF for t in out_tts):
            return
        entries = [self.consts.entry(c) for c in consts]
        if any(e[1] for e in entries):
            return
        args = [e[0] for e in entries]
        limit = min(self.max_size, self.max_growth + sum(a.size for a in args))
        known = [numel(t) for t in out_tts]
        if None not in known and sum(known) > limit:
            return
        try:
            out = kernel(*args, **op.python_attrs())
        except Exception:  # noqa: BLE001 - the error belongs to run time, as before folding
            return
        outs = (out,) if len(op.results) == 1 else tuple(out)
        arrays = [np.asarray(a) for a in outs]
        if len(arrays) != len(op.results) or sum(a.size for a in arrays) > limit \
                or not all(_fits(t, a) for t, a in zip(out_tts, arrays)) \
                or any(_has_subnormal(a) for a in arrays):
            return
        new = [make_const(a, r.type, op.location) for a, r in zip(arrays, op.results)]
        for c, a in zip(new, arrays):
            self.consts.remember(c, a)
        rewriter.replace(op, new, [c.results[0] for c in new])


class FoldBranch(RootedPattern):
    """A cond / case whose predicate / index is a constant -> the ops of the taken branch."""
    roots = ("df.cond", "df.case")

    def __init__(self, consts: _Constants):
        self.consts = consts

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CondOp | CaseOp, rewriter: PatternRewriter):
        c = const_op(op.operands[0])
        if c is None:
            return
        v = self.consts.entry(c)[0]
        if v.size != 1:
            return
        if isinstance(op, CondOp):
            region = op.then_region if bool(v.reshape(())) else op.else_region
        else:
            n = len(op.branches)
            i = int(v.reshape(()))
            region = op.branches[i if 0 <= i < n else n - 1]
        inline_region(rewriter, op, region)


@register_pass
@dataclass(frozen=True)
class ConstantFolding(PatternPass):
    """Options: `max_size` (elements per folded op, default 1_000_000), `max_growth`
    (elements a fold may add over its constant operands, default 1024), `fold_branches`
    (inline cond/case branches picked by a constant, default true) and `fold_half` (fold ops
    with float16/bfloat16 results, default false)."""
    name = "constant-folding"
    max_size: int = 1_000_000
    max_growth: int = 1024
    fold_branches: bool = True
    fold_half: bool = False

    def patterns(self):
        consts = _Constants()
        fold = FoldOp(consts, int(self.max_size), int(self.max_growth), bool(self.fold_half))
        return (fold, FoldBranch(consts)) if self.fold_branches else (fold,)
