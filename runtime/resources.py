"""Variable storage shared by eager code, the graph executor and XLA.

A `ResourceHandle` owns a variable's current value as a raw array: a NumPy array, or a device
buffer after an XLA step (written back there and left on the device). Values are never
mutated in place; an assign replaces the array, so earlier reads stay valid.

Donation: XLA may update a variable's buffer in place (donate it) only when the handle alone
refers to it. That holds by construction, without counting references: a buffer is the
handle's own from the moment XLA writes it back (or the handle uploads it) until anything
reads `value`, which hands it out; a value stored through `value` may be shared from the start.
XLA's call path reads through `lend`/`donate` and writes through `adopt`, which keep the mark.

Threads: each handle has a lock. A read, an update (read-modify-write of assign_add/sub) and a
whole XLA call that reads, donates and writes back the variable's buffer hold it, so
concurrent steps never lose an update or see a donated buffer. Separate ops of one step are
not atomic together (as in TF: `v.assign(v + 1)` from two threads may lose one increment).
"""
from __future__ import annotations

import threading


class ResourceHandle:
    __slots__ = ("_value", "_owned", "dtype", "shape", "name", "lock", "__weakref__")

    def __init__(self, value, dtype, shape, name: str):
        self.value = value
        self.dtype = dtype      # ir DType
        self.shape = shape      # TensorShape (may hold None dims)
        self.name = name
        self.lock = threading.Lock()

    @property
    def value(self):
        """The current value, handed out: the handle no longer owns the buffer alone."""
        self._owned = False
        return self._value

    @value.setter
    def value(self, value):
        self._value = value
        self._owned = False   # the caller may keep a reference to it

    def value_shape(self) -> tuple:
        """The current value's shape (the buffer stays the handle's own)."""
        return self._value.shape

    def lend(self):
        """The current value for a computation that only reads it while the lock is held."""
        return self._value

    def donate(self, copy):
        """The buffer to donate to XLA: the handle's own, or `copy(value)` when it was handed
        out (an eager Tensor may still read it)."""
        return self._value if self._owned else copy(self._value)

    def adopt(self, buffer):
        """Store a fresh buffer that nothing else refers to (XLA's result written back)."""
        self._value = buffer
        self._owned = True

    def __repr__(self):
        return f"<ResourceHandle {self.name} {self.dtype.name}{self.shape}>"
