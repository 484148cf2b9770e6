"""`tf.random`'s samplers built from flowjit's uniform draws: categorical (Gumbel-max),
shuffle (sorting random keys), gamma (Marsaglia-Tsang), poisson (exponential waiting times
below rate 10, Hormann's PTRS above), binomial (geometric waiting times below mean 10,
Hormann's BTRS above), seed `split`/`fold_in`.

Each sampler takes one uniform draw of shape [k, *result] (stateless: from the seed;
stateful: one `random.uniform` op with the caller's seed) and computes the sample from its k
planes, so the same composite runs eagerly, in the executor and under XLA. The rejection
samplers evaluate a fixed number of candidates and keep the first accepted one: gamma's
acceptance is >= 95% per candidate, PTRS's and BTRS's >= 88%, so with 8 candidates an element finds
none with probability below 1e-7 (it then keeps the first candidate). The values differ from
TF's (TF draws from Philox streams, flowjit from Threefry; README "Differences from TF").
"""
from __future__ import annotations

import math

import numpy as np

from ...ir import dtypes as D
from ..eager.dispatch import convert_to_tensor, op_error
from ..export import tf_export
from . import array as A
from . import math as M
from . import random as RND
from . import reduce as R

_CANDIDATES = 8
_WAITING_TIMES = 48       # P(Poisson(10) >= 48) < 1e-16
_PTRS_FROM = 10.0         # TF's switch from inversion to PTRS


def _stateless_source(seed):
    seed = convert_to_tensor(seed)
    return lambda shape, dt: RND.stateless_uniform(shape, seed, dtype=dt)


def _stateful_source(seed):
    return lambda shape, dt: RND.uniform(shape, dtype=dt, seed=seed)


def _open_unit(u):
    """u in [0, 1) moved to (0, 1]: logs stay finite."""
    return 1 - u


def _static_dims(shape, api):
    if hasattr(shape, "as_list"):
        shape = shape.as_list()
    if hasattr(shape, "numpy"):
        shape = shape.numpy().tolist()
    try:
        return [int(d) for d in shape]
    except TypeError:
        raise NotImplementedError(f"{api}: needs a shape known while tracing") from None


# --- seeds ---------------------------------------------------------------------------------
@tf_export("random.split")
def split(seed, num=2, alg="auto_select"):
    """`num` new seeds ([num, 2], the seed's dtype) drawn from `seed`."""
    seed = convert_to_tensor(seed)
    return RND.stateless_uniform([num, 2], seed, dtype=seed.dtype, minval=None, maxval=None,
                                 alg=alg)


@tf_export("random.fold_in")
def fold_in(seed, data, alg="auto_select"):
    """A new seed from `seed` and an integer `data`: [one draw of seed, data]."""
    data = convert_to_tensor(data)
    first = RND.stateless_uniform([], seed, dtype=data.dtype, minval=None, maxval=None, alg=alg)
    return A.stack([first, data])


# --- categorical ---------------------------------------------------------------------------
def _categorical(logits, num_samples, dtype, source, api):
    logits = convert_to_tensor(logits)
    if logits.shape.rank is not None and logits.shape.rank != 2:
        dims = ",".join(str(d) for d in logits.shape.as_list())
        raise op_error(api, f"logits should be a matrix, got shape [{dims}]")
    dtype = D.int64 if dtype is None else D.as_dtype(dtype)
    if dtype not in (D.int32, D.int64):
        raise ValueError(f"{api}: output dtype must be int32 or int64, got {dtype.name}")
    wide = D.float64 if logits.dtype is D.float64 else D.float32
    batch, classes = _static_dims(logits.shape, api)
    u = source([batch, int(num_samples), classes], wide)
    gumbel = -M.log(-M.log(_open_unit(u) * (1 - 2 ** -24) + 2 ** -25))
    noisy = A.expand_dims(M.cast(logits, wide), 1) + gumbel
    return R.argmax(noisy, axis=-1, output_type=dtype)


@tf_export("random.stateless_categorical")
def stateless_categorical(logits, num_samples, seed, dtype=D.int64, name=None):
    """[batch, num_samples] class indices drawn from the rows of `logits` (unnormalized log
    probabilities), a deterministic function of `seed`."""
    return _categorical(logits, num_samples, dtype, _stateless_source(seed),
                        "random.stateless_categorical")


@tf_export("random.categorical")
def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """[batch, num_samples] class indices drawn from the rows of `logits`."""
    return _categorical(logits, num_samples, dtype, _stateful_source(seed), "random.categorical")


@tf_export("random.shuffle")
def shuffle(value, seed=None, name=None):
    """`value` with its first dimension randomly permuted (no gradient, as TF)."""
    value = convert_to_tensor(value)
    if value.shape.rank == 0:
        return value
    keys = RND.uniform(A.shape(value)[:1], dtype=D.float32, seed=seed)
    return A.stop_gradient(A.gather(value, A.argsort(keys)))


# --- gamma ---------------------------------------------------------------------------------
def _first_accepted(accept, candidates):
    """Per element, the first candidate (axis 0) whose `accept` holds (else the first)."""
    n = _CANDIDATES
    order = A.reshape(A.range(n, 0, -1), [n] + [1] * (accept.shape.rank - 1))
    score = M.where(accept, order + A.zeros_like(M.cast(accept, D.int32)), 0)
    pick = A.one_hot(R.argmax(score, axis=0), n, axis=0, dtype=candidates.dtype)
    return R.reduce_sum(pick * candidates, axis=0)


def _normals(u_a, u_b):
    return M.sqrt(-2 * M.log(_open_unit(u_a))) * M.cos((2 * math.pi) * u_b)


def _gamma_standard(alpha, shape, source, wide):
    """Gamma(alpha, 1) samples of `shape` (alpha broadcast to it), computed in `wide`."""
    k = _CANDIDATES
    u = source([3 * k + 1] + shape, wide)
    alpha = A.broadcast_to(M.cast(alpha, wide), shape)
    small = M.less(alpha, 1)
    boosted = M.where(small, alpha + 1, alpha)      # Gamma(a) = Gamma(a + 1) * U^(1/a)
    d = boosted - 1 / 3
    c = M.rsqrt(9 * d)
    z = _normals(u[:k], u[k:2 * k])
    v = (1 + c * z) ** 3
    positive = M.greater(v, 0)
    log_v = M.log(M.where(positive, v, A.ones_like(v)))
    accept = M.logical_and(positive, M.less(M.log(_open_unit(u[2 * k:3 * k])),
                                            0.5 * z * z + d - d * v + d * log_v))
    x = _first_accepted(accept, d * M.maximum(v, 0))
    boost = M.where(small, M.pow(_open_unit(u[3 * k]), 1 / alpha), A.ones_like(alpha))
    return x * boost


def _gamma(shape, alpha, beta, dtype, source, api, append):
    dt = RND._float_dtype(dtype, api)
    wide = D.float64 if dt is D.float64 else D.float32
    alpha = convert_to_tensor(alpha, dtype=dt)
    beta = None if beta is None else convert_to_tensor(beta, dtype=dt)
    params = alpha.shape.as_list() if beta is None else \
        list(np.broadcast_shapes(tuple(alpha.shape.as_list()), tuple(beta.shape.as_list())))
    shape = _result_shape(shape, params, api, append)
    x = _gamma_standard(alpha, shape, source, wide)
    if beta is not None:
        x = x / A.broadcast_to(M.cast(beta, wide), shape)
    tiny = float(np.finfo(dt.np).tiny)
    return M.cast(M.maximum(x, tiny), dt)


@tf_export("random.stateless_gamma")
def stateless_gamma(shape, seed, alpha, beta=None, dtype=D.float32, name=None):
    """Gamma(alpha, rate beta) samples of `shape`, which must end with alpha's (and beta's)
    broadcast shape; a deterministic function of `seed`. Differentiable in alpha and beta
    along the sampling path (see README)."""
    return _gamma(shape, alpha, beta, dtype, _stateless_source(seed), "random.stateless_gamma",
                  append=False)


@tf_export("random.gamma")
def gamma(shape, alpha, beta=None, dtype=D.float32, seed=None, name=None):
    """Gamma(alpha, rate beta) samples of shape `shape + broadcast(alpha, beta).shape`."""
    return _gamma(shape, alpha, beta, dtype, _stateful_source(seed), "random.gamma",
                  append=True)


# --- poisson -------------------------------------------------------------------------------
def _log_factorial(k):
    """log(k!) for k >= 0: Stirling's series at k + 7, shifted back by the recurrence."""
    x = k + 7
    shift = M.log((k + 1) * (k + 2) * (k + 3) * (k + 4) * (k + 5) * (k + 6) * (k + 7))
    series = (x + 0.5) * M.log(x) - x + 0.5 * math.log(2 * math.pi) + \
        1 / (12 * x) - 1 / (360 * x ** 3) + 1 / (1260 * x ** 5)
    return series - shift


def _poisson_standard(lam, shape, source, wide):
    u = source([_WAITING_TIMES] + shape, wide)
    lam = A.broadcast_to(M.cast(lam, wide), shape)
    # rate < 10: the number of exponential waiting times that fit in lam
    arrivals = R.cumsum(-M.log(_open_unit(u)), axis=0)
    counted = R.reduce_sum(M.cast(M.less_equal(arrivals, lam), wide), axis=0)
    # rate >= 10: PTRS (Hormann 1993), candidates from pairs of the same uniforms
    k_ = _CANDIDATES
    big = M.maximum(lam, _PTRS_FROM)
    log_lam = M.log(big)
    b = 0.931 + 2.53 * M.sqrt(big)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2)
    uu = u[:k_] - 0.5
    v = _open_unit(u[k_:2 * k_])
    us = 0.5 - M.abs(uu)
    k = M.floor((2 * a / us + b) * uu + big + 0.43)
    quick = M.logical_and(M.greater_equal(us, 0.07), M.less_equal(v, vr))
    k_safe = M.maximum(k, 0)
    full = M.less_equal(M.log(v) + M.log(inv_alpha) - M.log(a / (us * us) + b),
                        -big + k_safe * log_lam - _log_factorial(k_safe))
    reject = M.logical_or(M.less(k, 0), M.logical_and(M.less(us, 0.013), M.greater(v, us)))
    accept = M.logical_or(quick, M.logical_and(M.logical_not(reject), full))
    drawn = _first_accepted(accept, k_safe)
    return M.where(M.less(lam, _PTRS_FROM), counted, drawn)


_COUNT_DTYPES = (D.float16, D.float32, D.float64, D.int32, D.int64)


def _count_dtype(dtype, api):
    dt = D.as_dtype(dtype)
    if dt not in _COUNT_DTYPES:
        raise TypeError(f"{api}: dtype must be one of "
                        f"{', '.join(d.name for d in _COUNT_DTYPES)}, got {dt.name}")
    return dt


def _result_shape(shape, params, api, append):
    """TF's result shape: `shape + params` for the stateful ops; the stateless ones take the
    full shape, which must end with the parameters' broadcast shape."""
    shape = _static_dims(shape, api)
    if append:
        return shape + params
    if shape[len(shape) - len(params):] != params:
        raise op_error(api, "Shape passed in must end with broadcasted shape.")
    return shape


def _poisson(shape, lam, dtype, source, api, append):
    dt = _count_dtype(dtype, api)
    lam = convert_to_tensor(lam, dtype_hint=D.float32)
    wide = D.float64 if lam.dtype is D.float64 else D.float32
    shape = _result_shape(shape, lam.shape.as_list(), api, append)
    return M.cast(_poisson_standard(lam, shape, source, wide), dt)


@tf_export("random.stateless_poisson")
def stateless_poisson(shape, seed, lam, dtype=D.int32, name=None):
    """Poisson(lam) samples of `shape`, which must end with lam's shape; a deterministic
    function of `seed`."""
    return _poisson(shape, lam, dtype, _stateless_source(seed), "random.stateless_poisson",
                    append=False)


@tf_export("random.poisson")
def poisson(shape, lam, dtype=D.float32, seed=None, name=None):
    """Poisson(lam) samples of shape `shape + lam.shape`."""
    return _poisson(shape, lam, dtype, _stateful_source(seed), "random.poisson", append=True)


# --- binomial ------------------------------------------------------------------------------
_BTRS_FROM = 10.0         # TF's switch from inversion to BTRS (on n * min(p, 1 - p))


def _binomial_standard(n, p, shape, source, wide):
    """Binomial(n, p) samples of `shape`, drawn for min(p, 1 - p) and mirrored."""
    u = source([_WAITING_TIMES] + shape, wide)
    n = A.broadcast_to(M.cast(n, wide), shape)
    p = A.broadcast_to(M.cast(p, wide), shape)
    q = M.minimum(p, 1 - p)
    # mean < 10: successes are the geometric gaps between them that fit in n trials
    log_miss = M.log1p(-q)
    gaps = M.floor(M.log(_open_unit(u)) / M.where(M.less(log_miss, 0), log_miss, -1.0)) + 1
    gaps = M.where(M.greater(q, 0), gaps, A.fill(A.shape(gaps), np.array(np.inf, wide.np)))
    counted = R.reduce_sum(M.cast(M.less_equal(R.cumsum(gaps, axis=0), n), wide), axis=0)
    # mean >= 10: BTRS (Hormann 1993) on pairs of the same uniforms
    k_ = _CANDIDATES
    big_n = M.maximum(n, _BTRS_FROM / M.maximum(q, 1e-3))   # keeps unused lanes finite
    qq = M.maximum(q, 1e-3)
    spq = M.sqrt(big_n * qq * (1 - qq))
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * qq
    c = big_n * qq + 0.5
    vr = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spq
    lpq = M.log(qq / (1 - qq))
    m = M.floor((big_n + 1) * qq)
    h = _log_factorial(m) + _log_factorial(big_n - m)
    uu = u[:k_] - 0.5
    v = _open_unit(u[k_:2 * k_])
    us = 0.5 - M.abs(uu)
    k = M.floor((2 * a / us + b) * uu + c)
    inside = M.logical_and(M.greater_equal(k, 0), M.less_equal(k, big_n))
    k_safe = M.minimum(M.maximum(k, 0), big_n)
    quick = M.logical_and(M.greater_equal(us, 0.07), M.less_equal(v, vr))
    full = M.less_equal(M.log(v * alpha / (a / (us * us) + b)),
                        h - _log_factorial(k_safe) - _log_factorial(big_n - k_safe)
                        + (k_safe - m) * lpq)
    accept = M.logical_and(inside, M.logical_or(quick, full))
    drawn = _first_accepted(accept, k_safe)
    draws = M.where(M.less(n * q, _BTRS_FROM), counted, drawn)
    return M.where(M.greater(p, 0.5), n - draws, draws)


@tf_export("random.stateless_binomial")
def stateless_binomial(shape, seed, counts, probs, output_dtype=D.int32, name=None):
    """Binomial(counts, probs) samples of `shape`, which must end with the parameters'
    broadcast shape; a deterministic function of `seed`."""
    api = "random.stateless_binomial"
    dt = _count_dtype(output_dtype, api)
    counts = convert_to_tensor(counts, dtype_hint=D.float32)
    probs = convert_to_tensor(probs, dtype=counts.dtype)
    wide = D.float64 if counts.dtype is D.float64 else D.float32
    params = list(np.broadcast_shapes(tuple(counts.shape.as_list()),
                                      tuple(probs.shape.as_list())))
    shape = _result_shape(shape, params, api, append=False)
    return M.cast(_binomial_standard(counts, probs, shape, _stateless_source(seed), wide), dt)
