"""StableHLO lowering rules: array family."""
from __future__ import annotations

import numpy as np

from .core import register_lowering


@register_lowering("const")
def _const(ctx, op, *_):
    attrs = op.python_attrs()
    return ctx.constant(np.asarray(attrs["value"], dtype=attrs["dtype"].np))
