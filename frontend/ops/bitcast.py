"""tf.bitcast."""
from __future__ import annotations

from ...ir import dtypes as D
from ..eager.dispatch import apply, convert_to_tensor
from ..export import tf_export


@tf_export("bitcast")
def bitcast(input, type, name=None):  # noqa: A002  (TF's argument names)
    """`input`'s bytes read as `type`: the shape gains a last dim when `type` is narrower and
    loses one (of the width ratio) when it is wider."""
    return apply("bitcast", (convert_to_tensor(input),), {"type": D.as_dtype(type)})
