"""TF's `tf.bitwise`: elementwise operations on the bits of integer tensors."""
from __future__ import annotations

from ..eager.dispatch import apply, convert_pair, convert_to_tensor
from ..export import runs, tf_export


def _binary(opname, doc):
    @tf_export(f"bitwise.{opname}")
    @runs(opname)
    def fn(x, y, name=None):
        return apply(opname, convert_pair(x, y))
    fn.__name__ = opname
    fn.__doc__ = doc
    return fn


bitwise_and = _binary("bitwise_and", "x & y elementwise.")
bitwise_or = _binary("bitwise_or", "x | y elementwise.")
bitwise_xor = _binary("bitwise_xor", "x ^ y elementwise.")
left_shift = _binary("left_shift", "x << y elementwise.")
right_shift = _binary("right_shift", "x >> y elementwise (arithmetic for signed types).")


@tf_export("bitwise.invert")
@runs("invert")
def invert(x, name=None):
    """~x elementwise."""
    return apply("invert", (convert_to_tensor(x),))
