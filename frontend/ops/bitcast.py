"""TF's `tf.bitcast`."""
from __future__ import annotations

from ...ir import dtypes as D
from ..eager.dispatch import apply, convert_to_tensor
from ..export import tf_export


@tf_export("bitcast")
def bitcast(input, type, name=None):
    """The bytes of `input` read as `type` (see ir/ops/bitcast.py for the shape rule)."""
    return apply("bitcast", (convert_to_tensor(input),), {"type": D.as_dtype(type)})
