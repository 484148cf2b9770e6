"""Reductions, arg-reductions and scans.

`axis` of a reduction is a tuple of ints, or `None` for "every axis" (kept symbolic so a tensor
of unknown rank can still be reduced). reduce_logsumexp, reduce_variance and reduce_std are
compositions in the frontend; reduce_mean is primitive because its divisor (the number of
reduced elements) is a dynamic quantity once shapes are partly unknown.
"""
from __future__ import annotations

from .. import dtypes as D
from ..infer import NUMERIC, TT, check_dtype, reduce_shape
from ..registry import InferenceError, op
from ..shapes import format_shape

BOOL = (D.bool_,)
ARG_INPUTS = NUMERIC + BOOL
ARG_OUTPUTS = (D.int16, D.int32, D.int64)

# name -> allowed input dtypes; the result keeps the input dtype.
REDUCTIONS = {
    "reduce_sum": NUMERIC, "reduce_mean": NUMERIC, "reduce_prod": NUMERIC,
    "reduce_max": NUMERIC, "reduce_min": NUMERIC, "reduce_any": BOOL, "reduce_all": BOOL,
}
NOT_DIFFERENTIABLE = {"reduce_any", "reduce_all"}


def _reduce(allowed):
    def infer(types, attrs):
        t = types[0]
        check_dtype(t, allowed)
        axis, keepdims = attrs["axis"], attrs["keepdims"]
        if t.shape is None:
            # Only "all axes, no keepdims" pins the rank of an unknown-rank input.
            return TT(t.dtype, () if axis is None and not keepdims else None)
        return TT(t.dtype, reduce_shape(t.shape, axis, keepdims))
    return infer


for _n, _a in REDUCTIONS.items():
    op(_n, ("input",), attrs=(("axis", "ints", None), ("keepdims", "bool", False)),
       differentiable=_n not in NOT_DIFFERENTIABLE)(_reduce(_a))


def _arg_reduce(types, attrs):
    t = types[0]
    check_dtype(t, ARG_INPUTS)
    out = attrs["output_type"]
    if out not in ARG_OUTPUTS:
        raise InferenceError(f"output_type {out.name} is not supported; allowed: "
                             f"{', '.join(d.name for d in ARG_OUTPUTS)}")
    if t.shape is None:
        return TT(out, None)
    rank = len(t.shape)
    if rank == 0:
        raise InferenceError("Expected dimension in the range [0, 0) for a scalar input: a "
                             "scalar has no axis to reduce")
    axis = attrs["axis"]
    if not -rank <= axis < rank:
        raise InferenceError(f"Expected dimension in the range [{-rank}, {rank}), but got "
                             f"{axis}")
    axis %= rank
    if t.shape[axis] == 0:
        raise InferenceError(f"Reduction axis {axis} is empty in shape "
                             f"{format_shape(t.shape)}")
    return TT(out, t.shape[:axis] + t.shape[axis + 1:])


for _n in ("argmax", "argmin"):
    op(_n, ("input",), attrs=(("axis", "int", 0), ("output_type", "dtype", D.int64)),
       differentiable=False)(_arg_reduce)


def _scan(types, attrs):
    t = types[0]
    check_dtype(t, NUMERIC)
    if t.shape is not None:
        if not t.shape:
            raise InferenceError("a scan needs an axis, but the input is a scalar")
        rank, axis = len(t.shape), attrs["axis"]
        if not -rank <= axis < rank:
            raise InferenceError(f"Expected scan axis in the range [{-rank}, {rank}), but got "
                                 f"{axis}")
    return t


for _n in ("cumsum", "cumprod"):
    op(_n, ("x",), attrs=(("axis", "int", 0), ("exclusive", "bool", False),
                          ("reverse", "bool", False)))(_scan)
