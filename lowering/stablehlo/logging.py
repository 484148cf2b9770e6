"""`print` and `assert` under XLA: refused at compile time with the op and the user's line,
never dropped silently (host callbacks would lift this later)."""
from __future__ import annotations

from ...ir.errors import UnimplementedError
from .core import _where, register_lowering


def _refuse(what):
    def rule(ctx, op, *operands):
        raise UnimplementedError(None, op.name, f"jit_compile=True: {what} at {_where(op)} "
                                 f"cannot run inside an XLA computation yet; remove it, or "
                                 f"call the function with jit_compile=False")
    return rule


register_lowering("print")(_refuse("tf.print"))
register_lowering("assert")(_refuse("an assert (tf.debugging.*)"))
