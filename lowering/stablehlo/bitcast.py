"""bitcast under XLA: stablehlo.bitcast_convert, which adds or consumes the last dim when the
widths differ, as TF's op does. XLA has no bit-level view of complex numbers: as TF's XLA
bridge, a complex operand or result is refused with UnimplementedError."""
from __future__ import annotations

from ...ir import dtypes as D
from ...ir.errors import UnimplementedError
from ...runtime.jax_internals import hlo
from .core import _where, register_lowering


@register_lowering("bitcast")
def _bitcast(ctx, op, x):
    if ctx.dtype(x) in D.COMPLEX or ctx.tt(op.results[0]).dtype in D.COMPLEX:
        raise UnimplementedError(None, op.name, f"Complex types not supported. (bitcast at "
                                                f"{_where(op)} under jit_compile=True)")
    return hlo.bitcast_convert(ctx.result_type(op), x)
