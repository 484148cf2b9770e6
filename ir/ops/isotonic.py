"""`tf.nn.isotonic_regression`'s op: the non-increasing least-squares fit of each row (the
last axis), and each element's segment (the run of elements the fit pooled into one value,
numbered from 0 per row). TF's XLA has no kernel for it."""
from __future__ import annotations

from .. import dtypes as D
from ..registry import InferenceError, TT, op

OUTPUT_DTYPES = D.FLOATS
INPUT_DTYPES = D.FLOATS + (D.int8, D.int16, D.int32, D.int64)
# TF's kernels: each input dtype has one output dtype (a float keeps its own)
KERNEL_OUTPUT = {**{f: f for f in D.FLOATS}, D.int8: D.float32, D.int16: D.float32,
                 D.int32: D.float64, D.int64: D.float64}


@op("isotonic_regression", ("input",), attrs=(("output_dtype", "dtype", D.float32),))
def _isotonic_regression(types, attrs):
    x, out = types[0], D.as_dtype(attrs["output_dtype"])
    if x.dtype not in INPUT_DTYPES:
        raise InferenceError(f"Value for attr 'T' of {x.dtype.name} is not in the list of "
                             f"allowed values: bfloat16, half, float, double, int8, int16, "
                             f"int32, int64")
    if out not in OUTPUT_DTYPES:
        raise InferenceError(f"Value for attr 'output_dtype' of {out.name} is not in the list "
                             f"of allowed values: half, bfloat16, float, double")
    if out is not KERNEL_OUTPUT[x.dtype]:
        raise InferenceError(f"no kernel for input {x.dtype.name} with output_dtype "
                             f"{out.name}; {x.dtype.name} computes in "
                             f"{KERNEL_OUTPUT[x.dtype].name}", dtype_error=True)
    return TT(out, x.shape), TT(D.int32, x.shape)
