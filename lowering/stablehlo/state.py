"""Variables: reads return the current value; assigns replace it (see core.py)."""
from __future__ import annotations

from ...runtime.jax_internals import hlo
from .core import register_lowering


@register_lowering("read_variable")
def _read(ctx, op, res):
    return res.value


@register_lowering("assign_variable")
def _assign(ctx, op, res, value):
    res.value = value
    return []


@register_lowering("assign_add_variable")
def _assign_add(ctx, op, res, delta):
    res.value = hlo.add(res.value, delta)
    return []


@register_lowering("assign_sub_variable")
def _assign_sub(ctx, op, res, delta):
    res.value = hlo.subtract(res.value, delta)
    return []
