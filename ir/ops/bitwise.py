"""Bitwise operations on integers (`tf.bitwise`): and/or/xor, invert and shifts, elementwise
with broadcasting and no promotion, none differentiable."""
from __future__ import annotations

from ..infer import INTS, binary, unary
from ..registry import op

BINARY = ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift")

for _name in BINARY:
    op(_name, ("x", "y"), differentiable=False)(lambda types, attrs: binary(types, INTS))
op("invert", ("x",), differentiable=False)(lambda types, attrs: unary(types, INTS))
