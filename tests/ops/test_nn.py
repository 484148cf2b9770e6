"""nn family: every op against an independent NumPy reference written here (naive loops over
output pixels for convolution and pooling, float64 formulas for activations and losses), each
float dtype, TF's window rules (SAME/VALID/explicit padding, strides, dilations, NHWC/NCHW),
numerically extreme logits, and every bad-input path (TF's exception class, op named).

Tolerances: elementwise ops use the helpers' per-dtype rtol (f32 1e-6). Ops that sum many
products (convolution, pooling, cross entropies, moments) accumulate float32 rounding, so
they use rtol 1e-5 in float32 with an absolute tolerance scaled by the sum of |terms|."""
from __future__ import annotations

import itertools
import math
import re
import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flowjit as tf
from flowjit.extend import api_for_op
from flowjit.ir import registry
from flowjit.ir.errors import InvalidArgumentError, UnimplementedError
from flowjit.ir.registry import TT
from flowjit.runtime.kernels import KERNELS
from helpers import FLOAT_DTYPES, RTOL, assert_close, rand, shapes

BF16 = np.dtype(ml_dtypes.bfloat16)
# Accumulating ops: float32 sums of up to ~100 products are good to ~1e-5 relative.
ACC_RTOL = {np.dtype(np.float16): 2e-3, BF16: 1.6e-2, np.dtype(np.float32): 1e-5,
            np.dtype(np.float64): 1e-12}


def T(a):
    return tf.convert_to_tensor(a)


def close_acc(actual, expected, dtype, scale=1.0, mult=1.0):
    """Compare an accumulating op: error within rtol * max(scale, 1), where `scale` (a number
    or an array like `expected`) bounds the sum of |terms| of each result."""
    r = ACC_RTOL[np.dtype(dtype)] * mult
    a = np.asarray(actual).astype(np.float64)
    e = np.asarray(expected, dtype=np.float64)
    assert a.shape == e.shape, (a.shape, e.shape)
    tol = r * np.maximum(np.maximum(np.abs(e), scale), 1.0)
    with np.errstate(invalid="ignore"):
        bad = ~(np.abs(a - e) <= tol) & ~(np.isnan(a) & np.isnan(e))
    assert not bad.any(), f"{bad.sum()} mismatches, e.g. got {a[bad][:5]} want {e[bad][:5]}"


def raises(cls, fn, *names):
    """Assert `fn()` raises exactly TF's class and the message names the op."""
    with pytest.raises(cls) as info:
        fn()
    assert type(info.value) is cls, type(info.value)
    msg = str(info.value)
    for n in names:
        assert n in msg, (n, msg)
    return msg


def f64(a):
    return np.asarray(a).astype(np.float64)


# --- references -----------------------------------------------------------------------------
def ref_pads(size, k, s, d, padding):
    """TF's padding rule for one dim, written from the documentation: SAME gives
    ceil(size / s) outputs and splits the needed padding with the extra at the end."""
    eff = (k - 1) * d + 1
    if padding == "VALID":
        return 0, 0
    if isinstance(padding, tuple):
        return padding
    out = -(-size // s)
    need = max((out - 1) * s + eff - size, 0)
    return need // 2, need - need // 2


def ref_out_size(size, k, s, d, pads):
    return (size + pads[0] + pads[1] - (k - 1) * d - 1) // s + 1


def ref_conv2d_nhwc(x, w, strides, dilations, paddings):
    """Naive grouped conv, one output pixel at a time: x [N,H,W,C], w [kh,kw,C/g,O]. Returns
    the result and, per output, the sum of |terms| (the scale of its rounding error)."""
    x, w = f64(x), f64(w)
    n, h, wd, c = x.shape
    kh, kw, fin, cout = w.shape
    g = c // fin
    ho, wo = (ref_out_size(sz, k, s, d, p) for sz, k, s, d, p in
              zip((h, wd), (kh, kw), strides, dilations, paddings))
    out = np.zeros((n, max(ho, 0), max(wo, 0), cout))
    mag = np.zeros_like(out)
    for b, i, j in itertools.product(range(n), range(ho), range(wo)):
        for a, e in itertools.product(range(kh), range(kw)):
            r = i * strides[0] + a * dilations[0] - paddings[0][0]
            q = j * strides[1] + e * dilations[1] - paddings[1][0]
            if 0 <= r < h and 0 <= q < wd:
                xs = x[b, r, q].reshape(g, fin)
                ws = w[a, e].reshape(fin, g, cout // g)
                out[b, i, j] += np.einsum("gc,cgo->go", xs, ws).reshape(cout)
                mag[b, i, j] += np.einsum("gc,cgo->go", abs(xs), abs(ws)).reshape(cout)
    return out, mag


def ref_depthwise_nhwc(x, w, strides, dilations, paddings):
    x, w = f64(x), f64(w)
    res = [ref_conv2d_nhwc(x[..., ch:ch + 1], w[:, :, ch:ch + 1, :], strides, dilations,
                           paddings) for ch in range(x.shape[-1])]
    # output channel c * multiplier + m
    return tuple(np.concatenate([r[i] for r in res], axis=-1) for i in range(2))


def ref_conv2d_transpose_nhwc(x, w, out_shape, strides, dilations, paddings):
    """Scatter form: every input pixel adds w[tap] @ x[pixel] at its output location."""
    x, w = f64(x), f64(w)
    n, h, wd, _ = x.shape
    kh, kw, cout, _ = w.shape
    (pt, _), (pl, _) = paddings
    out = np.zeros(out_shape)
    mag = np.zeros(out_shape)
    for b, i, j, a, e in itertools.product(range(n), range(h), range(wd), range(kh), range(kw)):
        r = i * strides[0] + a * dilations[0] - pt
        q = j * strides[1] + e * dilations[1] - pl
        if 0 <= r < out_shape[1] and 0 <= q < out_shape[2]:
            out[b, r, q] += w[a, e] @ x[b, i, j]
            mag[b, r, q] += abs(w[a, e]) @ abs(x[b, i, j])
    return out, mag


def ref_pool_nhwc(x, ksize, strides, paddings, kind):
    """Naive pooling over the window elements that fall inside x (NaN skipped by max)."""
    x = f64(x)
    sp = x.shape[1:-1]
    outs = [(size + b + a - k) // s + 1 for size, k, s, (b, a) in zip(sp, ksize, strides,
                                                                       paddings)]
    out = np.zeros((x.shape[0], *[max(o, 0) for o in outs], x.shape[-1]))
    for b in range(x.shape[0]):
        for pos in itertools.product(*(range(o) for o in outs)):
            ranges = []
            for p, k, s, (before, _), size in zip(pos, ksize, strides, paddings, sp):
                lo = p * s - before
                ranges.append(range(max(lo, 0), min(lo + k, size)))
            vals = np.array([x[(b, *idx)] for idx in itertools.product(*ranges)])
            if kind == "max":
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN window -> NaN
                    out[(b, *pos)] = np.nanmax(vals, axis=0)
            else:
                out[(b, *pos)] = vals.mean(axis=0)
    return out


def ref_softmax(x, axis=-1):
    x = f64(x)
    if x.size == 0:
        return x
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def ref_log_softmax(x, axis=-1):
    x = f64(x)
    if x.size == 0:
        return x
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def ref_gelu(x, approximate):
    x = f64(x)
    if approximate:
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    # the textbook erf form (the kernel uses erfc, which keeps precision for negative x)
    return np.vectorize(lambda v: 0.5 * v * (1 + math.erf(v / math.sqrt(2))))(x) if x.size \
        else x


SELU_A, SELU_S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
ACTIVATIONS = {
    "relu": lambda x: np.maximum(f64(x), 0),
    "relu6": lambda x: np.clip(f64(x), 0, 6),
    "elu": lambda x: np.where(f64(x) > 0, f64(x), np.expm1(f64(x))),
    "selu": lambda x: SELU_S * np.where(f64(x) > 0, f64(x), SELU_A * np.expm1(f64(x))),
    "leaky_relu": lambda x: np.where(f64(x) > 0, f64(x), 0.2 * f64(x)),
    "gelu": lambda x: ref_gelu(x, False),
    "silu": lambda x: f64(x) / (1 + np.exp(-f64(x))),
    "softmax": ref_softmax,
    "log_softmax": ref_log_softmax,
}


# --- activations ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@given(shape=shapes(min_dims=1, max_dims=3), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=8)
def test_activation(name, dtype, shape, seed):
    x = rand(np.random.default_rng(seed), shape, dtype, -8, 8)
    got = getattr(tf.nn, name)(T(x))
    assert got.dtype == tf.as_dtype(dtype) and got.shape == shape
    # silu composes sigmoid and mul, each rounding in low precision.
    r = RTOL[np.dtype(dtype)] * (4 if name == "silu" and np.dtype(dtype).itemsize == 2 else 1)
    assert_close(got.numpy(), ACTIVATIONS[name](x), dtype, rtol=r, atol=r)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_activation_params(dtype):
    x = rand(np.random.default_rng(1), (4, 9), dtype, -6, 6)
    assert_close(tf.nn.leaky_relu(T(x), alpha=1.5).numpy(),
                 np.where(x > 0, f64(x), 1.5 * f64(x)), dtype)
    assert_close(tf.nn.gelu(T(x), approximate=True).numpy(), ref_gelu(x, True), dtype)
    r = 4 * RTOL[np.dtype(dtype)]
    assert_close(tf.nn.silu(T(x), beta=2.5).numpy(), f64(x) / (1 + np.exp(-2.5 * f64(x))),
                 dtype, rtol=r, atol=r)
    assert tf.nn.swish is tf.nn.silu


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8])
def test_relu_integers(dtype):
    x = rand(np.random.default_rng(2), (3, 5), dtype, -20, 20)
    assert_close(tf.nn.relu(T(x)).numpy(), np.maximum(x, 0))
    assert_close(tf.nn.relu6(T(x)).numpy(), np.clip(x, 0, 6).astype(dtype))
    out = tf.nn.leaky_relu(T(x))  # TF casts integer features to float32 first
    assert out.dtype == tf.float32
    assert_close(out.numpy(), np.where(x > 0, f64(x), 0.2 * f64(x)), np.float32)


def test_activation_special_values():
    x = T(np.array([np.nan, -np.inf, np.inf, -0.0, 7.0], np.float32))
    np.testing.assert_array_equal(tf.nn.relu(x).numpy(), [np.nan, 0, np.inf, 0, 7])
    np.testing.assert_array_equal(tf.nn.relu6(x).numpy(), [np.nan, 0, 6, 0, 6])
    np.testing.assert_array_equal(tf.nn.elu(x).numpy(), [np.nan, -1, np.inf, 0, 7])
    g = tf.nn.gelu(T(np.array([-40.0, 40.0], np.float32))).numpy()
    np.testing.assert_array_equal(g, [0, 40])


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@given(shape=shapes(min_dims=1, max_dims=4), data=st.data())
@settings(max_examples=15)
def test_softmax_axes(fn, shape, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = rand(np.random.default_rng(len(shape)), shape, np.float32, -5, 5)
    ref = ref_softmax(x, axis) if fn == "softmax" else ref_log_softmax(x, axis)
    got = getattr(tf.nn, fn)(T(x), axis=axis)
    assert_close(got.numpy(), ref, np.float32, rtol=2e-6, atol=2e-6)
    assert_close(getattr(tf.math, fn)(T(x), axis).numpy(), ref, np.float32, rtol=2e-6,
                 atol=2e-6)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_softmax_extreme_logits(dtype):
    b = 3e4 if np.dtype(dtype) == np.float16 else 1e4
    x = np.array([[b, -b, 0.0], [-b, -b, -b], [b, b, b]]).astype(dtype)
    big = float(x[0, 0])  # as rounded to the dtype
    s = tf.nn.softmax(T(x)).numpy().astype(np.float64)
    assert np.all(np.isfinite(s))
    assert_close(s, [[1, 0, 0], [1 / 3] * 3, [1 / 3] * 3], dtype)
    ls = tf.nn.log_softmax(T(x)).numpy().astype(np.float64)
    expect = [[0, -2 * big, -big], [-math.log(3)] * 3, [-math.log(3)] * 3]
    assert_close(ls, np.array(expect), dtype)
    # -inf logits get probability 0; a row of -inf is NaN (0/0), as in TF.
    y = T(np.array([[-np.inf, 1.0], [-np.inf, -np.inf]], np.float32))
    np.testing.assert_array_equal(tf.nn.softmax(y).numpy(), [[0, 1], [np.nan, np.nan]])


def test_softmax_zero_size():
    for shape in [(2, 0), (0, 3)]:
        assert tf.nn.softmax(T(np.ones(shape, np.float32))).shape == shape
        assert tf.nn.log_softmax(T(np.ones(shape, np.float32)), axis=0).shape == shape


def test_activation_errors():
    i = T(np.array([1, -2], np.int32))
    for fn in ["elu", "selu", "softmax", "log_softmax"]:
        raises(InvalidArgumentError, lambda: getattr(tf.nn, fn)(i), fn)
    raises(ValueError, lambda: tf.nn.gelu(i), "gelu")
    raises(InvalidArgumentError, lambda: tf.nn.silu(i), "silu")
    raises(InvalidArgumentError, lambda: tf.nn.relu(T(np.array([True]))), "relu")
    x = T(np.ones((2, 3), np.float32))
    raises(InvalidArgumentError, lambda: tf.nn.softmax(x, axis=2), "softmax")
    raises(InvalidArgumentError, lambda: tf.nn.log_softmax(x, axis=-3), "log_softmax")
    raises(InvalidArgumentError, lambda: tf.nn.softmax(T(np.float32(1))), "softmax")
    raises(InvalidArgumentError, lambda: tf.nn.log_softmax(T(np.float32(1))), "log_softmax")


# --- bias_add -------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [np.int32, np.uint8])
@given(shape=shapes(min_dims=2, max_dims=5, min_side=0, max_side=4), first=st.booleans(),
       seed=st.integers(0, 2**32 - 1))
@settings(max_examples=10)
def test_bias_add(dtype, shape, first, seed):
    rng = np.random.default_rng(seed)
    x = rand(rng, shape, dtype, 0, 9)
    axis = 1 if first else -1
    b = rand(rng, (shape[axis],), dtype, 0, 9)
    fmt = {2: "NC", 3: "NCW", 4: "NCHW", 5: "NCDHW"}[len(shape)] if first else \
        {2: "NC", 3: "NWC", 4: "NHWC", 5: "NDHWC"}[len(shape)]
    bshape = [1] * len(shape)
    bshape[axis] = shape[axis]
    expect = (f64(x) + f64(b).reshape(bshape))
    got = tf.nn.bias_add(T(x), T(b), data_format=fmt if len(shape) > 2 or first else None)
    assert got.dtype == tf.as_dtype(dtype)
    assert_close(got.numpy(), expect, dtype)


def test_bias_add_errors():
    x = T(np.ones((2, 3, 4, 5), np.float32))
    raises(InvalidArgumentError, lambda: tf.nn.bias_add(x, T(np.ones(4, np.float32))),
           "bias_add", "biases")
    raises(InvalidArgumentError, lambda: tf.nn.bias_add(x, T(np.ones(5, np.float32)),
                                                        data_format="NCHW"), "bias_add")
    raises(InvalidArgumentError, lambda: tf.nn.bias_add(x, T(np.ones((1, 5), np.float32))),
           "bias_add", "1D")
    raises(InvalidArgumentError, lambda: tf.nn.bias_add(x, T(np.float32(1))), "bias_add", "1D")
    raises(InvalidArgumentError, lambda: tf.nn.bias_add(T(np.ones(3, np.float32)),
                                                        T(np.ones(3, np.float32))),
           "bias_add", "2D")
    raises(InvalidArgumentError, lambda: tf.nn.bias_add(x, T(np.ones(5, np.float64))),
           "bias_add")
    raises(InvalidArgumentError, lambda: tf.nn.bias_add(T(np.ones((2, 3), bool)),
                                                        T(np.ones(3, bool))), "bias_add")
    for fmt in ["HWCN", "foo", "nchw"]:
        raises(ValueError, lambda: tf.nn.bias_add(x, T(np.ones(5, np.float32)),
                                                  data_format=fmt), "bias_add", "data_format")


# --- conv2d ---------------------------------------------------------------------------------
def _nchw(a):
    return np.ascontiguousarray(np.moveaxis(a, -1, 1))


def _nhwc(a):
    return np.ascontiguousarray(np.moveaxis(a, 1, -1))


@st.composite
def conv_cases(draw, grouped=False):
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    sh, sw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    dh, dw = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    h = draw(st.integers((kh - 1) * dh + 1, 8))
    w = draw(st.integers((kw - 1) * dw + 1, 8))
    groups = draw(st.integers(1, 2)) if grouped else 1
    fin = draw(st.integers(1, 3))
    cout = groups * draw(st.integers(1, 3))
    n = draw(st.integers(0, 2))
    pad = draw(st.sampled_from(["SAME", "VALID", "EXPLICIT"]))
    explicit = [tuple(draw(st.integers(0, 2)) for _ in range(2)) for _ in range(2)]
    form = draw(st.sampled_from(["int", "one", "two", "four"]))
    return dict(n=n, h=h, w=w, cin=fin * groups, fin=fin, cout=cout, k=(kh, kw), s=(sh, sw),
                d=(dh, dw), pad=pad, explicit=explicit, form=form,
                fmt=draw(st.sampled_from(["NHWC", "NCHW"])))


def _window_arg(vals, form, fmt):
    """One of TF's accepted spellings of a per-spatial-dim window argument."""
    if form == "int" and vals[0] == vals[1]:
        return vals[0]
    if form == "one" and vals[0] == vals[1]:
        return [vals[0]]
    if form == "four":
        return [1, 1, *vals] if fmt == "NCHW" else [1, *vals, 1]
    return list(vals)


def _padding_arg(c):
    if c["pad"] != "EXPLICIT":
        return c["pad"]
    sp = [list(p) for p in c["explicit"]]
    return [[0, 0], [0, 0], *sp] if c["fmt"] == "NCHW" else [[0, 0], *sp, [0, 0]]


def _ref_paddings(c, sizes):
    if c["pad"] == "EXPLICIT":
        return c["explicit"]
    return [ref_pads(size, k, s, d, c["pad"]) for size, k, s, d in
            zip(sizes, c["k"], c["s"], c["d"])]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@given(c=conv_cases(grouped=True), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=30)
def test_conv2d(dtype, c, seed):
    rng = np.random.default_rng(seed)
    x = rand(rng, (c["n"], c["h"], c["w"], c["cin"]), dtype, -2, 2)
    f = rand(rng, (*c["k"], c["fin"], c["cout"]), dtype, -2, 2)
    expect, mag = ref_conv2d_nhwc(x, f, c["s"], c["d"], _ref_paddings(c, (c["h"], c["w"])))
    xin = _nchw(x) if c["fmt"] == "NCHW" else x
    got = tf.nn.conv2d(T(xin), T(f), _window_arg(c["s"], c["form"], c["fmt"]), _padding_arg(c),
                       data_format=c["fmt"],
                       dilations=_window_arg(c["d"], c["form"], c["fmt"]))
    assert got.dtype == tf.as_dtype(dtype)
    out = got.numpy()
    if c["fmt"] == "NCHW":
        out = _nhwc(out)
    close_acc(out, expect, dtype, mag)


def test_conv2d_int32_and_batch_dims():
    rng = np.random.default_rng(3)
    x = rng.integers(-5, 5, (2, 5, 6, 3)).astype(np.int32)
    f = rng.integers(-5, 5, (2, 3, 3, 4)).astype(np.int32)
    got = tf.nn.conv2d(T(x), T(f), [1, 2], "SAME")
    assert got.dtype == tf.int32
    np.testing.assert_array_equal(
        got.numpy(), ref_conv2d_nhwc(x, f, (1, 2), (1, 1), [(0, 1), (0, 1)])[0].astype(np.int32))
    # Leading dims beyond four are batch dims.
    xf = rand(rng, (2, 3, 5, 6, 3), np.float64)
    ff = rand(rng, (2, 3, 3, 4), np.float64)
    got = tf.nn.conv2d(T(xf), T(ff), 1, "VALID").numpy()
    expect, _ = ref_conv2d_nhwc(xf.reshape(6, 5, 6, 3), ff, (1, 1), (1, 1), [(0, 0), (0, 0)])
    assert_close(got, expect.reshape(2, 3, 4, 4, 4), np.float64)


def test_conv2d_zero_sizes():
    f = T(np.ones((3, 2, 3, 4), np.float32))
    assert tf.nn.conv2d(T(np.ones((0, 7, 8, 3), np.float32)), f, 1, "SAME").shape == \
        (0, 7, 8, 4)
    assert tf.nn.conv2d(T(np.ones((1, 0, 8, 3), np.float32)), f, 1, "SAME").shape == \
        (1, 0, 8, 4)
    out = tf.nn.conv2d(T(np.ones((2, 7, 8, 3), np.float32)),
                       T(np.ones((3, 2, 3, 0), np.float32)), 1, "SAME")
    assert out.shape == (2, 7, 8, 0)
    # TF's C-style division: an output size in (-1, 0) truncates to 0 rather than failing.
    out = tf.nn.conv2d(T(np.ones((1, 7, 1, 1), np.float32)),
                       T(np.ones((10, 1, 1, 1), np.float32)), [2, 1], "VALID")
    assert out.shape == (1, 0, 1, 1)


def test_conv2d_errors():
    x = T(np.ones((2, 7, 8, 3), np.float32))
    f = T(np.ones((3, 2, 3, 4), np.float32))
    c = tf.nn.conv2d
    raises(InvalidArgumentError, lambda: c(x, T(np.ones((3, 2, 2, 4), np.float32)), 1, "SAME"),
           "conv2d", "divisible")
    raises(InvalidArgumentError, lambda: c(x, f, 1, "FULL"), "conv2d", "padding")
    raises(InvalidArgumentError, lambda: c(x, f, 1, "same"), "conv2d", "padding")
    raises(ValueError, lambda: c(x, f, 1, "EXPLICIT"), "conv2d", "EXPLICIT")
    raises(ValueError, lambda: c(x, f, 1, [[1, 2], [3, 0]]), "conv2d", "size 4")
    raises(ValueError, lambda: c(x, f, 1, [0, 0, 1, 2, 3, 0, 0, 0]), "conv2d")
    raises(InvalidArgumentError, lambda: c(x, f, 1, [[1, 0], [1, 2], [3, 0], [0, 0]]),
           "conv2d", "batch or depth")
    raises(InvalidArgumentError, lambda: c(x, f, 1, [[0, 0], [-1, 2], [3, 0], [0, 0]]),
           "conv2d", "nonnegative")
    raises(InvalidArgumentError, lambda: c(x, f, 1, "SAME", data_format="HWCN"),
           "conv2d", "data_format")
    raises(InvalidArgumentError, lambda: c(x, f, 1, "SAME", data_format="NWC"), "conv2d")
    raises(ValueError, lambda: c(x, f, [1, 2, 3], "SAME"), "conv2d", "strides")
    raises(InvalidArgumentError, lambda: c(x, f, 0, "SAME"), "conv2d", "strides")
    raises(InvalidArgumentError, lambda: c(x, f, -1, "VALID"), "conv2d", "strides")
    raises(UnimplementedError, lambda: c(x, f, [2, 2, 3, 1], "SAME"), "conv2d", "batch")
    raises(UnimplementedError, lambda: c(x, f, 1, "SAME", dilations=[2, 2, 2, 1]), "conv2d")
    raises(InvalidArgumentError, lambda: c(x, f, 1, "SAME", dilations=0), "conv2d",
           "dilations")
    raises(TypeError, lambda: c(x, f, "1", "SAME"), "conv2d", "strides")
    raises(InvalidArgumentError, lambda: c(x, T(np.ones((10, 2, 3, 4), np.float32)), 1,
                                           "VALID"), "conv2d", "negative")
    raises(InvalidArgumentError, lambda: c(x, T(np.ones((2, 3, 4), np.float32)), 1, "VALID"),
           "conv2d", "4-dimensional")
    raises(InvalidArgumentError, lambda: c(T(np.ones((7, 8, 3), np.float32)), f, 1, "VALID"),
           "conv2d", "4-dimensional")
    raises(InvalidArgumentError, lambda: c(x, T(np.ones((0, 2, 3, 4), np.float32)), 1, "SAME"),
           "conv2d", "zero")
    raises(InvalidArgumentError, lambda: c(x, T(np.ones((3, 2, 3, 4), np.float64)), 1, "SAME"),
           "conv2d")
    raises(InvalidArgumentError, lambda: c(T(np.ones((1, 3, 3, 1), np.int8)),
                                           T(np.ones((1, 1, 1, 1), np.int8)), 1, "SAME"),
           "conv2d", "int8")


# --- depthwise_conv2d and conv2d_transpose ---------------------------------------------------
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@given(c=conv_cases(), mult=st.integers(1, 3), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=20)
def test_depthwise_conv2d(dtype, c, mult, seed):
    if max(c["s"]) > 1 and max(c["d"]) > 1:
        c["d"] = (1, 1)  # TF refuses strided dilated depthwise convolution
    rng = np.random.default_rng(seed)
    x = rand(rng, (c["n"], c["h"], c["w"], c["cin"]), dtype, -2, 2)
    f = rand(rng, (*c["k"], c["cin"], mult), dtype, -2, 2)
    pads = _ref_paddings(c, (c["h"], c["w"]))
    expect, mag = ref_depthwise_nhwc(x, f, c["s"], c["d"], pads)
    got = tf.nn.depthwise_conv2d(T(_nchw(x) if c["fmt"] == "NCHW" else x), T(f),
                                 _window_arg(c["s"], "four", c["fmt"]), _padding_arg(c),
                                 data_format=c["fmt"], dilations=list(c["d"])).numpy()
    if c["fmt"] == "NCHW":
        got = _nhwc(got)
    close_acc(got, expect, dtype, mag)


def test_depthwise_errors():
    x = T(np.ones((2, 7, 8, 3), np.float32))
    d = tf.nn.depthwise_conv2d
    raises(InvalidArgumentError, lambda: d(x, T(np.ones((3, 2, 4, 2), np.float32)),
                                           [1, 1, 1, 1], "VALID"), "depthwise_conv2d", "depth")
    f = T(np.ones((3, 2, 3, 2), np.float32))
    raises(InvalidArgumentError, lambda: d(x, f, [1, 1, 1, 1], "FOO"), "depthwise_conv2d")
    raises(InvalidArgumentError, lambda: d(x, f, [1, 1, 1, 1], "SAME", data_format="HWCN"),
           "depthwise_conv2d")
    raises(UnimplementedError, lambda: d(x, f, [1, 2, 2, 2], "VALID"), "depthwise_conv2d")
    raises(ValueError, lambda: d(x, f, [1, 2, 2, 1], "VALID", dilations=[2, 2]),
           "depthwise_conv2d", "dilation")
    raises(InvalidArgumentError, lambda: d(T(np.ones((1, 3, 3, 1), np.int32)),
                                           T(np.ones((1, 1, 1, 1), np.int32)), [1, 1, 1, 1],
                                           "SAME"), "depthwise_conv2d")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@given(c=conv_cases(), seed=st.integers(0, 2**32 - 1), extra=st.data())
@settings(max_examples=20)
def test_conv2d_transpose(dtype, c, seed, extra):
    rng = np.random.default_rng(seed)
    # Pick the transposed conv's output (= the forward conv's input) and derive its input.
    big = (c["n"], c["h"], c["w"], c["cout"])
    pads = _ref_paddings(c, (c["h"], c["w"]))
    small = [ref_out_size(sz, k, s, d, p) for sz, k, s, d, p in
             zip((c["h"], c["w"]), c["k"], c["s"], c["d"], pads)]
    x = rand(rng, (c["n"], *small, c["cin"]), dtype, -2, 2)
    f = rand(rng, (*c["k"], c["cout"], c["cin"]), dtype, -2, 2)
    expect, mag = ref_conv2d_transpose_nhwc(x, f, big, c["s"], c["d"], pads)
    out_shape = [big[0], big[3], big[1], big[2]] if c["fmt"] == "NCHW" else list(big)
    if extra.draw(st.booleans()):
        out_shape = T(np.array(out_shape, np.int32))  # TF also takes a shape tensor
    got = tf.nn.conv2d_transpose(T(_nchw(x) if c["fmt"] == "NCHW" else x), T(f), out_shape,
                                 _window_arg(c["s"], c["form"], c["fmt"]), _padding_arg(c),
                                 data_format=c["fmt"],
                                 dilations=_window_arg(c["d"], c["form"], c["fmt"])).numpy()
    if c["fmt"] == "NCHW":
        got = _nhwc(got)
    close_acc(got, expect, dtype, mag)


def test_conv2d_transpose_errors():
    x = T(np.ones((2, 7, 8, 3), np.float32))
    f = T(np.ones((3, 2, 4, 3), np.float32))
    ct = tf.nn.conv2d_transpose
    raises(InvalidArgumentError, lambda: ct(x, f, [2, 17, 17, 4], 2, "VALID"),
           "conv2d_transpose", "does not match")
    raises(InvalidArgumentError, lambda: ct(x, f, [2, 7, 8, 5], 1, "SAME"),
           "conv2d_transpose", "depth")
    raises(InvalidArgumentError, lambda: ct(x, T(np.ones((3, 2, 4, 2), np.float32)),
                                            [2, 7, 8, 4], 1, "SAME"), "conv2d_transpose")
    raises(InvalidArgumentError, lambda: ct(x, f, [3, 7, 8, 4], 1, "SAME"),
           "conv2d_transpose", "batch")
    raises(InvalidArgumentError, lambda: ct(x, f, [2, 7, 8], 1, "SAME"),
           "conv2d_transpose", "4 values")
    raises(TypeError, lambda: ct(x, f, [2, 7.5, 8, 4], 1, "SAME"), "conv2d_transpose")
    assert ct(x, f, [7, 8], 1, "SAME").shape == (2, 7, 8, 4)  # spatial-only output_shape


# --- pooling --------------------------------------------------------------------------------
@st.composite
def pool_cases(draw, nd=2, explicit=False):
    ksize = [draw(st.integers(1, 3)) for _ in range(nd)]
    strides = [draw(st.integers(1, 3)) for _ in range(nd)]
    sizes = [draw(st.integers(k, 6)) for k in ksize]
    pad = draw(st.sampled_from(["SAME", "VALID"] + (["EXPLICIT"] if explicit else [])))
    pads = [tuple(draw(st.integers(0, k - 1)) for _ in range(2)) for k in ksize]
    return dict(k=ksize, s=strides, sizes=sizes, pad=pad, pads=pads,
                n=draw(st.integers(0, 2)), c=draw(st.integers(1, 3)),
                first=draw(st.booleans()))


def _run_pool(kind, c, x, dtype):
    nd = len(c["k"])
    api = f"{kind}_pool{nd}d"
    letters = {1: "W", 2: "HW", 3: "DHW"}[nd]
    fmt = f"NC{letters}" if c["first"] else f"N{letters}C"
    xin = np.ascontiguousarray(np.moveaxis(x, -1, 1)) if c["first"] else x
    if c["pad"] == "EXPLICIT":
        sp = [list(p) for p in c["pads"]]
        padding = [[0, 0], [0, 0], *sp] if c["first"] else [[0, 0], *sp, [0, 0]]
    else:
        padding = c["pad"]
    got = getattr(tf.nn, api)(T(xin), c["k"], c["s"], padding, data_format=fmt)
    assert got.dtype == tf.as_dtype(dtype)
    out = got.numpy()
    return np.moveaxis(out, 1, -1) if c["first"] else out


def _ref_pool_paddings(c):
    if c["pad"] == "EXPLICIT":
        return c["pads"]
    return [ref_pads(size, k, s, 1, c["pad"]) for size, k, s in zip(c["sizes"], c["k"],
                                                                     c["s"])]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@given(c=pool_cases(explicit=True), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=25)
def test_max_pool2d(dtype, c, seed):
    x = rand(np.random.default_rng(seed), (c["n"], *c["sizes"], c["c"]), dtype)
    expect = ref_pool_nhwc(x, c["k"], c["s"], _ref_pool_paddings(c), "max")
    assert_close(_run_pool("max", c, x, dtype), expect, dtype)  # exact: a max is a selection


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@given(c=pool_cases(), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=25)
def test_avg_pool2d(dtype, c, seed):
    x = rand(np.random.default_rng(seed), (c["n"], *c["sizes"], c["c"]), dtype)
    expect = ref_pool_nhwc(x, c["k"], c["s"], _ref_pool_paddings(c), "avg")
    close_acc(_run_pool("avg", c, x, dtype), expect, dtype, 3.0)


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("nd", [1, 3])
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=8)
def test_pool_1d_3d(kind, nd, data, seed):
    c = data.draw(pool_cases(nd=nd))
    x = rand(np.random.default_rng(seed), (c["n"], *c["sizes"], c["c"]), np.float32)
    expect = ref_pool_nhwc(x, c["k"], c["s"], _ref_pool_paddings(c), kind)
    close_acc(_run_pool(kind, c, x, np.float32), expect, np.float32, 3.0)


def test_pool_generic_and_ints():
    rng = np.random.default_rng(5)
    x = rand(rng, (2, 5, 4, 3), np.float32)
    assert_close(tf.nn.max_pool(T(x), 2, 2, "VALID").numpy(),
                 ref_pool_nhwc(x, [2, 2], [2, 2], [(0, 0)] * 2, "max"), np.float32)
    assert_close(tf.nn.avg_pool(T(x[0]), 2, 1, "SAME").numpy(),
                 ref_pool_nhwc(x[0], [2], [1], [(0, 1)], "avg"), np.float32, rtol=1e-5)
    for dt in [np.int8, np.int32, np.int64, np.uint8]:
        xi = rand(rng, (1, 5, 5, 2), dt, -50, 50)
        got = tf.nn.max_pool2d(T(xi), 3, 2, "SAME")
        assert got.dtype == tf.as_dtype(dt)
        np.testing.assert_array_equal(
            got.numpy(), ref_pool_nhwc(xi, [3, 3], [2, 2], [(1, 1)] * 2, "max").astype(dt))


def test_pool_special_values():
    # TF's CPU max pooling skips NaN; -inf is an ordinary value.
    x = np.array([np.nan, 1, 2, np.nan, -np.inf, -np.inf, 5, 3], np.float32)[None, :, None,
                                                                             None]
    got = tf.nn.max_pool2d(T(x), [2, 1], [2, 1], "VALID").numpy().ravel()
    np.testing.assert_array_equal(got, [1, 2, -np.inf, 5])
    # SAME averaging divides by the in-bounds count only.
    y = np.arange(9, dtype=np.float32).reshape(1, 3, 3, 1)
    np.testing.assert_array_equal(tf.nn.avg_pool2d(T(y), 2, 2, "SAME").numpy().ravel(),
                                  [2, 3.5, 6.5, 8])
    # A window larger than the input: VALID gives an empty result, not an error.
    assert tf.nn.max_pool2d(T(np.ones((2, 5, 6, 3), np.float32)), 6, 1, "VALID").shape == \
        (2, 0, 1, 3)


def test_pool_errors():
    x = T(np.ones((2, 5, 6, 3), np.float32))
    for api in ["max_pool2d", "avg_pool2d"]:
        p = getattr(tf.nn, api)
        raises(ValueError, lambda: p(x, [1, 2, 3], 1, "VALID"), api, "ksize")
        raises(InvalidArgumentError, lambda: p(x, 0, 1, "VALID"), "pool", "ksize")
        raises(InvalidArgumentError, lambda: p(x, 1, 0, "VALID"), "pool", "strides")
        raises(UnimplementedError, lambda: p(x, [2, 2, 3, 1], 1, "VALID"), api, "batch")
        raises(UnimplementedError, lambda: p(x, 2, [2, 2, 3, 1], "VALID"), api, "batch")
        raises(InvalidArgumentError, lambda: p(x, 2, 1, "FULL"), "pool", "padding")
        raises(InvalidArgumentError, lambda: p(x, 2, 2, "VALID", data_format="HWCN"), "pool",
               "data_format")
        raises(InvalidArgumentError, lambda: p(T(np.ones((5, 6, 3), np.float32)), 2, 2,
                                               "VALID"), "pool", "4-dimensional")
    raises(TypeError, lambda: tf.nn.avg_pool2d(x, 2, 1, [[0, 0], [1, 1], [0, 0], [0, 0]]),
           "avg_pool2d", "padding")
    raises(InvalidArgumentError, lambda: tf.nn.max_pool2d(x, 1, 1, [[0, 0], [2, 2], [0, 0],
                                                                    [0, 0]]),
           "max_pool", "window size")
    raises(InvalidArgumentError, lambda: tf.nn.avg_pool2d(T(np.ones((1, 4, 4, 1), np.int32)),
                                                          2, 2, "VALID"), "avg_pool", "int32")
    raises(ValueError, lambda: tf.nn.max_pool(T(np.ones((2, 3), np.float32)), 2, 2, "VALID"),
           "max_pool")


# --- cross entropies and l2_loss ------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
@given(shape=shapes(min_dims=1, max_dims=3, min_side=1, max_side=5),
       seed=st.integers(0, 2**32 - 1))
@settings(max_examples=10)
def test_sparse_softmax_xent(dtype, label_dtype, shape, seed):
    rng = np.random.default_rng(seed)
    logits = rand(rng, shape, dtype, -10, 10)
    labels = rng.integers(0, shape[-1], shape[:-1]).astype(label_dtype)
    z = f64(logits).reshape(-1, shape[-1])
    expect = np.array([math.log(sum(math.exp(v - row.max()) for v in row)) + row.max()
                       - row[lab] for row, lab in zip(z, labels.ravel())]).reshape(shape[:-1])
    got = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=T(labels), logits=T(logits))
    assert got.dtype == tf.as_dtype(dtype)
    close_acc(got.numpy(), expect, dtype, 10.0)


def test_sparse_softmax_xent_extreme_and_empty():
    logits = T(np.array([[1e4, -1e4, 0], [1e4, -1e4, 0]], np.float32))
    got = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 2], logits=logits)
    np.testing.assert_allclose(got.numpy(), [0, 1e4], rtol=1e-6)
    got = tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=T(np.zeros(0, np.int32)), logits=T(np.ones((0, 3), np.float32)))
    assert got.shape == (0,)
    got = tf.nn.sparse_softmax_cross_entropy_with_logits(2, [1.0, 2.0, 3.0])  # positional, 1-D
    np.testing.assert_allclose(got.numpy(), math.log(math.exp(-2) + math.exp(-1) + 1),
                               rtol=1e-6)


def test_sparse_softmax_xent_errors():
    op = "sparse_softmax_cross_entropy_with_logits"
    f = tf.nn.sparse_softmax_cross_entropy_with_logits
    logits = T(np.ones((2, 3), np.float32))
    msg = raises(InvalidArgumentError, lambda: f(labels=[3, 0], logits=logits), op)
    assert "Received a label value of 3 which is outside the valid range of [0, 3)" in msg
    raises(InvalidArgumentError, lambda: f(labels=T(np.array([0, -1], np.int64)),
                                           logits=logits), op, "-1")
    raises(ValueError, lambda: f(labels=[[2, 0]], logits=logits), op, "rank")
    raises(ValueError, lambda: f(labels=[2, 0, 1], logits=logits), op, "shape")
    raises(ValueError, lambda: f(labels=[], logits=T(np.float32(1))), op, "scalar")
    raises(InvalidArgumentError, lambda: f(labels=T(np.array([2.0, 0.0], np.float32)),
                                           logits=logits), op, "labels")
    raises(InvalidArgumentError, lambda: f(labels=T(np.array([2, 0], np.int8)),
                                           logits=logits), op, "labels")
    raises(InvalidArgumentError, lambda: f(labels=[2, 0], logits=[[1, 2, 3], [1, 2, 3]]), op,
           "logits")
    raises(InvalidArgumentError, lambda: f(labels=[0], logits=T(np.ones((1, 0), np.float32))),
           op, "class")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@given(shape=shapes(min_dims=1, max_dims=3, min_side=1, max_side=5), data=st.data())
@settings(max_examples=10)
def test_softmax_xent(dtype, shape, data):
    rng = np.random.default_rng(len(shape))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    logits = rand(rng, shape, dtype, -10, 10)
    lshape = list(shape)
    if data.draw(st.booleans()):  # labels broadcast along one non-class axis
        lshape[data.draw(st.integers(0, len(shape) - 1))] = 1
        lshape[axis] = shape[axis]
    labels = rng.random(lshape)
    labels = (labels / labels.sum(axis=axis, keepdims=True)).astype(dtype)
    expect = -(f64(labels) * ref_log_softmax(logits, axis)).sum(axis=axis)
    got = tf.nn.softmax_cross_entropy_with_logits(labels=T(labels), logits=T(logits),
                                                  axis=axis)
    assert got.dtype == tf.as_dtype(dtype)
    close_acc(got.numpy(), expect, dtype, 20.0)


def test_softmax_xent_details():
    f = tf.nn.softmax_cross_entropy_with_logits
    logits = T(np.array([[1e4, -1e4, 0]], np.float32))
    np.testing.assert_allclose(f(labels=[[1.0, 0, 0]], logits=logits).numpy(), [0])
    np.testing.assert_allclose(f(labels=[[0.0, 0.5, 0.5]], logits=logits).numpy(), [1.5e4])
    # labels of another float type are cast to the logits' type, as TF does
    got = f(labels=T(np.array([[0.0, 1, 0]])), logits=logits)
    assert got.dtype == tf.float32
    np.testing.assert_allclose(got.numpy(), [2e4])
    op = "softmax_cross_entropy_with_logits"
    x = T(np.ones((2, 3), np.float32))
    raises(InvalidArgumentError, lambda: f(labels=T(np.ones((2, 2), np.float32)), logits=x),
           op, "broadcastable")
    raises(InvalidArgumentError, lambda: f(labels=[[0, 1]], logits=[[1, 2]]), op, "int32")
    raises(InvalidArgumentError, lambda: f(labels=x, logits=x, axis=2), op, "axis")
    raises(InvalidArgumentError, lambda: f(labels=1.0, logits=1.0), op, "scalar")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_sigmoid_xent(dtype):
    rng = np.random.default_rng(7)
    logits = np.concatenate([rand(rng, (40,), dtype, -20, 20),
                             np.array([-100, 100, 0, -60, 60]).astype(dtype)])
    labels = rng.random(logits.shape).astype(dtype)
    x, z = f64(logits), f64(labels)
    # Reference: the textbook -z log(sigmoid(x)) - (1-z) log(1-sigmoid(x)) in log-space form.
    expect = z * np.logaddexp(0, -x) + (1 - z) * np.logaddexp(0, x)
    got = tf.nn.sigmoid_cross_entropy_with_logits(labels=T(labels), logits=T(logits))
    assert got.dtype == tf.as_dtype(dtype)
    assert np.all(np.isfinite(got.numpy().astype(np.float64)))
    # composed of several ops, each rounding once: error scales with |x| + |x * z|
    close_acc(got.numpy(), expect, dtype, np.abs(x) * (1 + np.abs(z)))


def test_sigmoid_xent_errors():
    op = "sigmoid_cross_entropy_with_logits"
    f = tf.nn.sigmoid_cross_entropy_with_logits
    raises(ValueError, lambda: f(labels=[0.0, 1], logits=[-1.0, 1, 3]), op, "same shape")
    raises(ValueError, lambda: f(labels=[[0.0, 1]], logits=[[1.0, 2], [3, 4]]), op)
    raises(ValueError, lambda: f(logits=[1.0]), op)
    raises(InvalidArgumentError, lambda: f(labels=[0, 1], logits=[1, 2]), op, "int32")
    raises(InvalidArgumentError, lambda: f(labels=T(np.array([0.0, 1])),
                                           logits=T(np.array([-1.0, 1], np.float32))), op,
           "float64")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@given(shape=shapes(max_dims=3), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=10)
def test_l2_loss(dtype, shape, seed):
    t = rand(np.random.default_rng(seed), shape, dtype)
    got = tf.nn.l2_loss(T(t))
    assert got.dtype == tf.as_dtype(dtype) and got.shape == ()
    close_acc(got.numpy(), (f64(t) ** 2).sum() / 2, dtype)


def test_l2_loss_errors():
    raises(InvalidArgumentError, lambda: tf.nn.l2_loss(T(np.array([1, 2], np.int32))),
           "l2_loss")


# --- compositions: moments, batch_normalization, l2_normalize --------------------------------
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@given(shape=shapes(min_dims=1, max_dims=4, min_side=1), data=st.data())
@settings(max_examples=10)
def test_moments(dtype, shape, data):
    axes = data.draw(st.lists(st.integers(0, len(shape) - 1), unique=True, min_size=1))
    axes = [a - len(shape) if data.draw(st.booleans()) else a for a in axes]
    keepdims = data.draw(st.booleans())
    x = rand(np.random.default_rng(len(shape)), shape, dtype)
    mean, var = tf.nn.moments(T(x), axes, keepdims=keepdims)
    ax = tuple(a % len(shape) for a in axes)
    emean = f64(x).mean(axis=ax, keepdims=keepdims)
    evar = f64(x).var(axis=ax, keepdims=keepdims)
    assert mean.dtype == tf.as_dtype(dtype) and var.dtype == tf.as_dtype(dtype)
    close_acc(mean.numpy(), emean, dtype, 3.0)
    close_acc(var.numpy(), evar, dtype, 9.0)


def test_moments_details():
    x = T(np.array([[1.0, 2], [3, 5]], np.float32))
    mean, var = tf.nn.moments(x, 0)
    np.testing.assert_allclose(mean.numpy(), [2, 3.5])
    np.testing.assert_allclose(var.numpy(), [1, 2.25])
    mean, var = tf.nn.moments(x, [])
    np.testing.assert_array_equal(var.numpy(), np.zeros((2, 2)))
    # float16 is computed in float32: these squares overflow float16 on their own.
    h = T(np.array([300.0, 310.0], np.float16))
    np.testing.assert_allclose(tf.nn.moments(h, [0])[1].numpy().astype(float), 25.0)
    raises(InvalidArgumentError, lambda: tf.nn.moments(x, [2]), "moments", "dimension")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch_normalization(dtype):
    rng = np.random.default_rng(8)
    x = rand(rng, (4, 3, 5), dtype)
    m, v = rand(rng, (5,), dtype), rand(rng, (5,), dtype, 0.1, 2)
    off, sc = rand(rng, (5,), dtype), rand(rng, (5,), dtype)
    got = tf.nn.batch_normalization(T(x), T(m), T(v), T(off), T(sc), 1e-3)
    expect = (f64(x) - f64(m)) / np.sqrt(f64(v) + 1e-3) * f64(sc) + f64(off)
    close_acc(got.numpy(), expect, dtype, 10.0)
    got = tf.nn.batch_normalization(T(x), T(m), T(v), None, None, 1e-3)
    close_acc(got.numpy(), (f64(x) - f64(m)) / np.sqrt(f64(v) + 1e-3), dtype, 10.0)
    # Python-number statistics (TF computes their inverse in float32)
    got = tf.nn.batch_normalization(T(np.ones((2, 3), np.float32)), 0.5, 2.0, 1.0, 3.0, 1e-3)
    np.testing.assert_allclose(got.numpy(), 0.5 * 3 / math.sqrt(2.001) + 1, rtol=1e-6)
    raises(InvalidArgumentError, lambda: tf.nn.batch_normalization(
        T(np.ones((2, 3), np.float32)), T(np.ones(3)), T(np.ones(3, np.float32)), None, None,
        1e-3))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@given(shape=shapes(min_dims=1, max_dims=3, min_side=1), data=st.data())
@settings(max_examples=10)
def test_l2_normalize(dtype, shape, data):
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    x = rand(np.random.default_rng(len(shape)), shape, dtype)
    ax = None if axis is None else axis % len(shape)
    norm = np.sqrt(np.maximum((f64(x) ** 2).sum(axis=ax, keepdims=True), 1e-12))
    got = tf.nn.l2_normalize(T(x), axis=axis)
    assert got.dtype == tf.as_dtype(dtype)
    # square, sum, rsqrt and multiply each round once in the half types
    mult = 3 if np.dtype(dtype).itemsize == 2 else 1
    close_acc(got.numpy(), f64(x) / norm, dtype, mult=mult)
    close_acc(tf.math.l2_normalize(T(x), dim=axis).numpy(), f64(x) / norm, dtype, mult=mult)


def test_l2_normalize_details():
    got = tf.nn.l2_normalize(T(np.array([[3.0, 4], [0, 0]], np.float32)), axis=1)
    np.testing.assert_allclose(got.numpy(), [[0.6, 0.8], [0, 0]], rtol=1e-6)
    raises(TypeError, lambda: tf.nn.l2_normalize(T(np.array([3, 4], np.int32))),
           "l2_normalize")
    raises(InvalidArgumentError, lambda: tf.nn.l2_normalize(T(np.ones((2, 2), np.float32)),
                                                            axis=2), "l2_normalize")
    raises(ValueError, lambda: tf.nn.l2_normalize(T(np.ones(2, np.float32)), 0, dim=0),
           "l2_normalize")


# --- dropout --------------------------------------------------------------------------------
needs_uniform = pytest.mark.skipif(not hasattr(tf.random, "uniform"),
                                   reason="flowjit.random.uniform (random family) is missing")


@needs_uniform
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_dropout_statistics(dtype):
    x = rand(np.random.default_rng(9), (200, 100), dtype, 1, 3)
    rate = 0.3
    got = tf.nn.dropout(T(x), rate, seed=4)
    assert got.dtype == tf.as_dtype(dtype) and got.shape == x.shape
    out = got.numpy().astype(np.float64)
    dropped = out == 0
    assert abs(dropped.mean() - rate) < 0.02  # 20000 draws: 6+ standard deviations
    scale = np.asarray(1 / (1 - rate)).astype(dtype)
    np.testing.assert_array_equal(out[~dropped], (x * scale).astype(np.float64)[~dropped])


@needs_uniform
def test_dropout_noise_shape_and_rates():
    x = T(np.ones((50, 40), np.float32))
    out = tf.nn.dropout(x, 0.5, noise_shape=[50, 1], seed=1).numpy()
    assert np.all((out == out[:, :1]))  # one draw per row, broadcast along it
    assert set(np.unique(out)) <= {0.0, 2.0}
    out = tf.nn.dropout(x, 0.5, noise_shape=[None, 1], seed=1).numpy()
    assert np.all((out == out[:, :1]))
    out = tf.nn.dropout(x, 0.5, noise_shape=[40]).numpy()  # broadcast along rows
    assert np.all(out == out[:1])
    out = tf.nn.dropout(x, T(np.float32(0.75))).numpy()
    assert set(np.unique(out)) <= {0.0, 4.0}
    np.testing.assert_array_equal(tf.nn.dropout(x, 0).numpy(), np.ones((50, 40)))
    tf.random.set_seed(3)
    a = tf.nn.dropout(x, 0.5, seed=2).numpy()
    tf.random.set_seed(3)
    np.testing.assert_array_equal(tf.nn.dropout(x, 0.5, seed=2).numpy(), a)


def test_dropout_errors():
    x = T(np.ones((4, 5), np.float32))
    for rate in [1.0, -0.1, 1.5]:
        raises(ValueError, lambda: tf.nn.dropout(x, rate), "dropout", "[0, 1)")
    raises(ValueError, lambda: tf.nn.dropout(T(np.ones(3, np.int32)), 0.5), "dropout",
           "floating")
    raises(ValueError, lambda: tf.nn.dropout(x, "a"), "dropout", "rate")
    raises(ValueError, lambda: tf.nn.dropout(x, T(np.float64(0.5))), "dropout", "rate.dtype")
    raises(ValueError, lambda: tf.nn.dropout(x, T(np.array([0.5], np.float32))), "dropout")
    raises(InvalidArgumentError, lambda: tf.nn.dropout(x, 0.5, noise_shape=[3, 1]),
           "dropout", "broadcastable")


X34 = np.arange(1, 13, dtype=np.float32).reshape(3, 4)


def test_general_dropout_takes_its_samples_from_the_sampler():
    """TF 2.21's value: samples i/12 kept where >= 0.5, scaled by 2."""
    got = tf.nn.experimental.general_dropout(
        tf.constant(X34), 0.5, lambda shape, dtype: tf.reshape(tf.range(12, dtype=dtype),
                                                               shape) / 12.)
    np.testing.assert_array_equal(got.numpy(), [[0, 0, 0, 0], [0, 0, 14, 16], [18, 20, 22, 24]])


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
def test_stateless_dropout_is_the_seeds_uniform_mask_in_every_mode(mode):
    """The mask is stateless_uniform(seed) >= rate (TF's composition; the draws are flowjit's
    stream: README), the same in every mode; a noise shape entry may be a run-time dim."""
    seed = tf.constant([1, 2])
    draws = tf.random.stateless_uniform([3, 4], seed).numpy()
    want = np.where(draws >= 0.25, X34 / np.float32(0.75), 0)
    rows = tf.random.stateless_uniform([3, 1], seed).numpy()
    want_rows = np.where(rows >= 0.5, X34 * 2, 0)

    def f(x):
        return (tf.nn.experimental.stateless_dropout(x, 0.25, seed=seed),
                tf.nn.experimental.stateless_dropout(x, 0.5, seed=seed,
                                                     noise_shape=[tf.shape(x)[0], 1]))
    if mode != "eager":
        f = tf.function(f, jit_compile=mode == "xla",
                        input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    got, got_rows = f(tf.constant(X34))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(got_rows.numpy(), want_rows, rtol=1e-6)
    assert 0 < (want == 0).sum() < 12 and 0 < (want_rows == 0).sum() < 12


def test_stateless_dropout_errors_are_tfs():
    x = tf.constant(X34)
    with pytest.raises(ValueError, match=re.escape(
            "`rate` must be a scalar tensor or a float in the range [0, 1). Received: "
            "rate=1.0")):
        tf.nn.experimental.stateless_dropout(x, 1.0, seed=[1, 2])
    with pytest.raises(ValueError, match=re.escape(
            "`x.dtype` must be a floating point tensor as `x` will be scaled. Received: "
            "x_dtype=<dtype: 'int32'>")):
        tf.nn.experimental.stateless_dropout(tf.constant([1, 2]), 0.5, seed=[1, 2])


# --- registry, inference with unknown dims, exports ------------------------------------------
def test_every_nn_op_has_kernel_and_api():
    ops = [o for o in registry.OPS.values() if o.family == "nn"]
    assert ops
    for o in ops:
        assert o.name in KERNELS, o.name
        ns, _, public = api_for_op(o.name).rpartition(".")
        assert hasattr(getattr(tf, ns) if ns else tf, public), o.name


def _infer(name, types, **attrs):
    opdef = registry.get(name)
    return registry.infer_types(opdef, types, opdef.resolve_attrs(attrs))[0]


def test_inference_unknown_dims():
    f32 = tf.float32
    conv = dict(strides=(2, 2), padding="SAME", dilations=(1, 1))
    out = _infer("conv2d", [TT(f32, (None, 7, None, 3)), TT(f32, (3, 3, 3, 8))], **conv)
    assert out == TT(f32, (None, 4, None, 8))
    out = _infer("conv2d", [TT(f32, None), TT(f32, (3, 3, 3, 8))], **conv)
    assert out.shape is None
    out = _infer("conv2d", [TT(f32, (2, 7, 7, None)), TT(f32, None)], strides=(1, 1),
                 padding="VALID")
    assert out == TT(f32, (2, None, None, None))
    out = _infer("depthwise_conv2d", [TT(f32, (None, 5, 5, None)), TT(f32, (3, 3, 4, 2))],
                 **conv)
    assert out == TT(f32, (None, 3, 3, 8))
    out = _infer("max_pool", [TT(f32, (None, None, 6, 3))], ksize=(2, 2), strides=(2, 2),
                 padding="VALID")
    assert out == TT(f32, (None, None, 3, 3))
    assert _infer("softmax", [TT(f32, None)]).shape is None
    out = _infer("sparse_softmax_cross_entropy_with_logits",
                 [TT(f32, (None, 10)), TT(tf.int32, (4,))])
    assert out == TT(f32, (4,))
    out = _infer("softmax_cross_entropy_with_logits", [TT(f32, (None, 3, 5)),
                                                       TT(f32, (2, 1, 5))], axis=1)
    assert out == TT(f32, (2, 5))
    assert _infer("bias_add", [TT(f32, (None, 3)), TT(f32, (None,))]) == TT(f32, (None, 3))
    out = _infer("conv2d_transpose", [TT(f32, (None, 4, 4, 3)), TT(f32, (3, 3, 5, 3))],
                 output_shape=(2, 8, 8, 5), **conv)
    assert out == TT(f32, (2, 8, 8, 5))
    with pytest.raises(registry.InferenceError):
        _infer("conv2d", [TT(f32, (None, 7, 7, 4)), TT(f32, (3, 3, 3, 8))], **conv)


# The (input, output_dtype) pairs TF 2.21's IsotonicRegression runs, measured by calling
# tf.raw_ops.IsotonicRegression on every pair of its allowed dtypes; every other pair is
# NotFoundError there ("Could not find device for node").
_ISOTONIC_TF_KERNELS = {("float16", "float16"), ("bfloat16", "bfloat16"),
                        ("float32", "float32"), ("float64", "float64"),
                        ("int8", "float32"), ("int16", "float32"),
                        ("int32", "float64"), ("int64", "float64")}


@pytest.mark.parametrize("src", ["float16", "bfloat16", "float32", "float64",
                                 "int8", "int16", "int32", "int64"])
@pytest.mark.parametrize("out", ["float16", "bfloat16", "float32", "float64"])
def test_isotonic_regression_kernel_dtypes(src, out):
    """Only TF's pairs run: a half input with a float32 output had a float32 gradient that
    no float16 gradient could be added to."""
    opdef, types = registry.get("isotonic_regression"), [TT(getattr(tf, src), (None, 3))]
    attrs = {"output_dtype": getattr(tf, out)}
    if (src, out) in _ISOTONIC_TF_KERNELS:
        assert registry.infer_types(opdef, types, attrs)[0].dtype is getattr(tf, out)
    else:
        with pytest.raises(registry.InferenceError, match="no kernel for input"):
            registry.infer_types(opdef, types, attrs)
    public = tf.nn.isotonic_regression(tf.cast(tf.constant([[3, 1, 2]]), getattr(tf, src)))
    assert (src, public.output.dtype.name) in _ISOTONIC_TF_KERNELS
