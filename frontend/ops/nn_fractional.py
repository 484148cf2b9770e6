"""`tf.nn.fractional_max_pool` and `tf.nn.fractional_avg_pool` (Graham's fractional pooling)
composed of gathers over cell boundaries drawn as TF's kernel draws them.

Each spatial dim of size n pools to floor(n / ratio) cells. Where the ratio divides n the
cells are regular and the results are TF's; otherwise TF's kernel draws the boundaries:
`pseudo_random` from one uniform u (boundary i is ceil(alpha * (i + u)) - 1, u below TF's
bound that keeps each cell at most floor(alpha) + 1 long), else a random order of the
floor(alpha) and floor(alpha) + 1 long cells. flowjit draws them with its own generator, so
such boundaries differ from TF's (README, Differences from TF); a non-zero `seed` repeats
them, as TF's deterministic kernel does. A cell covers its boundaries' half-open range, and
its next boundary too when `overlapping`.

Both pools gather each cell's window (a static size, the longest cell, masked), so they run
in every mode; the max routes its gradient to the first maximum in row-major order, as TF's
FractionalMaxPoolGrad does, and the average spreads it evenly over the cell."""
from __future__ import annotations

import numbers

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ..eager.dispatch import convert_to_tensor, op_error
from ..export import tf_export
from . import array as A
from . import math as M
from . import reduce as R
from .random import get_seed, stateless_uniform, uniform
from .safe_math import truncatediv

_TYPES = ("float32", "float64", "int32", "int64")


def _max_ratios(pooling_ratio):
    """fractional_max_pool's Python checks of `pooling_ratio`, then its four ratios."""
    if isinstance(pooling_ratio, (list, tuple)):
        if pooling_ratio[0] != 1.0 or pooling_ratio[-1] != 1.0:
            raise ValueError(f"`pooling_ratio` should have first and last elements with value "
                             f"1.0. Received: pooling_ratio={pooling_ratio}")
        if any(r < 1.0 for r in pooling_ratio):
            raise ValueError(f"`pooling_ratio` elements should be >= 1.0. Received: "
                             f"pooling_ratio={pooling_ratio}")
        if len(pooling_ratio) not in (1, 2, 4):
            raise ValueError(f"pooling_ratio should be of length 1, 2 or 4. Received: "
                             f"pooling_ratio={pooling_ratio} of length {len(pooling_ratio)}")
        ratios = list(pooling_ratio)
    elif isinstance(pooling_ratio, numbers.Real):
        if pooling_ratio < 1.0:
            raise ValueError(f"`pooling_ratio` should be >= 1.0. Received: "
                             f"pooling_ratio={pooling_ratio}")
        ratios = [pooling_ratio]
    else:
        raise ValueError(f"`pooling_ratio` should be an int or a list of ints. Received: "
                         f"pooling_ratio={pooling_ratio}")
    if len(ratios) == 4:
        return [float(r) for r in ratios]
    rows, cols = ratios * 2 if len(ratios) == 1 else ratios
    return [1.0, float(rows), float(cols), 1.0]


def _avg_ratios(pooling_ratio, opname):
    """fractional_avg_pool's op checks: four ratios, at least 1, 1 on batch and channels."""
    if not isinstance(pooling_ratio, (list, tuple)):
        raise TypeError(f"Expected list for 'pooling_ratio' argument to "
                        f"'fractional_avg_pool' Op, not {pooling_ratio}.")
    if len(pooling_ratio) < 4:
        raise op_error(opname, f"Length for attr 'pooling_ratio' of {len(pooling_ratio)} "
                               f"must be at least minimum 4")
    for r in pooling_ratio:
        if r < 1:
            raise op_error(opname, f"pooling_ratio cannot be smaller than 1, got: {r:g}")
    if len(pooling_ratio) != 4 or pooling_ratio[0] != 1 or pooling_ratio[3] != 1:
        raise errors.UnimplementedError(
            None, opname, f"Fractional average pooling is not yet supported on the batch nor "
                          f"channel dimension. [Op:{opname}]")
    return [float(r) for r in pooling_ratio]


def _sizes(x, ratios, opname):
    """The input's [batch, rows, cols, channels] (rows and cols must be known) and the
    pooled rows and cols, after the kernel's checks."""
    if x.dtype.name not in _TYPES:
        raise op_error(opname, f"Value for attr 'T' of {D.runtime_name(x.dtype)} is not in "
                               f"the list of allowed values: float, double, int32, int64",
                       dtype_error=True)
    if x.shape.rank != 4:
        raise op_error(opname, "tensor_in must be 4-dimensional")
    dims = x.shape.as_list()
    if dims[1] is None or dims[2] is None:
        raise NotImplementedError(f"{opname}: flowjit needs the input's rows and cols known "
                                  f"while tracing, got {x.shape}")
    for i, (n, r) in enumerate(zip(dims, ratios)):
        if n is not None and n < r:
            raise op_error(opname, f"Pooling ratio is higher than input dimension size for "
                                   f"dimension {i}. Input dim size: {n} pooling ratio: {r:g}")
    return dims[1], dims[2], int(np.floor(dims[1] / ratios[1])), \
        int(np.floor(dims[2] / ratios[2]))


def _boundaries(n_in, n_out, pseudo_random, draws):
    """[n_out + 1] int64 cell boundaries of a dim, from `draws` (n_out uniforms)."""
    if n_in % n_out == 0:
        return A.constant(np.arange(n_out + 1, dtype=np.int64) * (n_in // n_out))
    alpha, k = n_in / n_out, n_in // n_out
    if pseudo_random:
        bound = min((k + 2) / alpha - 1, (n_in + 1 - k) / alpha - (n_out - 1))
        u = M.cast(draws[0], D.float64) * bound
        inner = M.ceil(alpha * (A.range(1, n_out, dtype=D.float64) + u)) - 1
        middle = M.cast(inner, D.int64)
    else:
        lengths = A.constant(np.array([k + 1] * (n_in % n_out) + [k] * (n_out - n_in % n_out),
                                      np.int64))
        middle = R.cumsum(A.gather(lengths, A.argsort(draws)))[:-1]
    return A.concat([A.zeros([1], D.int64), middle, A.fill([1], np.int64(n_in))], 0)


def _cells(bounds, n_in, n_out, overlapping):
    """[n_out, width] int32 indices of each cell's members (clipped) and whether each is one:
    width is the longest cell a draw can give."""
    width = n_in // n_out + 2 + int(overlapping)
    starts = M.cast(bounds[:-1], D.int32)
    ends = M.cast(bounds[1:], D.int32) + int(overlapping)
    at = A.expand_dims(starts, 1) + A.range(width)
    member = M.less(at, M.minimum(A.expand_dims(ends, 1), n_in))
    return M.minimum(at, n_in - 1), member


def _windows(x, rows, cols):
    """[batch, rows_out, cols_out, cell rows * cell cols, channels] of each cell's values."""
    picked = A.gather(A.gather(x, rows, axis=1), cols, axis=3)   # [b, ro, kr, co, kc, c]
    picked = A.transpose(picked, [0, 1, 3, 2, 4, 5])
    shape = A.shape(picked)
    return A.reshape(picked, A.concat([shape[:3], [-1], shape[5:]], 0))


def _pool(value, ratios, pseudo_random, overlapping, seed, opname, combine):
    x = convert_to_tensor(value)
    n_rows, n_cols, out_rows, out_cols = _sizes(x, ratios, opname)
    n_draws = out_rows + out_cols
    if n_rows % out_rows == 0 and n_cols % out_cols == 0:
        draws = A.zeros([n_draws])          # regular cells: nothing to draw
    elif seed:
        draws = stateless_uniform([n_draws], seed=list(get_seed(seed)))
    else:
        draws = uniform([n_draws])
    row_bounds = _boundaries(n_rows, out_rows, pseudo_random, draws[:out_rows])
    col_bounds = _boundaries(n_cols, out_cols, pseudo_random, draws[out_rows:])
    rows, row_member = _cells(row_bounds, n_rows, out_rows, overlapping)
    cols, col_member = _cells(col_bounds, n_cols, out_cols, overlapping)
    member = M.logical_and(A.expand_dims(A.expand_dims(row_member, 1), 3),
                           A.expand_dims(A.expand_dims(col_member, 0), 2))
    member = A.reshape(member, [out_rows, out_cols, -1, 1])      # [ro, co, kr * kc, 1]
    return combine(_windows(x, rows, cols), member), row_bounds, col_bounds


def _first_max(windows, member):
    """Each cell's largest member, picked at the first one in row-major order, so the
    gradient reaches that one alone."""
    lowest = -np.inf if windows.dtype.is_floating else windows.dtype.min
    masked = M.where(A.broadcast_to(member, A.shape(windows)), windows,
                     A.fill([], np.array(lowest, windows.dtype.np)))
    position = A.reshape(A.range(windows.shape[3], dtype=D.int64), [-1, 1])
    first = M.equal(position, A.expand_dims(R.argmax(masked, axis=3), 3))
    return R.reduce_sum(M.where(first, masked, A.zeros_like(masked)), axis=3)


def _mean(windows, member):
    """Each cell's mean (integers divided towards zero, as TF's kernel divides)."""
    member = A.broadcast_to(member, A.shape(windows))
    total = R.reduce_sum(M.where(member, windows, A.zeros_like(windows)), axis=3)
    count = R.reduce_sum(M.cast(member, windows.dtype), axis=3)
    return truncatediv(total, count) if windows.dtype.is_integer else total / count


@tf_export("nn.fractional_max_pool")
def fractional_max_pool(value, pooling_ratio, pseudo_random=False, overlapping=False,
                        seed=0, name=None):
    """(output, row_pooling_sequence, col_pooling_sequence): the largest value of each cell
    of an NHWC `value` cut into floor(size / ratio) rows and cols of cells, and the cells'
    boundaries (int64)."""
    ratios = _max_ratios(pooling_ratio)
    return _pool(value, ratios, pseudo_random, overlapping, seed, "FractionalMaxPool",
                 _first_max)


@tf_export("nn.fractional_avg_pool")
def fractional_avg_pool(value, pooling_ratio, pseudo_random=False, overlapping=False,
                        seed=0, name=None):
    """(output, row_pooling_sequence, col_pooling_sequence) as fractional_max_pool, with
    each cell's mean; `pooling_ratio` is four ratios, 1 on the batch and channels."""
    ratios = _avg_ratios(pooling_ratio, "FractionalAvgPool")
    return _pool(value, ratios, pseudo_random, overlapping, seed, "FractionalAvgPool", _mean)
