"""The rewrite driver the pattern passes share: xDSL `RewritePattern`s applied with xDSL's
`PatternRewriter` from one worklist, and dead producers erased by the driver.

    class DropDoubleNeg(RootedPattern):          # an xDSL RewritePattern
        roots = ("df.neg",)                       # the ops it may match
        def match_and_rewrite(self, op, rewriter): ...

    @register_pass
    @dataclass(frozen=True)
    class MyPass(PatternPass):
        name = "my-pass"
        def patterns(self): return (DropDoubleNeg(),)

Why not xDSL's `PatternRewriteWalker` + `GreedyRewritePatternApplier`: the walker pushes
every op of the module on its worklist, offers each op to each pattern, checks every op for
trivial deadness, and after any change walks the whole module again, at 4-20 us per op per
walker pass as measured here: over the 12.5k ops of the N=5000 chain, ten passes would
take 0.5-2.5 s, against about 0.3 s for the whole pipeline with this driver. It keeps
xDSL's pattern and rewriter API (`RewritePattern`, `PatternRewriter` and its listener;
region-op patterns also carry `@op_type_rewrite_pattern`) and changes three things:
- patterns name the ops they match (`roots`, op names: df op classes are made per op, and
  an `isinstance` on them goes through ABCMeta), and one walk in post-order (an op after
  the ops nested in it, so inner region ops first) collects just those ops;
- ops a rewrite inserts, and users of values it replaced, join the worklist when a pattern
  roots on them (as in xDSL's walker); no second walk of the module;
- when a rewrite erases an op, its operands' producers that are left dead (`ir.effects`)
  are erased too, recursively. So patterns erase only what they replace, and no pass
  cleans up after itself. (The `dce` pass still sweeps the whole module once per round.)
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import TensorType, UnrankedTensorType
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriterListener, RewritePattern
from xdsl.rewriter import InsertPoint

from ..ir.dialect import OP_CLASSES, DfOp
from ..ir.effects import is_dead

_TENSORS = (TensorType, UnrankedTensorType)


class RootedPattern(RewritePattern):
    """A RewritePattern that says which ops (by name) it may match."""
    roots: ClassVar[tuple[str, ...]] = ()


class PatternPass(ModulePass):
    """A pass made of patterns, applied by `apply_patterns`; returns whether it changed the
    module."""

    def patterns(self) -> Sequence[RootedPattern]:
        raise NotImplementedError

    def apply(self, ctx, op) -> bool:
        return apply_patterns(op, self.patterns())


def _post_order(regions, wanted, out: list) -> list:
    # Follows xDSL's op list links directly: a generator walk costs several times more.
    for region in regions:
        for block in region.blocks:
            op = block._first_op
            while op is not None:
                if op.regions:
                    _post_order(op.regions, wanted, out)
                if op.name in wanted:
                    out.append(op)
                op = op._next_op
    return out


class _Rewriter(PatternRewriter):
    """A PatternRewriter whose default insertion point (before the matched op) is made only
    when a pattern uses it: making one costs more than most failed matches."""
    _at: InsertPoint | None = None

    @property
    def insertion_point(self) -> InsertPoint:
        if self._at is None:
            self._at = InsertPoint.before(self._current_operation)
        return self._at

    @insertion_point.setter
    def insertion_point(self, point: InsertPoint) -> None:
        self._at = point

    def reset(self, op: Operation) -> None:
        self.has_done_action = False
        self._current_operation = op
        self._at = None


class _Driver:
    def __init__(self, table: dict):
        self.table = table
        self.work: list = []
        self.producers: list = []   # ops whose users were erased: maybe dead now
        self.gone: set = set()      # ops erased with a region op (their parent stays set)
        self.rewriter = _Rewriter(InsertPoint.at_start(Block()))
        self.rewriter.extend_from_listener(PatternRewriterListener(
            operation_insertion_handler=[self._revisit],
            operation_modification_handler=[self._revisit],
            operation_removal_handler=[self._removed]))

    def _revisit(self, op: Operation) -> None:
        """A new op, or one whose operands changed: it may match now."""
        if op.name in self.table:
            self.work.append(op)

    def _removed(self, op: Operation) -> None:
        for v in op._operands:
            owner = v.owner
            if isinstance(owner, Operation):
                self.producers.append(owner)
        if op.regions:
            self.gone.update(op.walk())

    def run(self, module) -> bool:
        work = self.work
        work.extend(_post_order(module.regions, self.table, []))
        rewriter = self.rewriter
        changed = False
        i = 0
        while i < len(work):
            op = work[i]
            i += 1
            if op.parent is None or (self.gone and op in self.gone):
                continue
            rewriter.reset(op)
            for pattern in self.table[op.name]:
                pattern.match_and_rewrite(op, rewriter)
                if rewriter.has_done_action:
                    changed = True
                    self._erase_dead_producers()
                    break
        return changed

    def _erase_dead_producers(self) -> None:
        producers = self.producers
        while producers:
            op = producers.pop()
            if op.parent is not None and op not in self.gone and is_dead(op):
                self.rewriter.erase(op)


def apply_patterns(module, patterns: Sequence[RootedPattern]) -> bool:
    """Apply `patterns` to `module` until none matches; returns whether anything changed.
    For each op the patterns rooted on it are tried in order, the first that rewrites wins."""
    table: dict = {}
    for p in patterns:
        for name in p.roots:
            table.setdefault(name, []).append(p)
    return _Driver(table).run(module)


def inline_region(rewriter, op, region) -> None:
    """Replace the region op `op` (a cond or case) by the ops of `region`, one of its
    regions. The ops move, in order, to just before `op`, where they ran; the values the
    region yielded replace `op`'s results. A yielded value whose type is more static than
    the result it replaces goes through a `df.identity` of the old type, so users keep their
    exact types (`dependency` drops it where they allow)."""
    block = region.block
    y = block.last_op
    yielded = list(y.operands)
    rewriter.erase(y)
    rewriter.inline_block(block, InsertPoint.before(op))
    results, casts = [], []
    for r, v in zip(op.results, yielded):
        if r.type != v.type and isinstance(r.type, _TENSORS) and isinstance(v.type, _TENSORS):
            ident = OP_CLASSES["identity"].create(operands=[v], result_types=[r.type])
            ident.location = op.location
            casts.append(ident)
            v = ident.results[0]
        results.append(v)
    rewriter.replace(op, casts, results)


def sole_user(value, block):
    """The df op that uses `value` exactly once, if that is its only use and it lives in
    `block` (the fusion patterns' test that a producer can be folded into its consumer)."""
    use = value.get_unique_use()
    if use is None:
        return None
    user = use.operation
    return user if isinstance(user, DfOp) and user.parent is block else None
