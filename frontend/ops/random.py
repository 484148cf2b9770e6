"""TF-named API: random family (`tf.random.normal`, `tf.random.stateless_uniform`, ...).

Seeding follows TF 2: `set_seed(s)` fixes a global seed; each stateful op then gets the pair
(global seed, op seed), its op seed drawn from a generator restarted by `set_seed` when the
call gives none. An op seed without a global seed pairs with TF's default graph seed. With
neither, the kernels get (0, 0), which means "unseeded".
"""
from __future__ import annotations

import numbers
import random as _pyrandom

from ...ir import dtypes as D
from ...ir.errors import noted
from ...ir.shapes import TensorShape
from ...runtime.kernels import random as _kernels
from ..eager.dispatch import convert_to_tensor, op_error
from ..export import runs, tf_export
from ..eager.shape_args import apply_tensor_attrs, is_tensor_arg, tensor_arg
from ..eager.tensor import Tensor
from . import math as _math

_MAXINT32 = 2**31 - 1
_DEFAULT_GRAPH_SEED = 87654321

_FLOATS = (D.float16, D.bfloat16, D.float32, D.float64)
_UNIFORM_DTYPES = _FLOATS + (D.int32, D.int64)
_ALGS = ("auto_select", "philox", "threefry", 1, 2, 3, None)


class _SeedState:
    global_seed = None
    op_seeds = _pyrandom.Random()


@tf_export("random.set_seed")
def set_seed(seed):
    """Set the global random seed (None unsets it) and restart every stateful random stream,
    so the same sequence of random ops gives the same values again."""
    if seed is not None:
        if not isinstance(seed, numbers.Real):
            raise TypeError(f"set_seed: seed must be an int or None, got {seed!r}")
        seed = int(seed)
    _SeedState.global_seed = seed
    _SeedState.op_seeds = _pyrandom.Random(seed)
    _kernels.reset()


def get_global_seed():
    return _SeedState.global_seed


def get_seed(op_seed):
    """TF's `random_seed.get_seed`: the (seed, seed2) attribute pair of a stateful op."""
    if op_seed is not None and (isinstance(op_seed, (str, bytes)) or
                                not isinstance(op_seed, numbers.Real)):
        raise noted(TypeError(f"random seed must be an integer, got {op_seed!r}"))  # as TF
    g = _SeedState.global_seed
    if g is not None:
        if op_seed is None:
            op_seed = _SeedState.op_seeds.randint(0, _MAXINT32)
        seeds = g % _MAXINT32, int(op_seed) % _MAXINT32
    elif op_seed is not None:
        seeds = _DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32
    else:
        return 0, 0
    # (0, 0) means "unseeded" to the kernels, which a seeded call must not get.
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


# --- argument checks ----------------------------------------------------------------------
def _shape_attr(shape, opname):
    """(static shape, run-time operand or None) from a list/tuple/TensorShape or a 1-D integer
    tensor; a shape computed in the graph keeps None dims until run time."""
    if isinstance(shape, TensorShape):
        if not shape.is_fully_defined():
            raise ValueError(f"{opname}: Cannot convert a partially known TensorShape {shape} "
                             f"to a Tensor.")
        return tuple(shape.as_list()), None
    if is_tensor_arg(shape) and not (isinstance(shape, Tensor) and shape._value is not None):
        return tensor_arg(shape, opname, "shape", any_length=True)  # symbolic, or holding tensors
    if isinstance(shape, Tensor) or hasattr(shape, "_as_tensor"):
        t = convert_to_tensor(shape)
        if not t.dtype.is_integer:
            raise op_error(opname, f"shape must be a vector of {{int32,int64}}, got dtype "
                                   f"{t.dtype.name}", dtype_error=True)
        shape = t.numpy().tolist()
    if isinstance(shape, (numbers.Number, str)) or not hasattr(shape, "__iter__"):
        raise op_error(opname, "shape must be a vector of {int32,int64}, got shape []")
    dims = []
    for d in shape:
        if isinstance(d, Tensor):
            d = d.numpy() if d.dtype.is_integer and d.ndim == 0 else d
        if isinstance(d, (bool, float, str)) or not isinstance(d, numbers.Integral):
            # TF turns such a list into a non-integer (or ragged) tensor and refuses it
            raise op_error(opname, f"shape must be a vector of {{int32,int64}}, got "
                                   f"{list(shape)!r}")
        if not -2**63 <= d < 2**63:   # NumPy would wrap or fail after drawing
            raise ValueError(f"{opname}: Can't convert Python sequence with out-of-range "
                             f"integer to Tensor: shape {list(shape)!r}")
        dims.append(int(d))
    return tuple(dims), None


def _random(opname, inputs, shape, attrs):
    """Apply a random op whose `shape` is a `_shape_attr` result."""
    dims, dyn = shape
    return apply_tensor_attrs(opname, inputs, {"shape": dims, **attrs}, {"shape": dyn})


def _dtype(dtype, allowed, opname):
    dt = D.as_dtype(dtype)
    if dt not in allowed:
        raise ValueError(f"{opname}: Argument `dtype` got invalid value {dt!r}. Accepted dtypes "
                         f"are ({', '.join(repr(d) for d in allowed)}).")
    return dt


def _float_dtype(dtype, opname):
    dt = D.as_dtype(dtype)
    if dt not in _FLOATS:
        raise TypeError(f"{opname}: dtype must be a floating type "
                        f"({', '.join(d.name for d in _FLOATS)}), got {dt.name}")
    return dt


def _check_alg(alg, opname):
    key = alg.lower() if isinstance(alg, str) else alg
    if key not in _ALGS:
        raise ValueError(f"{opname}: Argument `alg` got unsupported value {alg}. Supported "
                         f"values are philox, threefry and auto_select (flowjit always uses "
                         f"Threefry).")


def _is_py(v, value):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == value


def _scale_shift(rnd, scale, shift, dt):
    """rnd * scale + shift, skipping the identity cases TF's results would not show."""
    if not _is_py(scale, 1):
        rnd = _math.multiply(rnd, convert_to_tensor(scale, dtype=dt))
    if not _is_py(shift, 0):
        rnd = _math.add(rnd, convert_to_tensor(shift, dtype=dt))
    return rnd


def _bounds(minval, maxval, dt):
    return convert_to_tensor(minval, dtype=dt), convert_to_tensor(maxval, dtype=dt)


# --- stateful -----------------------------------------------------------------------------
def _stateful_float(opname, api, shape, scale, shift, dtype, seed):
    dt = _float_dtype(dtype, api)
    shape = _shape_attr(shape, api)
    s1, s2 = get_seed(seed)
    rnd = _random(opname, (), shape, {"dtype": dt, "seed": s1, "seed2": s2})
    return _scale_shift(rnd, scale, shift, dt)


@tf_export("random.normal")
@runs("random_standard_normal")
def normal(shape, mean=0.0, stddev=1.0, dtype=D.float32, seed=None, name=None):
    """Normal samples of the given mean and standard deviation."""
    return _stateful_float("random_standard_normal", "random.normal", shape, stddev, mean,
                           dtype, seed)


@tf_export("random.truncated_normal")
@runs("random_truncated_normal")
def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=D.float32, seed=None, name=None):
    """Normal samples, all within two standard deviations of the mean."""
    return _stateful_float("random_truncated_normal", "random.truncated_normal", shape, stddev,
                           mean, dtype, seed)


@tf_export("random.uniform")
@runs("random_uniform", "random_uniform_int")
def uniform(shape, minval=0, maxval=None, dtype=D.float32, seed=None, name=None):
    """Uniform samples in [minval, maxval); integer dtypes need `maxval`."""
    dt = _dtype(dtype, _UNIFORM_DTYPES, "random.uniform")
    if dt.is_integer and maxval is None:
        raise ValueError(f"random.uniform: Must specify maxval for integer dtype {dt!r}")
    shape = _shape_attr(shape, "random.uniform")
    if dt.is_integer:
        lo, hi = _bounds(minval, maxval, dt)
        s1, s2 = get_seed(seed)
        return _random("random_uniform_int", (lo, hi), shape, {"seed": s1, "seed2": s2})
    if maxval is None:
        maxval = 1
    s1, s2 = get_seed(seed)
    rnd = _random("random_uniform", (), shape, {"dtype": dt, "seed": s1, "seed2": s2})
    return _uniform_float(rnd, minval, maxval, dt)


def _uniform_float(rnd, minval, maxval, dt):
    if _is_py(minval, 0):
        return _scale_shift(rnd, maxval, 0, dt)
    lo, hi = _bounds(minval, maxval, dt)
    return _math.add(_math.multiply(rnd, _math.subtract(hi, lo)), lo)


# --- stateless ----------------------------------------------------------------------------
def _stateless_float(opname, api, shape, seed, scale, shift, dtype, alg):
    _check_alg(alg, api)
    dt = _float_dtype(dtype, api)
    shape = _shape_attr(shape, api)
    rnd = _random(opname, (convert_to_tensor(seed),), shape, {"dtype": dt})
    return _scale_shift(rnd, scale, shift, dt)


@tf_export("random.stateless_normal")
@runs("stateless_random_normal")
def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=D.float32, name=None,
                     alg="auto_select"):
    """Normal samples, a deterministic function of `seed` (an int pair, shape [2])."""
    return _stateless_float("stateless_random_normal", "random.stateless_normal", shape, seed,
                            stddev, mean, dtype, alg)


@tf_export("random.stateless_truncated_normal")
@runs("stateless_random_truncated_normal")
def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=D.float32, name=None,
                               alg="auto_select"):
    """Normal samples within two standard deviations, a deterministic function of `seed`."""
    return _stateless_float("stateless_random_truncated_normal",
                            "random.stateless_truncated_normal", shape, seed, stddev, mean,
                            dtype, alg)


@tf_export("random.stateless_uniform")
@runs("stateless_random_uniform", "stateless_random_uniform_int", "stateless_random_uniform_full_int")
def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=D.float32, name=None,
                      alg="auto_select"):
    """Uniform samples in [minval, maxval), a deterministic function of `seed`. For integer
    dtypes pass both bounds, or neither for the dtype's full range."""
    api = "random.stateless_uniform"
    _check_alg(alg, api)
    dt = _dtype(dtype, _UNIFORM_DTYPES, api)
    shape = _shape_attr(shape, api)
    seed = convert_to_tensor(seed)
    if dt.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"{api}: For integer `dtype` argument {dt}, argument `minval` and "
                             f"`maxval` must be both None or not None. Got `minval`={minval} "
                             f"and `maxval`={maxval}.")
        if minval is None:
            return _random("stateless_random_uniform_full_int", (seed,), shape, {"dtype": dt})
        lo, hi = _bounds(minval, maxval, dt)
        return _random("stateless_random_uniform_int", (seed, lo, hi), shape, {})
    if maxval is None:
        maxval = 1
    rnd = _random("stateless_random_uniform", (seed,), shape, {"dtype": dt})
    return _uniform_float(rnd, minval, maxval, dt)
