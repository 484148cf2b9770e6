"""`cse`: merge pure, region-free ops with the same name, operands, attributes and result
types. Flat and scoped: a value computed above a region is reused inside it (it dominates),
never the other way round. The surviving op is the first one (its location is kept)."""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.passes import ModulePass

from ..ir.effects import is_pure
from . import register_pass


class _Interner:
    """Attributes and types -> small ints, equal iff the values are equal. Types are shared
    objects, so after the first sight of each object this is one dict lookup by identity
    instead of hashing the attribute's parameters again (xDSL attributes do not cache
    their hash)."""

    def __init__(self):
        self._by_id: dict = {}      # id(attr) -> (attr, token); holding attr keeps id valid
        self._by_value: dict = {}   # attr -> token

    def __call__(self, a) -> int:
        e = self._by_id.get(id(a))
        if e is None:
            tok = self._by_value.setdefault(a, len(self._by_value))
            e = self._by_id[id(a)] = (a, tok)
        return e[1]


def _key(op, tok):
    """Ops with operands: (name, operands); the attributes and result types are compared
    only among the few ops that share that key (`_same`), because hashing every op's
    attributes costs more than the rest of the pass. Ops without operands (constants) are
    keyed on everything, since all constants would share the short key."""
    if op._operands:
        # ids: SSAValue.__hash__ is a Python-level call per operand. The values stay alive
        # (the op in `known` holds them), so their ids stay unique.
        return (op.name, tuple(map(id, op._operands)))
    attrs = op.attributes
    props = op.properties
    return (op.name, tuple([tok(r.type) for r in op.results]),
            tuple(sorted([(k, tok(v)) for k, v in attrs.items()])) if attrs else (),
            tuple(sorted([(k, tok(v)) for k, v in props.items()])) if props else ())


def _same(a, b) -> bool:
    return a.attributes == b.attributes and a.properties == b.properties and \
        [r.type for r in a.results] == [r.type for r in b.results]


def cse_block(block, known: dict, tok=None) -> int:
    """Merge duplicates in `block` (and nested regions) given the ops `known` from
    enclosing blocks (key -> tuple of ops; tuples, so a nested scope never adds to its
    parent's entries); returns how many ops were erased."""
    if tok is None:
        tok = _Interner()
    merged = 0
    op = block.first_op
    while op is not None:
        nxt = op.next_op
        if op.regions:
            for region in op.regions:
                for b in region.blocks:
                    merged += cse_block(b, dict(known), tok)
        elif op.results and is_pure(op):
            k = _key(op, tok)
            seen = known.get(k)
            prev = None
            if seen is not None:
                for cand in seen:
                    if _same(cand, op):
                        prev = cand
                        break
            if prev is None:
                known[k] = (op,) if seen is None else seen + (op,)
            else:
                for old, new in zip(op.results, prev.results):
                    old.replace_all_uses_with(new)
                op.detach()                 # nothing uses it now: no need to rewire its
                op.drop_all_references()    # results to ErasedSSAValues (Rewriter.erase_op)
                merged += 1
        op = nxt
    return merged


@register_pass
@dataclass(frozen=True)
class CommonSubexpressionElimination(ModulePass):
    name = "cse"

    def apply(self, ctx, op) -> bool:
        tok = _Interner()
        return sum(cse_block(b, {}, tok) for region in op.regions for b in region.blocks) > 0
