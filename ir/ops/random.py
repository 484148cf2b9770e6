"""Op declarations: random family.

Stateful ops (`random_*`) take TF's `seed`/`seed2` attributes and keep their stream position in
the kernel layer. Stateless ops (`stateless_random_*`) take the seed as an int32/int64 tensor of
shape [2] and are pure functions of (seed, shape, dtype). Float ops produce the standard
distribution only ([0, 1) uniform, N(0, 1), N(0, 1) truncated to [-2, 2]); the API scales and
shifts with ordinary math ops, as TF does. `shape` may be computed in the graph (a
`tensor_attrs`; None dims stay unknown until run time).
"""
from __future__ import annotations

from .. import dtypes as D
from ..infer import FLOATS, INDEX, TT, check_dtype
from ..registry import InferenceError, op

_SEEDS = (("seed", "int", 0), ("seed2", "int", 0))


def _static_shape(shape):
    """The `shape` attribute as an output shape; dims must be non-negative (None = unknown)."""
    if shape is None:
        return None
    for d in shape:
        if d is not None and d < 0:
            raise InferenceError(f"Dimension {d} must be >= 0")
    return tuple(shape)


def _float_result(types, attrs):
    dt = attrs["dtype"]
    if dt not in FLOATS:
        raise InferenceError(f"dtype {dt.name} is not supported; allowed: "
                             f"{', '.join(d.name for d in FLOATS)}")
    return TT(dt, _static_shape(attrs["shape"]))


def _check_seed(t: TT):
    check_dtype(t, INDEX, "seed")
    if t.shape is not None and (len(t.shape) != 1 or t.shape[0] not in (2, None)):
        raise InferenceError(f"seed must have shape [2], not "
                             f"[{','.join('?' if d is None else str(d) for d in t.shape)}]")


def _check_bounds(lo: TT, hi: TT):
    """Integer ops take scalar bounds of one integer dtype, which is the result dtype."""
    check_dtype(lo, INDEX, "minval")
    if hi.dtype is not lo.dtype:
        raise InferenceError(f"maxval has dtype {hi.dtype.name} but minval has dtype "
                             f"{lo.dtype.name}", dtype_error=True)
    for name, t in (("minval", lo), ("maxval", hi)):
        if t.shape is not None and len(t.shape) != 0:
            raise InferenceError(f"{name} must be 0-D, got shape "
                                 f"[{','.join('?' if d is None else str(d) for d in t.shape)}]")
    return lo.dtype


def _declare_float(name, inputs, attr_defs, doc, **kw):
    def infer(types, attrs):
        if inputs:
            _check_seed(types[0])
        return _float_result(types, attrs)
    infer.__doc__ = doc
    op(name, inputs, attr_defs, differentiable=False, tensor_attrs=("shape",), **kw)(infer)


# --- stateful ------------------------------------------------------------------------------
_FLOAT_DOCS = {"random_uniform": "Uniform floats in [0, 1).",
               "random_standard_normal": "Standard normal floats.",
               "random_truncated_normal": "Standard normal floats within [-2, 2]."}
for _name, _doc in _FLOAT_DOCS.items():
    _declare_float(_name, (), (("shape", "shape"), ("dtype", "dtype", D.float32)) + _SEEDS,
                   _doc, stateful=True)


@op("random_uniform_int", ("minval", "maxval"), (("shape", "shape"),) + _SEEDS,
    stateful=True, differentiable=False, tensor_attrs=("shape",))
def _random_uniform_int(types, attrs):
    """Integers in [minval, maxval) (scalar bounds; the result has their dtype)."""
    return TT(_check_bounds(*types), _static_shape(attrs["shape"]))


# --- stateless -----------------------------------------------------------------------------
for _name, _doc in _FLOAT_DOCS.items():
    _declare_float("stateless_" + _name.replace("standard_", ""), ("seed",),
                   (("shape", "shape"), ("dtype", "dtype", D.float32)),
                   _doc[:-1] + ", a function of the seed.")


@op("stateless_random_uniform_int", ("seed", "minval", "maxval"), (("shape", "shape"),),
    differentiable=False, tensor_attrs=("shape",))
def _stateless_uniform_int(types, attrs):
    """Integers in [minval, maxval), a function of the seed."""
    _check_seed(types[0])
    return TT(_check_bounds(types[1], types[2]), _static_shape(attrs["shape"]))


@op("stateless_random_uniform_full_int", ("seed",),
    (("shape", "shape"), ("dtype", "dtype", D.int32)), differentiable=False,
    tensor_attrs=("shape",))
def _stateless_uniform_full_int(types, attrs):
    """Integers over the dtype's whole range, a function of the seed."""
    _check_seed(types[0])
    dt = attrs["dtype"]
    if dt not in INDEX:
        raise InferenceError(f"dtype {dt.name} is not supported; allowed: int32, int64")
    return TT(dt, _static_shape(attrs["shape"]))
