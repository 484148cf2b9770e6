"""Which df ops may be removed, merged or moved: the answer every pass shares."""
from __future__ import annotations

from .dialect import CaseOp, CondOp, CreateTokenOp, DfOp, WhileOp, YieldOp

REGION_OPS = (CondOp, CaseOp, WhileOp)

# Purity is a property of the op class except for region ops (None: it depends on the body).
# Passes ask for every op they visit, so the answer is cached per class: `isinstance` on
# IRDL classes goes through ABCMeta and costs more than the rest of the check.
_CLASS_PURITY: dict = {}


def _class_purity(cls):
    if issubclass(cls, DfOp):
        return not cls.opdef.stateful
    if issubclass(cls, REGION_OPS):
        return None
    return issubclass(cls, CreateTokenOp)


def is_pure(op) -> bool:
    """No side effects: a DfOp of a non-stateful registry op, or a region op whose nested ops
    are all pure. Token-carrying ops are never pure."""
    cls = type(op)
    try:
        p = _CLASS_PURITY[cls]
    except KeyError:
        p = _CLASS_PURITY[cls] = _class_purity(cls)
    if p is None:
        return all(is_pure(o) or isinstance(o, YieldOp) for o in op.walk() if o is not op)
    return p


def is_dead(op) -> bool:
    """Pure, and no result is used."""
    for r in op.results:
        if r.first_use is not None:
            return False
    return is_pure(op)
