"""A reduction's `axis` argument as its op attribute (reductions, clip_by_norm, strings)."""
from __future__ import annotations

import operator


def axis_int(v, opname, what="axis"):
    """One axis (an integer, or a 0-d integer tensor's value)."""
    if isinstance(v, bool) or getattr(getattr(v, "dtype", None), "is_integer", True) is False:
        raise TypeError(f"{opname}: {what} must be an integer or a list of integers, got {v!r}")
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"{opname}: {what} must be an integer or a list of integers, got "
                        f"{v!r}") from None


def axes_attr(axis, opname):
    """A reduction's `axis` argument as the op attribute: None (all axes) or a tuple of ints.
    An axis given as a tensor must be a constant: its value is read here."""
    if axis is None:
        return None
    if hasattr(axis, "numpy") and hasattr(axis, "dtype"):
        if not axis.dtype.is_integer:
            raise TypeError(f"{opname}: axis must be an integer tensor, got {axis.dtype.name}")
        axis = axis.numpy()
    if hasattr(axis, "tolist"):  # NumPy arrays and scalars
        axis = axis.tolist()
    if isinstance(axis, (list, tuple)):
        return tuple(axis_int(a, opname) for a in axis)
    return (axis_int(axis, opname),)
