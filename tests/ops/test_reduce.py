"""Reduce family: reductions, argmax/argmin and cumulative scans against NumPy/Python
references written here, for every supported dtype, with negative and repeated axes, keepdims,
zero-size dims, NaN/Inf, integer wraparound and every bad-input path.

Tolerances: a float sum (mean, scan) is compared with atol = rtol * sum(|x|) over the reduced
elements, the error bound of any summation order; a product of n factors gets rtol n * eps.
float16/bfloat16 results must agree to one unit in the last place (helpers.RTOL)."""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import flowjit as tf
from flowjit.ir.errors import InvalidArgumentError
from flowjit.ir.registry import OPS, TT
from helpers import FLOAT_DTYPES, INT_DTYPES, RTOL, assert_close, is_float, rand, shapes
from helpers import dtype_ids as ids
from helpers import wrap_int as wrap

NUMERIC = FLOAT_DTYPES + INT_DTYPES


@st.composite
def array_and_axis(draw, dtype, min_dims=0, max_dims=4, max_side=5):
    shape = draw(shapes(min_dims=min_dims, max_dims=max_dims, max_side=max_side))
    rank = len(shape)
    kind = draw(st.sampled_from(["none", "int", "list"]))
    if kind == "none" or rank == 0:
        axis = None if kind == "none" or draw(st.booleans()) else []
    elif kind == "int":
        axis = draw(st.integers(-rank, rank - 1))
    else:
        picked = draw(st.lists(st.integers(0, rank - 1), unique=True, max_size=rank))
        axis = [a - rank if draw(st.booleans()) else a for a in picked]
    seed = draw(st.integers(0, 2**32 - 1))
    x = rand(np.random.default_rng(seed), shape, dtype)
    return x, axis, draw(st.booleans())


def np_axis(axis, rank):
    if axis is None:
        return tuple(range(rank))
    if isinstance(axis, int):
        axis = [axis]
    return tuple(sorted(a % rank for a in axis))


def keep(result, x_shape, axes, keepdims):
    if not keepdims:
        return result
    return np.reshape(result, [1 if i in axes else d for i, d in enumerate(x_shape)])


def slices(x, axes):
    """x with the reduced axes moved last and flattened: rows of the reduced elements."""
    kept = [i for i in range(x.ndim) if i not in axes]
    moved = np.transpose(x, kept + list(axes))
    out_shape = tuple(x.shape[i] for i in kept)
    n = math.prod(x.shape[i] for i in axes)
    return moved.reshape(out_shape + (n,)), out_shape


def flat(rows):
    """The rows of `slices` as a 2-D array (also when some dims are 0)."""
    return rows.reshape(math.prod(rows.shape[:-1]), rows.shape[-1])


def check_sum_like(actual, expected, abs_bound, dt, rtol=None):
    """|actual - expected| <= rtol * (|expected| + abs_bound) elementwise (NaN == NaN)."""
    actual = np.asarray(actual).astype(np.float64)
    expected = np.asarray(expected).astype(np.float64)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    r = rtol if rtol is not None else RTOL[np.dtype(dt)]
    same_special = (np.isnan(actual) & np.isnan(expected)) | (actual == expected)
    with np.errstate(invalid="ignore"):
        ok = np.abs(actual - expected) <= r * (np.abs(expected) + abs_bound) + 1e-300
    bad = ~(same_special | ok)
    assert not bad.any(), (actual[bad], expected[bad])


# --- sum / mean / prod ------------------------------------------------------------------------
def ref_sum(x, axes):
    rows, out_shape = slices(x, axes)
    if is_float(x.dtype):
        r = rows.astype(np.float64)
        exact = np.array([math.fsum(v) for v in flat(r)]).reshape(out_shape)
        return exact, np.abs(r).sum(-1)
    exact = np.array([sum(int(a) for a in v) for v in flat(rows)],
                     dtype=object).reshape(out_shape)
    return wrap(exact, x.dtype), None


@pytest.mark.parametrize("dtype", NUMERIC, ids=ids(NUMERIC))
@given(data=st.data())
def test_reduce_sum(dtype, data):
    x, axis, keepdims = data.draw(array_and_axis(dtype))
    got = tf.reduce_sum(x, axis=axis, keepdims=keepdims)
    assert got.dtype == tf.as_dtype(x.dtype)
    axes = np_axis(axis, x.ndim)
    exact, bound = ref_sum(x, axes)
    if is_float(dtype):
        check_sum_like(got.numpy(), keep(exact, x.shape, axes, keepdims),
                       keep(bound, x.shape, axes, keepdims), dtype)
    else:
        assert_close(got.numpy(), keep(exact, x.shape, axes, keepdims))


@pytest.mark.parametrize("dtype", NUMERIC, ids=ids(NUMERIC))
@given(data=st.data())
def test_reduce_mean(dtype, data):
    x, axis, keepdims = data.draw(array_and_axis(dtype))
    got = tf.reduce_mean(x, axis=axis, keepdims=keepdims)
    assert got.dtype == tf.as_dtype(x.dtype)
    axes = np_axis(axis, x.ndim)
    rows, out_shape = slices(x, axes)
    n = rows.shape[-1]
    if is_float(dtype):
        exact, bound = ref_sum(x, axes)
        with np.errstate(invalid="ignore"):
            expected = exact / n if n else np.full(out_shape, np.nan)
        check_sum_like(got.numpy(), keep(expected, x.shape, axes, keepdims),
                       keep(bound / max(n, 1), x.shape, axes, keepdims), dtype)
    else:
        # C-style truncating division of the exact sum; an empty mean is 0 (TF).
        sums = [sum(int(a) for a in v) for v in flat(rows)]
        q = [0 if n == 0 else (abs(s) // n) * (1 if s >= 0 else -1) for s in sums]
        expected = np.array(q, dtype=object).reshape(out_shape).astype(dtype)
        assert_close(got.numpy(), keep(expected, x.shape, axes, keepdims))


@pytest.mark.parametrize("dtype", NUMERIC, ids=ids(NUMERIC))
@given(data=st.data())
def test_reduce_prod(dtype, data):
    x, axis, keepdims = data.draw(array_and_axis(dtype, max_dims=3, max_side=4))
    got = tf.reduce_prod(x, axis=axis, keepdims=keepdims)
    assert got.dtype == tf.as_dtype(x.dtype)
    axes = np_axis(axis, x.ndim)
    rows, out_shape = slices(x, axes)
    n = rows.shape[-1]
    if is_float(dtype):
        expected = np.prod(rows.astype(np.float64), axis=-1)
        # Each factor adds one rounding of the accumulator.
        eps = float(ml_dtypes.finfo(np.dtype(dtype)).eps)
        rtol = max(RTOL[np.dtype(dtype)], n * eps)
        expected_cast = expected.astype(dtype).astype(np.float64)
        check_sum_like(got.numpy(), keep(expected_cast, x.shape, axes, keepdims), 0.0, dtype,
                       rtol=rtol)
    else:
        prods = [math.prod(int(a) for a in v) for v in flat(rows)]
        expected = wrap(np.array(prods, dtype=object).reshape(out_shape), x.dtype)
        assert_close(got.numpy(), keep(expected, x.shape, axes, keepdims))


def test_integer_sum_wraps_and_mean_does_not_overflow():
    c = tf.convert_to_tensor
    assert tf.reduce_sum(c(np.array([100, 100], np.int8))).numpy() == -56
    assert tf.reduce_sum(c(np.array([200, 100], np.uint8))).numpy() == 44
    # TF accumulates narrow-integer means without overflow.
    assert tf.reduce_mean(c(np.array([100, 100], np.int8))).numpy() == 100
    assert tf.reduce_mean(c(np.array([200, 200], np.uint8))).numpy() == 200
    assert tf.reduce_mean(c([2**30] * 3)).numpy() == 2**30
    assert tf.reduce_mean(c(np.array([-100, -100, -101], np.int8))).numpy() == -100
    assert tf.reduce_mean(c([-7, 0])).numpy() == -3  # truncation, not floor
    assert tf.reduce_mean(c([7, 0])).numpy() == 3


def test_empty_reductions_give_identities():
    c = tf.convert_to_tensor
    for dt in NUMERIC:
        e = c(np.zeros((0, 2), dt))
        assert_close(tf.reduce_sum(e, 0).numpy(), np.zeros(2, dt))
        assert_close(tf.reduce_prod(e, 0).numpy(), np.ones(2, dt))
        if is_float(dt):
            assert_close(tf.reduce_max(e, 0).numpy(), np.full(2, -np.inf, dt))
            assert_close(tf.reduce_min(e, 0).numpy(), np.full(2, np.inf, dt))
            assert np.isnan(tf.reduce_mean(e, 0).numpy()).all()
        else:
            info = np.iinfo(dt)
            assert_close(tf.reduce_max(e, 0).numpy(), np.full(2, info.min, dt))
            assert_close(tf.reduce_min(e, 0).numpy(), np.full(2, info.max, dt))
            assert_close(tf.reduce_mean(e, 0).numpy(), np.zeros(2, dt))
    b = c(np.zeros((0, 3), bool))
    assert tf.reduce_all(b, 0).numpy().tolist() == [True] * 3
    assert tf.reduce_any(b, 0).numpy().tolist() == [False] * 3
    assert tf.reduce_sum(c(np.zeros((2, 0), np.float32)), 1).numpy().tolist() == [0.0, 0.0]


def test_half_precision_accumulates_widely():
    # 4096 ones: a float16 accumulator would stop at 2048.
    x = tf.convert_to_tensor(np.ones(4096, np.float16))
    assert tf.reduce_sum(x).numpy() == 4096
    assert tf.reduce_mean(x).numpy() == 1


# --- max / min --------------------------------------------------------------------------------
def with_specials(x, rng):
    """Sprinkle NaN and +-inf into a float array."""
    if not is_float(x.dtype) or x.size == 0:
        return x
    x = x.copy()
    elems = x.reshape(-1)
    for v in (np.nan, np.inf, -np.inf):
        if rng.random() < 0.4:
            elems[rng.integers(elems.size)] = v
    return x


@pytest.mark.parametrize("dtype", NUMERIC, ids=ids(NUMERIC))
@pytest.mark.parametrize("which", ["max", "min"])
@given(data=st.data())
def test_reduce_max_min(which, dtype, data):
    x, axis, keepdims = data.draw(array_and_axis(dtype))
    x = with_specials(x, np.random.default_rng(x.size))
    fn = tf.reduce_max if which == "max" else tf.reduce_min
    got = fn(x, axis=axis, keepdims=keepdims)
    assert got.dtype == tf.as_dtype(x.dtype)
    axes = np_axis(axis, x.ndim)
    rows, out_shape = slices(x, axes)
    if is_float(dtype):
        ident = -np.inf if which == "max" else np.inf
    else:
        ident = np.iinfo(dtype).min if which == "max" else np.iinfo(dtype).max
    pick = max if which == "max" else min
    out = []
    for v in flat(rows).astype(np.float64 if is_float(dtype) else object):
        vals = list(v)
        out.append(np.nan if any(isinstance(a, float) and math.isnan(a) for a in vals)
                   else pick(vals, default=ident))
    expected = np.array(out, dtype=object).reshape(out_shape).astype(
        np.float64 if is_float(dtype) else dtype)
    assert_close(got.numpy(), keep(expected, x.shape, axes, keepdims).astype(dtype))


# --- any / all --------------------------------------------------------------------------------
@pytest.mark.parametrize("which", ["any", "all"])
@given(data=st.data())
def test_reduce_any_all(which, data):
    x, axis, keepdims = data.draw(array_and_axis(np.bool_))
    fn = tf.reduce_any if which == "any" else tf.reduce_all
    got = fn(x, axis=axis, keepdims=keepdims)
    assert got.dtype == tf.bool
    axes = np_axis(axis, x.ndim)
    rows, out_shape = slices(x, axes)
    py = any if which == "any" else all
    expected = np.array([py(bool(a) for a in v) for v in flat(rows)],
                        dtype=bool).reshape(out_shape)
    assert_close(got.numpy(), keep(expected, x.shape, axes, keepdims))


# --- logsumexp --------------------------------------------------------------------------------
def ref_logsumexp(x, axes):
    """(value, error scale): the scale is |max| + |log(sum(exp(x - max)))|, the sizes of
    the two terms the result is assembled from."""
    rows, out_shape = slices(x.astype(np.float64), axes)
    out, scale = [], []
    for v in flat(rows):
        finite = v[np.isfinite(v)]
        if np.isnan(v).any():
            out.append(np.nan)
        elif np.isposinf(v).any():
            out.append(np.inf)
        elif finite.size == 0:
            out.append(-np.inf)
        else:
            m = finite.max()
            lse = math.log(math.fsum(math.exp(a - m) for a in finite))
            out.append(m + lse)
            scale.append(abs(m) + abs(lse))
            continue
        scale.append(0.0)
    return np.array(out).reshape(out_shape), np.array(scale).reshape(out_shape)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=ids(FLOAT_DTYPES))
@given(data=st.data(), offset=st.sampled_from([0.0, 80.0, -80.0, 1000.0]))
def test_reduce_logsumexp(dtype, data, offset):
    x, axis, keepdims = data.draw(array_and_axis(dtype))
    if dtype == np.float16 and abs(offset) > 100:
        offset = 0.0  # 1000 + 3 is not representable in float16 with useful precision
    x = (x.astype(np.float64) + offset).astype(dtype)
    x = with_specials(x, np.random.default_rng(x.size + 1))
    got = tf.reduce_logsumexp(x, axis=axis, keepdims=keepdims)
    assert got.dtype == tf.as_dtype(x.dtype)
    axes = np_axis(axis, x.ndim)
    value, scale = ref_logsumexp(x, axes)
    # The shift/exp/log/add steps each round in the input dtype: a few ulps of each term.
    check_sum_like(got.numpy(), keep(value, x.shape, axes, keepdims),
                   keep(scale, x.shape, axes, keepdims), dtype, rtol=4 * RTOL[np.dtype(dtype)])


def test_logsumexp_stable_and_edge_values():
    c = tf.convert_to_tensor
    assert_close(tf.reduce_logsumexp(c([1000.0, 1000.0])).numpy(),
                 np.float32(1000 + math.log(2)))
    assert_close(tf.reduce_logsumexp(c([-1000.0, -1000.0])).numpy(),
                 np.float32(-1000 + math.log(2)))
    assert tf.reduce_logsumexp(c([-np.inf, -np.inf])).numpy() == -np.inf
    assert tf.reduce_logsumexp(c([np.inf, 1.0])).numpy() == np.inf
    assert np.isnan(tf.reduce_logsumexp(c([np.nan, 1.0])).numpy())
    empty = tf.reduce_logsumexp(c(np.zeros((0, 3), np.float32)), axis=0)
    assert empty.numpy().tolist() == [-np.inf] * 3
    k = tf.reduce_logsumexp(c(np.zeros((2, 3), np.float16)), axis=0, keepdims=True)
    assert k.shape == (1, 3) and k.dtype == tf.float16
    assert_close(k.numpy(), np.full((1, 3), math.log(2), np.float16))


def test_logsumexp_rejects_integers():
    with pytest.raises(InvalidArgumentError, match="reduce_logsumexp"):
        tf.reduce_logsumexp(tf.convert_to_tensor([1, 2]))


# --- argmax / argmin --------------------------------------------------------------------------
@st.composite
def array_and_one_axis(draw, dtype):
    shape = draw(shapes(min_dims=1, max_dims=4, max_side=5))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    if shape[axis] == 0:
        shape = shape[:axis % len(shape)] + (1,) + shape[axis % len(shape) + 1:]
    x = rand(np.random.default_rng(draw(st.integers(0, 2**32 - 1))), shape, dtype)
    return x, axis


def ref_arg(x, axis, largest):
    """TF's CPU rule: start from (index 0, -inf) (+inf for argmin) and move to each later
    element that is strictly better. So ties keep the first index, NaN is skipped, and a
    slice of only NaN and -inf gives 0."""
    axis %= x.ndim
    rows, out_shape = slices(x, (axis,))
    out = []
    for v in flat(rows):
        best, v_best = 0, (-math.inf if largest else math.inf)
        for i, a in enumerate(v.astype(np.float64) if is_float(x.dtype) else v.astype(object)):
            if a > v_best if largest else a < v_best:
                best, v_best = i, a
        out.append(best)
    return np.array(out, dtype=np.int64).reshape(out_shape)


ARG_DTYPES = NUMERIC + [np.bool_]


@pytest.mark.parametrize("dtype", ARG_DTYPES, ids=ids(ARG_DTYPES))
@pytest.mark.parametrize("which", ["argmax", "argmin"])
@given(data=st.data(), output_type=st.sampled_from([None, tf.int32, tf.int64, tf.int16]))
def test_argmax_argmin(which, dtype, data, output_type):
    x, axis = data.draw(array_and_one_axis(dtype))
    x = with_specials(x, np.random.default_rng(x.size + 2))
    fn = getattr(tf, which)
    got = fn(x, axis=axis) if output_type is None else fn(x, axis, output_type=output_type)
    assert got.dtype == (output_type or tf.int64)
    assert_close(got.numpy(), ref_arg(x, axis, which == "argmax").astype(got.dtype.np))


def test_argmax_defaults_axis_0_and_skips_nan():
    c = tf.convert_to_tensor
    assert tf.argmax(c([[1, 3], [2, 0]])).numpy().tolist() == [1, 0]
    assert tf.argmax(c([1.0, np.nan, 3.0, np.nan])).numpy() == 2
    assert tf.argmin(c([np.nan, 5.0, np.nan, 1.0])).numpy() == 3
    assert tf.argmax(c([np.nan, np.nan])).numpy() == 0
    assert tf.argmax(c([-np.inf, -np.inf])).numpy() == 0
    assert tf.argmax(c([np.nan, -np.inf])).numpy() == 0  # TF: -inf never beats the start
    assert tf.argmin(c([np.nan, np.inf])).numpy() == 0
    assert tf.argmax(c([-np.inf, -np.inf, 1.0])).numpy() == 2
    assert tf.argmin(c([1.0, np.inf, -np.inf])).numpy() == 2
    assert tf.argmax(c([False, True])).numpy() == 1
    assert tf.argmax(c(np.zeros((3, 0))), axis=0).shape == (0,)
    assert tf.math.argmax(c([1, 5, 5]), axis=c(0)).numpy() == 1
    assert tf.argmax(c([1, 5, 5]), axis=np.int64(0)).numpy() == 1


def test_argmax_errors():
    c = tf.convert_to_tensor
    with pytest.raises(InvalidArgumentError, match=r"empty.*\[Op:argmax\]"):
        tf.argmax(c(np.zeros((0, 3))))
    with pytest.raises(InvalidArgumentError, match=r"empty.*\[Op:argmin\]"):
        tf.argmin(c(np.zeros((3, 0))), axis=1)
    with pytest.raises(InvalidArgumentError, match="argmax"):
        tf.argmax(c(3))
    with pytest.raises(InvalidArgumentError, match="argmax"):
        tf.argmax(c([[1, 2]]), axis=2)
    with pytest.raises(InvalidArgumentError, match="argmin"):
        tf.argmin(c([[1, 2]]), axis=-3)
    with pytest.raises(InvalidArgumentError, match="argmax"):
        tf.argmax(c([1.0]), output_type=tf.float32)
    with pytest.raises(TypeError, match="argmax"):
        tf.argmax(c([[1, 2]]), axis=[1])
    with pytest.raises(TypeError, match="argmax"):
        tf.argmax(c([[1, 2]]), axis=1.0)


# --- cumsum / cumprod -------------------------------------------------------------------------
def ref_scan(x, axis, exclusive, reverse, product):
    axis %= x.ndim
    moved = np.moveaxis(x, axis, -1)
    flt = is_float(x.dtype)
    rows = flat(moved)
    out = np.empty(rows.shape, dtype=np.float64 if flt else object)
    bound = np.zeros(rows.shape)
    for r, v in enumerate(rows):
        vals = [float(a) if flt else int(a) for a in v]
        order = list(range(len(vals)))[::-1] if reverse else list(range(len(vals)))
        acc, acc_abs = (1 if product else 0), 0.0
        for i in order:
            if exclusive:
                out[r, i], bound[r, i] = acc, acc_abs
            acc = acc * vals[i] if product else acc + vals[i]
            acc_abs += abs(vals[i]) if not product else 0.0
            if not exclusive:
                out[r, i], bound[r, i] = acc, acc_abs
    out = out.reshape(moved.shape)
    bound = np.moveaxis(bound.reshape(moved.shape), -1, axis)
    out = np.moveaxis(out, -1, axis)
    return (out.astype(np.float64) if flt else wrap(out, x.dtype)), bound


@pytest.mark.parametrize("dtype", NUMERIC, ids=ids(NUMERIC))
@pytest.mark.parametrize("which", ["cumsum", "cumprod"])
@given(data=st.data(), exclusive=st.booleans(), reverse=st.booleans())
def test_cumsum_cumprod(which, dtype, data, exclusive, reverse):
    shape = data.draw(shapes(min_dims=1, max_dims=3, max_side=5))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    lo, hi = (-3.0, 3.0) if which == "cumsum" else (-2.0, 2.0)
    x = rand(np.random.default_rng(data.draw(st.integers(0, 2**32))), shape, dtype, lo, hi)
    fn = tf.cumsum if which == "cumsum" else tf.math.cumprod
    got = fn(x, axis=axis, exclusive=exclusive, reverse=reverse)
    assert got.dtype == tf.as_dtype(x.dtype) and got.shape == x.shape
    expected, bound = ref_scan(x, axis, exclusive, reverse, which == "cumprod")
    if is_float(dtype):
        eps = float(ml_dtypes.finfo(np.dtype(dtype)).eps)
        rtol = RTOL[np.dtype(dtype)] if which == "cumsum" else max(
            RTOL[np.dtype(dtype)], x.shape[axis] * eps)
        check_sum_like(got.numpy(), expected.astype(dtype).astype(np.float64), bound, dtype,
                       rtol=rtol)
    else:
        assert_close(got.numpy(), expected)


def test_scan_examples_and_nan():
    c = tf.convert_to_tensor
    x = c([[1, 2, 3], [4, 5, 6]])
    assert tf.cumsum(x, exclusive=True).numpy().tolist() == [[0, 0, 0], [1, 2, 3]]
    assert tf.cumsum(x, 1, exclusive=True, reverse=True).numpy().tolist() == \
        [[5, 3, 0], [11, 6, 0]]
    assert tf.math.cumprod(x, -1, exclusive=True).numpy().tolist() == [[1, 1, 2], [1, 4, 20]]
    assert tf.math.cumsum(x, axis=c(1)).numpy().tolist() == [[1, 3, 6], [4, 9, 15]]
    r = tf.cumsum(c([1.0, np.nan, 2.0])).numpy()
    assert r[0] == 1 and np.isnan(r[1:]).all()
    assert tf.cumsum(c(np.zeros((0, 2), np.float32)), axis=0, exclusive=True).shape == (0, 2)
    assert tf.cumsum(c(np.array([100, 100], np.int8))).numpy().tolist() == [100, -56]


def test_scan_errors():
    c = tf.convert_to_tensor
    x = c([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(InvalidArgumentError, match="cumsum"):
        tf.cumsum(x, axis=2)
    with pytest.raises(InvalidArgumentError, match="cumprod"):
        tf.math.cumprod(x, axis=-3)
    with pytest.raises(InvalidArgumentError, match="cumsum"):
        tf.cumsum(c(3))
    with pytest.raises(InvalidArgumentError, match="cumsum"):
        tf.cumsum(c([True]))
    with pytest.raises(TypeError, match="cumsum"):
        tf.cumsum(x, axis=1.0)
    with pytest.raises(TypeError, match="cumsum"):
        tf.cumsum(x, axis=[1])
    with pytest.raises(InvalidArgumentError, match="cumsum"):
        tf.cumsum(x, axis=c([1]))


# --- shared argument handling and errors ------------------------------------------------------
REDUCERS = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
            "reduce_logsumexp"]


@pytest.mark.parametrize("name", REDUCERS)
def test_axis_forms(name):
    fn = getattr(tf, name)
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10
    base = fn(x, axis=[0, 2]).numpy()
    for axis in ([-3, -1], (2, 0), np.array([0, 2]), tf.convert_to_tensor([0, 2])):
        assert_close(fn(x, axis=axis).numpy(), base)
    assert_close(fn(x, axis=np.int32(1)).numpy(), fn(x, axis=1).numpy())
    assert_close(fn(x, axis=tf.convert_to_tensor(-2)).numpy(), fn(x, axis=1).numpy())
    assert fn(x, axis=[]).shape == x.shape  # no axes: nothing reduced
    assert fn(x, keepdims=True).shape == (1, 1, 1)
    assert fn(x).shape == ()
    assert fn(x, axis=None, keepdims=None).shape == ()
    assert getattr(tf.math, name) is fn


@pytest.mark.parametrize("name", REDUCERS + ["reduce_any", "reduce_all"])
def test_bad_axes(name):
    fn = getattr(tf, name)
    dt = np.bool_ if name in ("reduce_any", "reduce_all") else np.float32
    x = tf.convert_to_tensor(np.zeros((2, 3), dt))
    with pytest.raises(InvalidArgumentError,
                       match=r"Invalid reduction dimension.*\[Op:reduce_\w+\]"):
        fn(x, axis=2)
    with pytest.raises(InvalidArgumentError, match="reduce_"):
        fn(x, axis=-3)
    with pytest.raises(InvalidArgumentError, match=r"duplicate dimension.*\[Op:reduce_\w+\]"):
        fn(x, axis=[0, -2])
    with pytest.raises(InvalidArgumentError, match="reduce_"):
        fn(tf.convert_to_tensor(np.zeros((), dt)), axis=0)
    with pytest.raises(TypeError, match="reduce_"):
        fn(x, axis=1.0)
    with pytest.raises(TypeError, match="reduce_"):
        fn(x, axis=[0, 0.5])


@pytest.mark.parametrize("name", ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
                                  "reduce_prod"])
def test_numeric_reductions_reject_bool(name):
    with pytest.raises(InvalidArgumentError, match=rf"{name}.*bool"):
        getattr(tf, name)(tf.convert_to_tensor([True, False]))


@pytest.mark.parametrize("name", ["reduce_any", "reduce_all"])
def test_logical_reductions_need_bool(name):
    with pytest.raises(InvalidArgumentError, match=rf"{name}.*float32"):
        getattr(tf, name)(tf.convert_to_tensor([1.0, 0.0]))


def test_python_values_and_variables():
    assert tf.reduce_sum([[1, 2], [3, 4]]).numpy() == 10
    assert tf.reduce_sum([[1, 2], [3, 4]]).dtype == tf.int32
    assert tf.reduce_mean([1.0, 2.0]).dtype == tf.float32
    assert tf.reduce_all([True, True]).numpy()
    v = tf.Variable([[1.0, 2.0], [3.0, 5.0]])
    assert tf.reduce_max(v, axis=1).numpy().tolist() == [2.0, 5.0]
    assert tf.argmax(v, axis=1).numpy().tolist() == [1, 1]
    assert tf.cumsum(v, axis=0).numpy().tolist() == [[1, 2], [4, 7]]


def test_exports():
    for n in ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
              "reduce_any", "reduce_all", "reduce_logsumexp", "argmax", "argmin", "cumsum"]:
        assert getattr(tf, n) is getattr(tf.math, n)
    assert callable(tf.math.cumprod)
    assert not hasattr(tf, "cumprod")  # as in TF


# --- inference with unknown dims (what tracing will see) ---------------------------------------
def infer(name, types, **attrs):
    opdef = OPS[name]
    return opdef.infer(types, opdef.resolve_attrs(attrs))


def test_inference_with_unknown_dims():
    f32 = tf.float32
    assert infer("reduce_sum", [TT(f32, (None, 3, None))], axis=(1,)) == TT(f32, (None, None))
    assert infer("reduce_mean", [TT(f32, (None, 3))], axis=(-1,), keepdims=True) == \
        TT(f32, (None, 1))
    assert infer("reduce_max", [TT(f32, None)]) == TT(f32, ())
    assert infer("reduce_max", [TT(f32, None)], axis=(0,)) == TT(f32, None)
    assert infer("reduce_max", [TT(f32, None)], keepdims=True) == TT(f32, None)
    assert infer("argmax", [TT(f32, (None, 4))], axis=1) == TT(tf.int64, (None,))
    assert infer("argmin", [TT(f32, None)], axis=1, output_type=tf.int32) == \
        TT(tf.int32, None)
    assert infer("cumsum", [TT(f32, (None, 2))], axis=-1) == TT(f32, (None, 2))
    assert infer("cumprod", [TT(f32, None)], axis=5) == TT(f32, None)
    from flowjit.ir.registry import InferenceError
    with pytest.raises(InferenceError):
        infer("reduce_sum", [TT(f32, (None,))], axis=(1,))
    with pytest.raises(InferenceError):
        infer("argmax", [TT(f32, (0, None))], axis=0)
    with pytest.raises(InferenceError):
        infer("cumsum", [TT(f32, ())], axis=0)
