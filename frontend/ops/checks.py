"""`tf.ensure_shape`: checked while tracing against the static shape (TF's ValueError), and
at run time by the op (TF's InvalidArgumentError)."""
from __future__ import annotations

from ...ir.shapes import TensorShape, as_shape, format_shape
from ..eager.dispatch import apply, convert_to_tensor
from ..export import tf_export


def _static_mismatch(given: TensorShape, wanted: TensorShape) -> str | None:
    """TF's shape-inference text for two shapes that cannot be the same, else None."""
    if given.rank is None or wanted.rank is None:
        return None
    if given.rank != wanted.rank:
        return f"Shapes must be equal rank, but are {given.rank} and {wanted.rank}"
    for i, (g, w) in enumerate(zip(given.dims, wanted.dims)):
        if g is not None and w is not None and g != w:
            return f"Dimension {i} in both shapes must be equal, but are {w} and {g}. Shapes " \
                   f"are {format_shape(wanted.as_tuple())} and {format_shape(given.as_tuple())}."
    return None


@tf_export("debugging.ensure_shape", "ensure_shape")
def ensure_shape(x, shape, name=None):
    """`x`, after checking that its shape is compatible with `shape` (None dims: any)."""
    from ..function import func_graph
    x = convert_to_tensor(x)
    try:
        wanted = as_shape(shape)
    except (TypeError, ValueError) as e:  # TF's classes, naming the op
        raise type(e)(f"ensure_shape: {e}") from None
    if wanted.rank is None:
        return x
    if func_graph.current() is not None:
        problem = _static_mismatch(x.shape, wanted)
        if problem is not None:
            raise ValueError(problem)
    return apply("ensure_shape", (x,), {"shape": wanted.as_tuple()})


