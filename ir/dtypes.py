"""Element types: TF's `DType` objects, keyed both ways to NumPy dtypes.

A DType is interned (one object per type), so dispatch compares with `is` and hashes fast.
bfloat16 comes from ml_dtypes, the same NumPy extension type jax uses, so arrays move
between NumPy kernels and XLA buffers without conversion. ml_dtypes takes about a second to
import (it registers casts for a dozen types), so it loads on the first use of bfloat16's
NumPy type, not with flowjit: no bfloat16 array exists before then.
"""
from __future__ import annotations

import functools

import numpy as np


@functools.cache
def ml_dtypes():
    """The ml_dtypes module, imported on first use."""
    import ml_dtypes as module
    return module


def finfo(np_dtype):
    """`np.finfo`, extended to bfloat16."""
    return ml_dtypes().finfo(np_dtype) if np_dtype.name == "bfloat16" else np.finfo(np_dtype)


def is_half_np(np_dtype) -> bool:
    """Whether a NumPy dtype is float16 or bfloat16 (without loading ml_dtypes for the test).
    Kernels ask on every call: NumPy computes `dtype.name` in Python (microseconds), so the
    test reads its size and kind (bfloat16 is ml_dtypes' only 2-byte type, of kind "V")."""
    return np_dtype.itemsize == 2 and np_dtype.kind in "fV"


class DType:
    """One element type. Compare with `==`; `as_numpy_dtype` is the NumPy scalar type."""

    __slots__ = ("name", "_np", "kind", "size", "mlir")

    def __init__(self, name: str, np_dtype, kind: str, mlir: str, size: int | None = None):
        self.name = name
        self._np = None if np_dtype is None else np.dtype(np_dtype)
        self.kind = kind  # "f" floating, "i" signed, "u" unsigned, "b" bool, "c" complex,
        # "s" string
        self.size = self._np.itemsize if size is None else size
        self.mlir = mlir  # element type spelling in MLIR / StableHLO

    @property
    def np(self) -> np.dtype:
        """The NumPy dtype (bfloat16's loads ml_dtypes on first use)."""
        if self._np is None:
            self._np = np.dtype(ml_dtypes().bfloat16)
            _BY_NP[self._np] = self
        return self._np

    @property
    def as_numpy_dtype(self):
        return self.np.type

    @property
    def base_dtype(self) -> "DType":
        return self

    @property
    def is_floating(self) -> bool:
        return self.kind == "f"

    @property
    def is_integer(self) -> bool:
        return self.kind in "iu"

    @property
    def is_unsigned(self) -> bool:
        return self.kind == "u"

    @property
    def is_bool(self) -> bool:
        return self.kind == "b"

    @property
    def is_complex(self) -> bool:
        return self.kind == "c"

    @property
    def real_dtype(self) -> "DType":
        """The type of the real and imaginary parts (the dtype itself when not complex)."""
        return _REAL_PART.get(self, self)

    @property
    def is_numeric(self) -> bool:
        return self.kind in "fiuc"

    @property
    def min(self):
        if self.kind in "sc":
            raise TypeError(f"Cannot find minimum value of {self}.")
        return finfo(self.np).min if self.kind == "f" else (
            False if self.kind == "b" else np.iinfo(self.np).min)

    @property
    def max(self):
        if self.kind in "sc":
            raise TypeError(f"Cannot find maximum value of {self}.")
        return finfo(self.np).max if self.kind == "f" else (
            True if self.kind == "b" else np.iinfo(self.np).max)

    def is_compatible_with(self, other) -> bool:
        return as_dtype(other) is self

    def __repr__(self):
        return f"tf.{self.name}"

    def __str__(self):
        return f"<dtype: '{self.name}'>"

    def __eq__(self, other):
        if other is self:
            return True
        if other is None:
            return False
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.name)

    def __reduce__(self):
        return as_dtype, (self.name,)


float16 = DType("float16", np.float16, "f", "f16")
bfloat16 = DType("bfloat16", None, "f", "bf16", size=2)
float32 = DType("float32", np.float32, "f", "f32")
float64 = DType("float64", np.float64, "f", "f64")
int8 = DType("int8", np.int8, "i", "i8")
int16 = DType("int16", np.int16, "i", "i16")
int32 = DType("int32", np.int32, "i", "i32")
int64 = DType("int64", np.int64, "i", "i64")
uint8 = DType("uint8", np.uint8, "u", "ui8")
uint16 = DType("uint16", np.uint16, "u", "ui16")
uint32 = DType("uint32", np.uint32, "u", "ui32")
uint64 = DType("uint64", np.uint64, "u", "ui64")
bool_ = DType("bool", np.bool_, "b", "i1")
half = float16
double = float64

# Complex numbers: not in ALL either (few ops take them); XLA carries them natively.
complex64 = DType("complex64", np.complex64, "c", "complex<f32>")
complex128 = DType("complex128", np.complex128, "c", "complex<f64>")
COMPLEX = (complex64, complex128)
_REAL_PART = {complex64: float32, complex128: float64}

# Byte strings. The storage is a NumPy object array of Python `bytes` (a 0-d one for a
# scalar): exactly what TF's `.numpy()` returns, so values leave a tensor without conversion,
# and unlike fixed-width "S" arrays it keeps trailing NUL bytes and needs no padding. Not in
# ALL: numeric op tables never see it; the ops that move or compare strings list it.
string = DType("string", np.object_, "s", "!df.string")

# Not an element type of values: the type of a variable handle in graphs (`!df.resource`).
resource = DType("resource", np.object_, "r", "!df.resource")

ALL = (float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32,
       uint64, bool_)
FLOATS = (float16, bfloat16, float32, float64)
INTS = (int8, int16, int32, int64, uint8, uint16, uint32, uint64)
NUMERIC = FLOATS + INTS

_BY_NAME = {d.name: d for d in ALL + COMPLEX + (string,)}
_BY_NAME.update(half=float16, double=float64, bool_=bool_, float=float32)  # TF: "float"
_BY_NP = {d.np: d for d in ALL + COMPLEX + (string,) if d is not bfloat16}
_BY_PY = {float: float32, int: int32, bool: bool_, complex: complex128}


def from_numpy(np_dtype) -> DType:
    """The DType of a NumPy dtype; raises TypeError for types flowjit does not carry."""
    d = _BY_NP.get(np_dtype)
    if d is None:
        np_dtype = np.dtype(np_dtype)
        d = string if np_dtype.kind in "SU" else _BY_NP.get(np_dtype)  # as TF's as_dtype
        if d is None and np_dtype.name == "bfloat16" and np_dtype == bfloat16.np:
            d = bfloat16
        if d is None:
            raise TypeError(f"Cannot convert NumPy dtype {np_dtype} to a flowjit "
                            f"DType; supported: {', '.join(x.name for x in ALL)}")
    return d


def as_dtype(type_value) -> DType:
    """TF's `as_dtype`: accepts a DType, a name, a NumPy dtype or scalar type, or a Python type."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str):
        d = _BY_NAME.get(type_value)
        if d is None:
            raise TypeError(f"Cannot convert '{type_value}' to a DType; known names: "
                            f"{', '.join(sorted(_BY_NAME))}")
        return d
    if isinstance(type_value, type) and type_value in _BY_PY:
        return _BY_PY[type_value]
    # np.dtype would read None as float64, and str and bytes as string types TF refuses
    if type_value is None or type_value is str or type_value is bytes:
        raise TypeError(f"Cannot convert {type_value!r} to a DType")
    try:
        return from_numpy(np.dtype(type_value))
    except (TypeError, ValueError):
        raise TypeError(f"Cannot convert {type_value!r} to a DType") from None


HALF_FLOATS = (float16, bfloat16)


def compute_dtype(dt: DType) -> DType:
    """The type arithmetic on `dt` runs in: float32 for the half floats (rounded back once at
    the end, as the kernels do), `dt` itself otherwise."""
    return float32 if dt in HALF_FLOATS else dt


_RUNTIME_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def runtime_name(dt: DType) -> str:
    """The name TF's runtime messages give `dt` (its C++ DataTypeString): `float` for
    float32, `double` for float64, `half` for float16, the Python name otherwise."""
    return _RUNTIME_NAMES.get(dt.name, dt.name)
