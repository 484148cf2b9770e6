"""`fingerprint` under XLA: refused as TF refuses it (its XLA has no Fingerprint kernel)."""
from __future__ import annotations

from .core import refuse_without_kernel, register_lowering


@register_lowering("fingerprint")
def _fingerprint(ctx, op, data, *, method):
    refuse_without_kernel(ctx.fname, op, "Fingerprint")
