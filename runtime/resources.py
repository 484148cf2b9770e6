"""Variable storage shared by eager code, the graph executor and XLA.

A `ResourceHandle` owns a variable's current value as a raw array: a NumPy array, or a device
buffer after an XLA step (written back there and left on the device). Values are never
mutated in place; an assign replaces the array, so earlier reads stay valid.

Threads: each handle has a lock. A read, an update (read-modify-write of assign_add/sub) and a
whole XLA call that reads, donates and writes back the variable's buffer hold it, so
concurrent steps never lose an update or see a donated buffer. Separate ops of one step are
not atomic together (as in TF: `v.assign(v + 1)` from two threads may lose one increment).
"""
from __future__ import annotations

import threading


class ResourceHandle:
    __slots__ = ("value", "dtype", "shape", "name", "lock", "__weakref__")

    def __init__(self, value, dtype, shape, name: str):
        self.value = value
        self.dtype = dtype      # ir DType
        self.shape = shape      # TensorShape (may hold None dims)
        self.name = name
        self.lock = threading.Lock()

    def __repr__(self):
        return f"<ResourceHandle {self.name} {self.dtype.name}{self.shape}>"
