"""`tf.nn.isotonic_regression`: the least-squares monotone fit along an axis."""
from __future__ import annotations

import collections

from ...ir import dtypes as D
from ...ir.errors import InvalidArgumentError
from ...ir.ops.isotonic import KERNEL_OUTPUT
from ..eager.dispatch import apply, convert_to_tensor
from ..export import runs, tf_export
from . import array as A

Isotonic = collections.namedtuple("IsotonicRegression", ["output", "segments"])


def _axis_last(x, axis):
    """The permutation that moves `axis` last (it is its own inverse: a swap)."""
    rank = x.shape.rank
    if rank is None:   # flowjit's transpose takes a permutation known while tracing
        raise ValueError(f"isotonic_regression: axis={axis} (not the last) needs the input's "
                         f"rank while tracing; it is unknown")
    if not -rank <= axis < rank:
        raise InvalidArgumentError(
            None, "IsotonicRegression", f"`dim` must be in the range [{-rank}, {rank}) where "
            f"{rank} is the number of dimensions in the input. Received: dim={axis}")
    perm = list(range(rank))
    perm[axis % rank], perm[-1] = perm[-1], perm[axis % rank]
    return perm


@runs("isotonic_regression")
@tf_export("nn.isotonic_regression")
def isotonic_regression(inputs, decreasing=True, axis=-1):
    """The monotone (non-increasing, or non-decreasing with decreasing=False) least-squares
    fit of `inputs` along `axis`, and each element's segment: the elements pooled into one
    value share an index, from 0 along the axis."""
    x = convert_to_tensor(inputs)
    out_dtype = KERNEL_OUTPUT.get(x.dtype, D.float64)
    last = axis == -1 or (x.shape.rank is not None and axis == x.shape.rank - 1)
    perm = None if last or x.shape.rank == 0 else _axis_last(x, axis)
    moved = x if perm is None else A.transpose(x, perm)
    output, segments = apply("isotonic_regression", (moved if decreasing else -moved,),
                             {"output_dtype": out_dtype})
    if not decreasing:
        output = -output
    if perm is not None:
        output, segments = A.transpose(output, perm), A.transpose(segments, perm)
    return Isotonic(output, segments)
