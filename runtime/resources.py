"""Variable storage shared by eager code, the graph executor and XLA.

A `ResourceHandle` owns a variable's current value as a raw array: a NumPy array, or a device
buffer after an XLA step (written back there and left on the device). Values are never
mutated in place; an assign replaces the array, so earlier reads stay valid.
"""
from __future__ import annotations


class ResourceHandle:
    __slots__ = ("value", "dtype", "shape", "name", "__weakref__")

    def __init__(self, value, dtype, shape, name: str):
        self.value = value
        self.dtype = dtype      # ir DType
        self.shape = shape      # TensorShape (may hold None dims)
        self.name = name

    def __repr__(self):
        return f"<ResourceHandle {self.name} {self.dtype.name}{self.shape}>"
