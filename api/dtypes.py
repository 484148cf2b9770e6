"""TF's `tf.dtypes`."""
from flowjit.ir.dtypes import (DType, as_dtype, bfloat16, complex64, complex128, double, float16,
                               float32, float64, half, int8, int16, int32, int64, string, uint8,
                               uint16, uint32, uint64)
from flowjit.ir.dtypes import bool_ as bool  # noqa: A004 - TF's name

from flowjit.frontend.export import install as _install
_install(globals(), "dtypes")
