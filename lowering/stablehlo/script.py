"""`py_function` / `numpy_function` under XLA: Python cannot run inside a compiled
computation, so they are refused with TF's class (InvalidArgumentError), naming the op and the
user's line. The API already refuses while tracing under jit_compile (the results' unknown
shapes would stop lowering earlier anyway); this rule refuses the same way for a module that
reaches lowering with them known (flowjit-opt input)."""
from __future__ import annotations

from ...ir.errors import InvalidArgumentError
from .core import _where, register_lowering


def refuse(opname: str, where: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, opname, f"jit_compile=True: tf.{opname} at {where} calls "
                                f"Python, which cannot run inside an XLA computation "
                                f"(TF: no XLA kernel for it); call the function with "
                                f"jit_compile=False")


def _rule(ctx, op, *operands):
    raise refuse(op.name.removeprefix("df."), _where(op))


register_lowering("py_function")(_rule)
register_lowering("numpy_function")(_rule)
