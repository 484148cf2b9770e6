"""TF's guarded and compound elementwise math, composed as TF composes them or as their
kernels define them: divide_no_nan, xlogy and relatives, log_sigmoid, is_inf, count_nonzero,
truncatediv/truncatemod; and multiply_no_nan, which runs an op of its own (TF's gradient of it
is not the composition's). The guards select before the risky op runs on a safe operand, so the
gradients have no NaN where the value is guarded (TF's gradients are 0 there too)."""
from __future__ import annotations

from ..eager.dispatch import apply, convert_pair, convert_to_tensor
from ..export import runs, tf_export
from . import array as A
from . import math as M
from . import reduce as R


def _guarded(x, y, unsafe):
    """(mask, y with 1 where `unsafe`): the mask selects TF's 0 result."""
    one = A.ones_like(y)
    return unsafe, M.where(unsafe, one, y)


@tf_export("math.divide_no_nan")
def divide_no_nan(x, y, name=None):
    """x / y, and 0 where y is 0 (even for x = 0 or inf)."""
    x, y = convert_pair(x, y)
    zero_y, safe_y = _guarded(x, y, M.equal(y, A.zeros_like(y)))
    q = M.truediv(x, safe_y)
    return M.where(zero_y, A.zeros_like(q), q)


@tf_export("math.reciprocal_no_nan")
def reciprocal_no_nan(x, name=None):
    """1 / x, and 0 where x is 0."""
    x = convert_to_tensor(x)
    return divide_no_nan(A.ones_like(x), x)


def _x_times(x, y, fn):
    """x * fn(y), and 0 where x is 0 (fn(y) may be inf or NaN there)."""
    x, y = convert_pair(x, y)
    zero_x = M.equal(x, A.zeros_like(x))
    zero_x, safe_y = _guarded(x, y, M.logical_and(zero_x, A.ones_like(y, dtype="bool")))
    p = M.multiply(x, fn(safe_y))
    return M.where(zero_x, A.zeros_like(p), p)


@tf_export("math.xlogy")
def xlogy(x, y, name=None):
    """x * log(y), and 0 where x is 0."""
    return _x_times(x, y, M.log)


@tf_export("math.xlog1py")
def xlog1py(x, y, name=None):
    """x * log1p(y), and 0 where x is 0."""
    return _x_times(x, y, M.log1p)


@tf_export("math.xdivy")
def xdivy(x, y, name=None):
    """x / y, and 0 where x is 0."""
    return _x_times(x, y, M.reciprocal)


@tf_export("math.log_sigmoid")
def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x), exact for large |x|."""
    return M.negative(M.softplus(M.negative(convert_to_tensor(x))))


@tf_export("math.is_inf")
def is_inf(x, name=None):
    """True where x is +inf or -inf."""
    x = convert_to_tensor(x)
    return M.logical_and(M.logical_not(M.is_finite(x)), M.logical_not(M.is_nan(x)))


@tf_export("math.rint")
def rint(x, name=None):
    """The nearest integer, ties to even (as `round`)."""
    return M.round(x)


@tf_export("math.count_nonzero")
def count_nonzero(input, axis=None, keepdims=None, dtype="int64", name=None):  # noqa: A002
    """The number of nonzero elements (non-empty strings) along `axis`."""
    x = convert_to_tensor(input)
    zero = {"string": "", "bool": False}.get(x.dtype.name, 0)
    zero = convert_to_tensor(zero, dtype=x.dtype)
    nonzero = M.cast(M.not_equal(x, zero), dtype)
    return R.reduce_sum(nonzero, axis=axis, keepdims=bool(keepdims))


@tf_export("truncatediv")
def truncatediv(x, y, name=None):
    """x / y rounded toward zero (integers; floats divide exactly). Integer division by zero
    raises InvalidArgumentError."""
    return M.divide_no_promote(x, y)


@tf_export("truncatemod")
def truncatemod(x, y, name=None):
    """The remainder of truncatediv, with the sign of x (C's fmod): floormod moved by y where
    their signs differ."""
    x, y = convert_pair(x, y)
    r = M.floormod(x, y)
    zero = A.zeros_like(r)
    moved = M.logical_and(M.not_equal(r, zero), M.not_equal(M.less(r, zero), M.less(x, zero)))
    return M.where(moved, M.subtract(r, y), r)


@tf_export("realdiv")
def realdiv(x, y, name=None):
    """x / y for real floats, without truediv's integer casts."""
    return M.divide_no_promote(x, y)


@tf_export("math.multiply_no_nan")
@runs("mul_no_nan")
def multiply_no_nan(x, y, name=None):
    """x * y, and 0 where y is 0 (even for x = inf or NaN)."""
    return apply("mul_no_nan", convert_pair(x, y))
