"""`tf.random.stateless_parameterized_truncated_normal`: normal samples of per-element mean
and standard deviation restricted to [minval, maxval], a deterministic function of the seed.

A sample inverts the normal CDF at a stateless uniform draw between the CDF's values at the
standardized bounds, in float64; an interval above 0 is mirrored below it first, where the
CDF keeps its precision in the tail. The values differ from TF's Philox-driven rejection
samplers (README "Differences from TF"); the distribution is the same. The gradient is TF's
implicit one (Figurnov et al.): 1 for the mean, the standardized sample for the deviation,
and the CDF-derived factors for the bounds, attached without changing the values.
"""
from __future__ import annotations

import math

import numpy as np

from ...ir import dtypes as D
from ...ir.errors import InvalidArgumentError
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from . import random as RND
from .program import get_static_value
from .special_math import ndtri

_OPNAME = "StatelessParameterizedTruncatedNormal"


def _ndtr(x):
    return 0.5 * M.erfc(-x / math.sqrt(2.0))


def _parameters(means, stddevs, minvals, maxvals):
    """The four parameters as tensors of the means' dtype, checked as TF's kernel checks
    them where their values are known."""
    mean = convert_to_tensor(means, dtype_hint=D.float32)
    params = [mean] + [convert_to_tensor(p, dtype=mean.dtype)
                       for p in (stddevs, minvals, maxvals)]
    known = [get_static_value(p) for p in params]
    if all(k is not None for k in known):
        _, std, lo, hi = np.broadcast_arrays(*[np.asarray(k, np.float64) for k in known])
        valid = (std > 0) & (lo < hi) & (np.isfinite(lo) | np.isfinite(hi))
        if not valid.all():
            raise InvalidArgumentError(None, _OPNAME, "Invalid parameters")
    return params


def _suffix_shape(shape, params):
    """TF's rule: `shape` ends with the parameters' broadcast shape (a dim of 1 there does
    not stretch)."""
    broadcast = list(np.broadcast_shapes(*[tuple(p.shape.as_list()) for p in params]))
    if len(broadcast) > len(shape) or broadcast != shape[len(shape) - len(broadcast):]:
        raise InvalidArgumentError(None, _OPNAME, "Shape passed in must end with broadcasted "
                                   "shape.")


@tf_export("random.stateless_parameterized_truncated_normal")
def stateless_parameterized_truncated_normal(shape, seed, means=0.0, stddevs=1.0,
                                             minvals=-2.0, maxvals=2.0, name=None):
    """Samples of `shape`, element i normal with mean means[i] and deviation stddevs[i]
    truncated to [minvals[i], maxvals[i]] (the parameters broadcast to a suffix of
    `shape`); a deterministic function of `seed` [2]."""
    params = _parameters(means, stddevs, minvals, maxvals)
    dims = [int(d) for d in np.asarray(get_static_value(convert_to_tensor(shape))).reshape(-1)]
    _suffix_shape(dims, params)
    mean, std, lo, hi = (A.broadcast_to(M.cast(A.stop_gradient(p), D.float64), dims)
                         for p in params)
    a, b = (lo - mean) / std, (hi - mean) / std
    mirror = M.greater(a, A.zeros_like(a))
    low, high = M.where(mirror, -b, a), M.where(mirror, -a, b)
    u = RND.stateless_uniform(dims, seed, dtype=D.float64)
    cdf_low, cdf_high = _ndtr(low), _ndtr(high)
    z = M.minimum(M.maximum(ndtri(cdf_low + u * (cdf_high - cdf_low)), low), high)
    z = A.stop_gradient(M.where(mirror, -z, z))
    sample = M.cast(mean + std * z, params[0].dtype)
    return sample + _implicit_gradient(params, sample, dims)


def _finite(t):
    return M.where(M.is_finite(t), t, A.zeros_like(t))


def _implicit_gradient(params, sample, dims):
    """Zero, whose gradient with respect to the parameters is TF's implicit one (computed,
    as TF's, from the sample in its own dtype)."""
    mean, std, lo, hi = params
    fixed = [A.stop_gradient(p) for p in params]
    z = (sample - fixed[0]) / fixed[1]
    a, b = (fixed[2] - fixed[0]) / fixed[1], (fixed[3] - fixed[0]) / fixed[1]
    cdf = (_ndtr(z) - _ndtr(a)) / (_ndtr(b) - _ndtr(a))
    info = np.finfo(z.dtype.np)
    cdf = M.minimum(M.maximum(cdf, float(info.tiny)), 1.0 - float(info.eps))
    d_max = M.exp(0.5 * (z * z - b * b) + M.log(cdf))
    d_min = M.exp(0.5 * (z * z - a * a) + M.log1p(-cdf))
    # each shift is 0 (a parameter less itself) times a factor that holds no gradient;
    # a factor TF's formula leaves NaN or inf (a CDF difference lost to rounding) counts 0
    # (an infinite bound's shift is 0 too: its factor is 0)
    shifts = [_finite(p - f) * A.stop_gradient(_finite(k))
              for p, f, k in zip(params, fixed, (A.ones_like(z), z, d_min, d_max))]
    return A.stop_gradient(A.zeros(dims, z.dtype)) + sum(shifts[1:], shifts[0])
