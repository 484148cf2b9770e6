"""`fingerprint` under XLA: refused as TF refuses it (its XLA has no Fingerprint kernel)."""
from __future__ import annotations

from ...ir.errors import InvalidArgumentError
from .core import _where, register_lowering


@register_lowering("fingerprint")
def _fingerprint(ctx, op, data, *, method):
    raise InvalidArgumentError(
        None, "fingerprint", f"Detected unsupported operations when trying to compile graph "
        f"{ctx.fname} on XLA_CPU_JIT: Fingerprint (No registered 'Fingerprint' OpKernel for "
        f"XLA_CPU_JIT devices) at {_where(op)}; call the function without jit_compile")
