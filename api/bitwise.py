"""TF's `tf.bitwise`: and/or/xor, invert and shifts on integer tensors."""
from flowjit.frontend.export import install as _install
_install(globals(), "bitwise")
