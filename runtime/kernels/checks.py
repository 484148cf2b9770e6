"""Kernel of `ensure_shape` (TF's run-time check and text)."""
from __future__ import annotations

import numpy as np

from ...ir.errors import InvalidArgumentError
from ...ir.shapes import format_shape
from . import kernel


def shape_mismatch(actual, wanted) -> str | None:
    """TF's EnsureShape text when `actual` (ints) does not fit `wanted` (None = any)."""
    if len(actual) == len(wanted) and all(w is None or w == a for a, w in zip(actual, wanted)):
        return None
    return f"Shape of tensor input {format_shape(actual)} is not compatible with expected " \
           f"shape {format_shape(wanted)}."


@kernel("ensure_shape")
def ensure_shape(x, *, shape):
    problem = shape_mismatch(np.shape(x), shape)
    if problem is not None:
        raise InvalidArgumentError(None, "ensure_shape", problem)
    return x
