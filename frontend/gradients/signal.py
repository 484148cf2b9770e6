"""Gradients of the FFT family. Every FFT has a complex input or output, and the tape does
not differentiate complex tensors yet (see math's complex ops), so these refuse by name."""
from __future__ import annotations

from ...ir.errors import UnimplementedError
from . import register_gradient


@register_gradient("fft", "ifft", "rfft", "irfft")
def _fft_grad(op, g):
    raise UnimplementedError(None, op.opdef.name, f"no gradient for {op.opdef.name}: flowjit "
                             f"does not differentiate complex tensors yet (TF does)")
