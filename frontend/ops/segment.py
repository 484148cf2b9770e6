"""TF-named segment reductions (`tf.math.segment_sum`, `tf.math.unsorted_segment_max`, ...)."""
from __future__ import annotations

import operator

from ..eager.dispatch import apply, convert_to_tensor
from ..eager.shape_args import apply_tensor_attrs, is_tensor_arg, tensor_arg
from ..export import runs, tf_export


def _num_segments(n, opname) -> int:
    """`num_segments` as a Python int: the result shape depends on it, so it must be known
    while tracing (a Python int or a constant tensor)."""
    if hasattr(n, "numpy") and hasattr(n, "dtype"):
        try:
            n = n.numpy()
        except NotImplementedError:  # a symbolic tensor: no value while tracing
            raise TypeError(f"{opname}: num_segments must be known while tracing (a Python "
                            f"int or a constant), got {n!r}") from None
    if hasattr(n, "tolist"):
        n = n.tolist()
    if isinstance(n, bool) or not isinstance(n, int):
        try:
            n = operator.index(n)
        except TypeError:
            raise TypeError(f"{opname}: num_segments must be an integer, got {n!r}") from None
    return n


def _sorted(opname, doc):
    def fn(data, segment_ids, name=None):
        return apply(opname, (convert_to_tensor(data), convert_to_tensor(segment_ids)))
    fn.__name__, fn.__doc__ = opname, doc
    return runs(opname)(fn)


def _unsorted(opname, doc):
    def fn(data, segment_ids, num_segments, name=None):
        inputs = (convert_to_tensor(data), convert_to_tensor(segment_ids))
        if is_tensor_arg(num_segments):   # a count computed in the graph (tf.shape(x)[0])
            n, dyn = tensor_arg(num_segments, opname, "num_segments", scalar=True)
            return apply_tensor_attrs(opname, inputs, {"num_segments": n},
                                      {"num_segments": dyn})
        return apply(opname, inputs, {"num_segments": _num_segments(num_segments, opname)})
    fn.__name__, fn.__doc__ = opname, doc
    return runs(opname)(fn)


segment_sum = tf_export("math.segment_sum")(
    _sorted("segment_sum", "Sum of the rows of `data` per sorted segment id; "
            "segment_ids[-1] + 1 segments, empty ones 0."))
segment_mean = tf_export("math.segment_mean")(
    _sorted("segment_mean", "Mean of the rows per sorted segment id; empty "
            "segments 0."))
segment_max = tf_export("math.segment_max")(
    _sorted("segment_max", "Maximum of the rows per sorted segment id; empty "
            "segments 0."))
segment_min = tf_export("math.segment_min")(
    _sorted("segment_min", "Minimum of the rows per sorted segment id; empty "
            "segments 0."))
segment_prod = tf_export("math.segment_prod")(
    _sorted("segment_prod", "Product of the rows per sorted segment id; empty "
            "segments 1."))
unsorted_segment_sum = tf_export("math.unsorted_segment_sum")(
    _unsorted("unsorted_segment_sum", "Sum of the rows of `data` per "
              "segment id into `num_segments` segments; negative ids are "
              "dropped."))
unsorted_segment_max = tf_export("math.unsorted_segment_max")(
    _unsorted("unsorted_segment_max", "Maximum of the rows per segment "
              "id; an empty segment holds the dtype's lowest value."))
unsorted_segment_min = tf_export("math.unsorted_segment_min")(
    _unsorted("unsorted_segment_min", "Minimum of the rows per segment "
              "id; an empty segment holds the dtype's highest value."))
unsorted_segment_prod = tf_export("math.unsorted_segment_prod")(
    _unsorted("unsorted_segment_prod", "Product of the rows per segment "
              "id; an empty segment holds 1."))
