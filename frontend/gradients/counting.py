"""`bincount`'s weights: TF registers no gradient for DenseBincount, so a gradient asked through
them is TF's LookupError (not a silent None, which an op marked not differentiable gives)."""
from __future__ import annotations

from ._util import gradient


@gradient("bincount")
def _bincount_grad(op, g):
    raise LookupError("gradient registry has no entry for: DenseBincount")
