"""`TensorShape`: TF's partially known shape (unknown dims are `None`, unknown rank is `None`).

Inside the registry a shape is a plain tuple of `int | None` (or `None` for unknown rank):
cheap to hash and compare, which eager dispatch relies on. `TensorShape` is the user-facing
wrapper with TF's methods.
"""
from __future__ import annotations

import operator
from typing import Iterable


def _dim(d):
    if d is None:
        return None
    if hasattr(d, "value") and not isinstance(d, int):  # a TF-style Dimension
        d = d.value
        if d is None:
            return None
    try:
        i = operator.index(d)  # as TF: 2.0 is not a dimension
    except TypeError:
        raise TypeError(f"Dimension value must be integer or None or have an __index__ "
                        f"method, got value {d!r} with type {type(d)!r}") from None
    if i < 0:
        raise ValueError(f"Dimension {i} must be >= 0")
    return i


class TensorShape:
    """A possibly partial shape. `dims` is a tuple of `int | None`, or `None` for unknown rank."""

    __slots__ = ("_dims",)

    def __init__(self, dims: Iterable | None | "TensorShape" = None):
        if isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif dims is None:
            self._dims = None
        elif isinstance(dims, int):
            self._dims = (_dim(dims),)
        else:
            self._dims = tuple(_dim(d) for d in dims)

    @classmethod
    def from_tuple(cls, dims):
        s = cls.__new__(cls)
        s._dims = dims
        return s

    # --- TF's API ---------------------------------------------------------
    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    @property
    def rank(self):
        return None if self._dims is None else len(self._dims)

    ndims = rank

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def as_tuple(self):
        return self._dims

    def is_fully_defined(self) -> bool:
        return self._dims is not None and None not in self._dims

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_compatible_with(self, other) -> bool:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def merge_with(self, other) -> "TensorShape":
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def most_specific_compatible_shape(self, other) -> "TensorShape":
        """The shape that keeps the dims two shapes agree on (TF's relaxation)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims)])

    def concatenate(self, other) -> "TensorShape":
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def with_rank(self, rank):
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self if self._dims is not None else TensorShape([None] * rank)

    def with_rank_at_least(self, rank):
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank):
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    # --- Python protocol --------------------------------------------------
    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            if isinstance(key, slice):
                return TensorShape(None)
            return None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __bool__(self):
        return self._dims is not None

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self):
        return hash(self._dims)

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        inner = ", ".join("None" if d is None else str(d) for d in self._dims)
        return f"({inner},)" if len(self._dims) == 1 else f"({inner})"

    def __reduce__(self):
        return TensorShape, (self.dims,)


def as_shape(value) -> TensorShape:
    return value if isinstance(value, TensorShape) else TensorShape(value)


def format_shape(dims) -> str:
    """A registry shape tuple as TF prints it: `[2,3]`, `[?,784]`, `<unknown>`."""
    if dims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"
