"""Which df ops may be removed, merged or moved: the answer every pass shares."""
from __future__ import annotations

from ..ir.dialect import CaseOp, CondOp, CreateTokenOp, DfOp, WhileOp, YieldOp

REGION_OPS = (CondOp, CaseOp, WhileOp)


def is_pure(op) -> bool:
    """No side effects: a DfOp of a non-stateful registry op, or a region op whose nested ops
    are all pure. Token-carrying ops are never pure."""
    if isinstance(op, DfOp):
        return not op.opdef.stateful
    if isinstance(op, REGION_OPS):
        return all(is_pure(o) or isinstance(o, YieldOp) for o in op.walk() if o is not op)
    return isinstance(op, CreateTokenOp)


def is_dead(op) -> bool:
    return is_pure(op) and all(not r.uses for r in op.results)
