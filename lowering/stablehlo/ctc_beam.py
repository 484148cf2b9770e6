"""ctc_beam_search_decoder under XLA: refused at compile time, as TF (no XLA kernel): the
decoded label counts depend on the values, and XLA needs static shapes."""
from __future__ import annotations

from ...ir.errors import UnimplementedError
from .core import _where, register_lowering


@register_lowering("ctc_beam_search_decoder")
def _refuse(ctx, op, *operands, **attrs):
    raise UnimplementedError(
        None, op.name, f"jit_compile=True: ctc_beam_search_decoder at {_where(op)} returns "
                       f"as many labels as the beam search decodes, a size known only at run "
                       f"time, and XLA needs static shapes; run this function without "
                       f"jit_compile")
