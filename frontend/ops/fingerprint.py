"""`tf.fingerprint`: a stable 64-bit hash of each row (FarmHash's Fingerprint64)."""
from __future__ import annotations

from ..eager.dispatch import apply, convert_to_tensor
from ..export import tf_export


@tf_export("fingerprint")
def fingerprint(data, method="farmhash64", name=None):
    """uint8 [rows, 8]: the little-endian Fingerprint64 of each dim 0 slice of `data` (any
    dtype, rank >= 1); the same on every platform and release."""
    return apply("fingerprint", (convert_to_tensor(data),), {"method": method})
