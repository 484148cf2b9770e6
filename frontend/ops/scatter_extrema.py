"""tf.tensor_scatter_nd_min and tf.tensor_scatter_nd_max."""
from __future__ import annotations

from ..eager.dispatch import apply, convert_to_tensor
from ..export import runs, tf_export
from .array import _check_bad_indices_policy, _is_tensor_like


def _extreme(opname, doc):
    def fn(tensor, indices, updates, bad_indices_policy="", name=None):
        _check_bad_indices_policy(bad_indices_policy, opname)
        t = convert_to_tensor(tensor)
        ix = convert_to_tensor(indices)
        # a tensor of another dtype is TF's dtype error, not converted (as tensor_scatter_nd_add)
        upd = updates if _is_tensor_like(updates) else convert_to_tensor(updates, dtype=t.dtype)
        return apply(opname, (t, ix, convert_to_tensor(upd)))
    fn.__name__, fn.__doc__ = opname, doc
    return runs(opname)(fn)


tensor_scatter_nd_min = tf_export("tensor_scatter_nd_min")(_extreme(
    "tensor_scatter_nd_min", "A copy of `tensor` with each indexed element the minimum of "
    "itself and the updates sent to it."))
tensor_scatter_nd_max = tf_export("tensor_scatter_nd_max")(_extreme(
    "tensor_scatter_nd_max", "A copy of `tensor` with each indexed element the maximum of "
    "itself and the updates sent to it."))
