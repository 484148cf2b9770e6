"""`tf.bitwise` -> StableHLO: and/or/xor/not on the integer bits; a right shift is arithmetic
for signed types and logical for unsigned ones, as TF's (and NumPy's) is."""
from __future__ import annotations

from ...runtime.jax_internals import hlo
from .core import register_lowering


def _binary(fn):
    def rule(ctx, op, x, y):
        t = ctx.result_type(op)
        return fn(ctx.broadcast(x, t), ctx.broadcast(y, t))
    return rule


def _right_shift(x, y):
    unsigned = str(x.type.element_type).startswith("ui")
    return (hlo.shift_right_logical if unsigned else hlo.shift_right_arithmetic)(x, y)


for _name, _fn in {"bitwise_and": hlo.and_, "bitwise_or": hlo.or_, "bitwise_xor": hlo.xor,
                   "left_shift": hlo.shift_left, "right_shift": _right_shift}.items():
    register_lowering(_name)(_binary(_fn))
register_lowering("invert")(lambda ctx, op, x: hlo.not_(x))
