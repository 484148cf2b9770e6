"""The eager `Tensor`.

A Tensor holds a value and its DType. The value is a NumPy array (or NumPy scalar for rank 0),
or any array object with `.shape` and `__array__` — a jax Array returned by XLA stands in
unchanged and is copied to the host only when read (`numpy()`, a NumPy kernel).

A Tensor is immutable, so a copy of its value made for one backend stays valid: `_device`
keeps the device buffer beside a host value (an XLA result read by a NumPy kernel, a host
value uploaded for an XLA call), and a tensor passed alternately to the graph executor and
to XLA converts once, not on every call.

Operators (`+`, `[]`, ...) are installed by `frontend/eager/operators.py` once the op API exists.
"""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...ir.shapes import TensorShape


class Tensor:
    """An immutable multi-dimensional array (TF's `EagerTensor`)."""

    # `__dict__`: TF's tensors take attributes from user code (Keras marks a softmax's output
    # with the logits it came from); the dict is only made when one is set
    __slots__ = ("_value", "_dtype", "_device", "__weakref__", "__dict__")
    _layout = None   # a DTensor's Layout (frontend/distribute/dtensor.py); part of its trace type
    __array_priority__ = 100  # `ndarray + Tensor` defers to Tensor.__radd__

    def __init__(self, value, dtype=None):
        dt = D.as_dtype(dtype) if dtype is not None else None
        arr = np.asarray(value, dtype=None if dt is None else dt.np)
        self._value = arr
        self._dtype = dt or D.from_numpy(arr.dtype)
        self._device = None

    @classmethod
    def _wrap(cls, value, dtype: D.DType) -> "Tensor":
        t = cls.__new__(cls)
        t._value = value
        t._dtype = dtype
        t._device = None
        return t

    @classmethod
    def _wrap_device(cls, buffer, dtype: D.DType) -> "Tensor":
        """A Tensor of a device buffer XLA returned."""
        t = cls.__new__(cls)
        t._value = t._device = buffer
        t._dtype = dtype
        return t

    # --- metadata -----------------------------------------------------------
    @property
    def dtype(self) -> D.DType:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return TensorShape.from_tuple(tuple(self._value.shape))

    def get_shape(self) -> TensorShape:
        return self.shape

    @property
    def ndim(self) -> int:
        return len(self._value.shape)

    @property
    def device(self) -> str:
        v = self._value
        if isinstance(v, (np.ndarray, np.generic)):
            return "/job:localhost/replica:0/task:0/device:CPU:0"
        dev = next(iter(v.devices()))
        return f"/job:localhost/replica:0/task:0/device:{dev.platform.upper()}:{dev.id}"

    def set_shape(self, shape):
        if not TensorShape(shape).is_compatible_with(self.shape):
            raise ValueError(f"Tensor's shape {self.shape} is not compatible with supplied "
                             f"shape {TensorShape(shape)}.")

    # --- values -------------------------------------------------------------
    def _host(self):
        """The value as a NumPy array or scalar (no copy when it already is one)."""
        v = self._value
        if isinstance(v, (np.ndarray, np.generic)):
            return v
        self._device = v  # kept for the next XLA call (a Tensor never changes)
        v = np.asarray(v)
        self._value = v  # a device buffer is copied to the host once
        return v

    def numpy(self):
        """A copy of the value: a NumPy array, or a NumPy scalar for rank 0 (as TF)."""
        v = self._host()
        if v.ndim == 0:
            return v[()] if isinstance(v, np.ndarray) else v
        return v.copy()

    def __format__(self, format_spec):
        # As TF: the NumPy value formats itself, so f"{loss:2.5f}" works on scalars (a spec on
        # a non-scalar raises NumPy's TypeError, as in TF).
        return self.numpy().__format__(format_spec)

    def __array__(self, dtype=None, copy=None):
        v = np.asarray(self._host())
        if dtype is not None and v.dtype != dtype:
            return v.astype(dtype)
        if copy:
            return v.copy()
        v = v.view()  # read-only, as TF's: writing through it would change the tensor
        v.flags.writeable = False
        return v

    def __bool__(self):
        v = self._host()
        if v.size != 1:
            raise ValueError(f"The truth value of a tensor with shape {self.shape} is "
                             f"ambiguous: it has {v.size} elements. Use reduce_any or "
                             f"reduce_all.")
        return bool(v.reshape(()))

    def __int__(self):
        return int(self._host())

    def __float__(self):
        return float(self._host())

    def __index__(self):
        if not self._dtype.is_integer:
            raise TypeError(f"Only integer tensors can be used as an index, got "
                            f"{self._dtype.name}")
        return int(self._host())

    def __len__(self):
        s = self._value.shape
        if not s:
            raise TypeError("Scalar tensor has no `len()`")
        return s[0]

    def __iter__(self):
        s = self._value.shape
        if not s:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (self[i] for i in range(s[0]))

    # TF 2: tensors are not hashable; `==` is elementwise (installed by operators.py).
    __hash__ = None

    def ref(self):
        return Reference(self)

    def experimental_ref(self):
        return self.ref()

    def __repr__(self):
        return (f"<tf.Tensor: shape={_shape_str(self._value.shape)}, dtype={self._dtype.name}, "
                f"numpy={_numpy_repr(self._host())}>")

    def __str__(self):
        return (f"tf.Tensor({_numpy_str(self._host())}, shape={_shape_str(self._value.shape)}, "
                f"dtype={self._dtype.name})")

    def __reduce__(self):
        return Tensor, (self.numpy(), self._dtype.name)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


class Reference:
    """A hashable handle to a Tensor or Variable (`t.ref()`), compared by identity."""

    __slots__ = ("_obj",)

    def __init__(self, obj):
        self._obj = obj

    def deref(self):
        return self._obj

    def __hash__(self):
        return id(self._obj)

    def __eq__(self, other):
        return isinstance(other, Reference) and other._obj is self._obj

    def __repr__(self):
        return f"<Reference wrapping {self._obj!r}>"


def _shape_str(shape) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _numpy_repr(v) -> str:
    # TF shows a scalar as its Python value's repr (float32 0.1 -> 0.10000000149011612)
    text = repr(np.asarray(v).item()) if np.ndim(v) == 0 else repr(v)
    return "\n" + text if "\n" in text else text


def _numpy_str(v) -> str:
    text = str(np.asarray(v)[()]) if np.ndim(v) == 0 else np.array2string(np.asarray(v))
    return "\n" + text if "\n" in text else text
