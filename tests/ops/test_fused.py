"""Fused ops (created by the remapper, no public API): the NumPy kernels against independent
NumPy references, run through eager dispatch (`apply`), and their inference errors."""
import math

import ml_dtypes
import numpy as np
import pytest

import flowjit as tf
from flowjit.errors import InvalidArgumentError
from flowjit.frontend.eager.dispatch import apply
from flowjit.ir.ops.fused import ACTIVATIONS
from helpers import assert_close, rand

_erf = np.vectorize(math.erf)

# Independent references, computed in float64 and rounded once.
REF_ACT = {
    "": lambda x, a: x,
    "relu": lambda x, a: np.maximum(x, 0),
    "relu6": lambda x, a: np.clip(x, 0, 6),
    "elu": lambda x, a: np.where(x > 0, x, np.exp(x) - 1),
    "selu": lambda x, a: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 *
                                                        (np.exp(x) - 1)),
    "leaky_relu": lambda x, a: np.where(x > 0, x, a * x),
    "gelu": lambda x, a: 0.5 * x * (1 + _erf(x / math.sqrt(2))),
    "gelu_approximate": lambda x, a: 0.5 * x * (1 + np.tanh(
        math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))),
    "tanh": lambda x, a: np.tanh(x),
    "sigmoid": lambda x, a: 1 / (1 + np.exp(-x)),
}
FLOATS = [np.float32, np.float64, np.float16, ml_dtypes.bfloat16]
RTOL = {np.dtype(np.float32): 2e-6, np.dtype(np.float64): 1e-12,
        np.dtype(np.float16): 2e-3, np.dtype(ml_dtypes.bfloat16): 2e-2}


def test_activation_table_matches_references():
    assert set(ACTIVATIONS) == set(REF_ACT)


def _ref_matmul(a, b, bias, ta, tb, act, alpha):
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if ta:
        a64 = np.swapaxes(a64, -1, -2)
    if tb:
        b64 = np.swapaxes(b64, -1, -2)
    return REF_ACT[act](a64 @ b64 + bias.astype(np.float64), alpha)


def _fused_matmul(a, b, bias, **attrs):
    full = {"transpose_a": False, "transpose_b": False, "output_type": None,
            "activation": "", "alpha": 0.2}
    full.update(attrs)
    return apply("fused_matmul", (tf.constant(a), tf.constant(b), tf.constant(bias)), full)


@pytest.mark.parametrize("act", sorted(ACTIVATIONS))
@pytest.mark.parametrize("dtype", FLOATS)
def test_fused_matmul_activations(act, dtype):
    rng = np.random.default_rng(len(act))
    a, b, bias = rand(rng, (4, 3), dtype), rand(rng, (3, 5), dtype), rand(rng, (5,), dtype)
    got = _fused_matmul(a, b, bias, activation=act, alpha=0.3)
    assert got.dtype == tf.as_dtype(np.dtype(dtype)) and got.shape == (4, 5)
    dt = np.dtype(dtype)
    assert_close(got.numpy(), _ref_matmul(a, b, bias, False, False, act, 0.3).astype(dt),
                 dtype=dt, rtol=RTOL[dt], atol=RTOL[dt])


@pytest.mark.parametrize("ta,tb", [(False, True), (True, False), (True, True)])
def test_fused_matmul_transposes_and_batch(ta, tb):
    rng = np.random.default_rng(1)
    a = rand(rng, (2, 3, 4) if ta else (2, 4, 3), np.float64)
    b = rand(rng, (1, 5, 3) if tb else (1, 3, 5), np.float64)   # the batch dim broadcasts
    bias = rand(rng, (5,), np.float64)
    got = _fused_matmul(a, b, bias, transpose_a=ta, transpose_b=tb, activation="relu")
    assert got.shape == (2, 4, 5)
    assert_close(got.numpy(), _ref_matmul(a, b, bias, ta, tb, "relu", 0.2), rtol=1e-12)


def test_fused_matmul_ints_and_int8_to_int32():
    rng = np.random.default_rng(2)
    a, b, bias = rand(rng, (3, 4), np.int32), rand(rng, (4, 2), np.int32), \
        rand(rng, (2,), np.int32)
    got = _fused_matmul(a, b, bias, activation="relu6")
    np.testing.assert_array_equal(got.numpy(), np.clip(a.astype(np.int64) @ b + bias, 0, 6))
    a8, b8 = rand(rng, (3, 4), np.int8), rand(rng, (4, 2), np.int8)
    got = _fused_matmul(a8, b8, bias, output_type=tf.int32)
    assert got.dtype == tf.int32
    np.testing.assert_array_equal(got.numpy(), a8.astype(np.int64) @ b8.astype(np.int64) + bias)


def test_fused_matmul_nan_inf_and_zero_size():
    a = np.array([[np.inf, 1.0], [np.nan, -0.0]], np.float32)
    b = np.array([[1.0, -1.0], [0.0, 2.0]], np.float32)
    bias = np.array([0.0, -np.inf], np.float32)
    got = _fused_matmul(a, b, bias, activation="relu").numpy()
    with np.errstate(invalid="ignore"):      # inf * 0 in the reference product
        ref = np.maximum(a.astype(np.float64) @ b + bias, 0)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_array_equal(got[~np.isnan(got)], ref[~np.isnan(ref)])
    empty = _fused_matmul(np.zeros((0, 3), np.float32), np.ones((3, 2), np.float32),
                          np.ones((2,), np.float32), activation="tanh")
    assert empty.shape == (0, 2)


# --- conv --------------------------------------------------------------------------------------
def _ref_conv_nhwc(x, w, stride, pads, dil):
    """Direct definition: out[n, i, j, o] = sum x[n, i*s + di*d - pad, ...] w[di, dj, c, o]."""
    x = np.pad(x.astype(np.float64), ((0, 0), pads[0], pads[1], (0, 0)))
    kh, kw, cin, cout = w.shape
    n, h, wd, _ = x.shape
    ho = (h - (kh - 1) * dil[0] - 1) // stride[0] + 1
    wo = (wd - (kw - 1) * dil[1] - 1) // stride[1] + 1
    out = np.zeros((n, ho, wo, cout))
    for i in range(ho):
        for j in range(wo):
            for di in range(kh):
                for dj in range(kw):
                    out[:, i, j, :] += x[:, i * stride[0] + di * dil[0],
                                         j * stride[1] + dj * dil[1], :] @ w[di, dj]
    return out


def _fused_conv(x, w, bias, **attrs):
    full = {"strides": (1, 1), "padding": "VALID", "explicit_paddings": (),
            "data_format": "NHWC", "dilations": (1, 1), "activation": "", "alpha": 0.2}
    full.update(attrs)
    return apply("fused_conv2d", (tf.constant(x), tf.constant(w), tf.constant(bias)), full)


@pytest.mark.parametrize("act", ["", "relu", "elu", "leaky_relu", "sigmoid"])
@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_fused_conv2d(act, fmt):
    rng = np.random.default_rng(3)
    x = rand(rng, (2, 6, 5, 3), np.float64)
    w = rand(rng, (3, 2, 3, 4), np.float64)
    bias = rand(rng, (4,), np.float64)
    ref = REF_ACT[act](_ref_conv_nhwc(x, w, (2, 1), ((1, 1), (0, 1)), (1, 2)) + bias, 0.1)
    xin = x if fmt == "NHWC" else x.transpose(0, 3, 1, 2)
    got = _fused_conv(xin, w, bias, strides=(2, 1), padding="EXPLICIT",
                      explicit_paddings=(1, 1, 0, 1), dilations=(1, 2), data_format=fmt,
                      activation=act, alpha=0.1).numpy()
    if fmt == "NCHW":
        got = got.transpose(0, 2, 3, 1)
    assert_close(got, ref, rtol=1e-12)


def test_fused_conv2d_same_padding_float32_and_batch_dims():
    rng = np.random.default_rng(4)
    x = rand(rng, (2, 2, 5, 5, 2), np.float32)        # two leading batch dims
    w = rand(rng, (3, 3, 2, 3), np.float32)
    bias = rand(rng, (3,), np.float32)
    got = _fused_conv(x, w, bias, padding="SAME", activation="relu").numpy()
    ref = np.maximum(_ref_conv_nhwc(x.reshape(4, 5, 5, 2), w, (1, 1), ((1, 1), (1, 1)),
                                    (1, 1)) + bias, 0).reshape(2, 2, 5, 5, 3)
    assert got.dtype == np.float32
    assert_close(got, ref.astype(np.float32), rtol=2e-6, atol=2e-6)


def test_fused_conv2d_int32():
    rng = np.random.default_rng(5)
    x, w = rand(rng, (1, 4, 4, 2), np.int32), rand(rng, (2, 2, 2, 3), np.int32)
    bias = rand(rng, (3,), np.int32)
    got = _fused_conv(x, w, bias, activation="relu").numpy()
    ref = np.maximum(_ref_conv_nhwc(x, w, (1, 1), ((0, 0), (0, 0)), (1, 1)) + bias, 0)
    np.testing.assert_array_equal(got, ref.astype(np.int32))


# --- inference errors -----------------------------------------------------------------------
@pytest.mark.parametrize("bias,attrs,msg", [
    (np.ones(4, np.float32), {}, "bias has 4 elements for 5 channels"),
    (np.ones((1, 5), np.float32), {}, "bias must be 1-D"),
    (np.ones(5, np.float64), {}, "bias has dtype float64"),
    (np.ones(5, np.float32), {"activation": "swish"}, "unknown fused activation 'swish'"),
])
def test_fused_matmul_bad_inputs(bias, attrs, msg):
    a, b = np.ones((4, 3), np.float32), np.ones((3, 5), np.float32)
    with pytest.raises(InvalidArgumentError, match=msg) as e:
        _fused_matmul(a, b, bias, **attrs)
    assert "fused_matmul" in str(e.value)


def test_fused_errors_from_the_unfused_ops():
    with pytest.raises(InvalidArgumentError, match="Matrix size-incompatible") as e:
        _fused_matmul(np.ones((4, 3), np.float32), np.ones((2, 5), np.float32),
                      np.ones(5, np.float32))
    assert "fused_matmul" in str(e.value)
    # elu is a float activation: an int32 product cannot take it
    with pytest.raises(InvalidArgumentError, match="int32") as e:
        _fused_matmul(np.ones((4, 3), np.int32), np.ones((3, 5), np.int32),
                      np.ones(5, np.int32), activation="elu")
    assert "fused_matmul" in str(e.value)
    with pytest.raises(InvalidArgumentError, match="bias has 2 elements for 3 channels") as e:
        _fused_conv(np.ones((1, 3, 3, 2), np.float32), np.ones((1, 1, 2, 3), np.float32),
                    np.ones(2, np.float32))
    assert "fused_conv2d" in str(e.value)
    with pytest.raises(InvalidArgumentError, match="padding") as e:
        _fused_conv(np.ones((1, 3, 3, 2), np.float32), np.ones((1, 1, 2, 3), np.float32),
                    np.ones(3, np.float32), padding="FULL")
    assert "fused_conv2d" in str(e.value)


def test_fused_ops_have_no_public_api():
    from flowjit.extend import api_for_op
    from flowjit.ir.registry import OPS
    assert [n for n, d in OPS.items() if d.internal] == ["fused_matmul", "fused_conv2d"]
    assert api_for_op("fused_matmul") is None and api_for_op("fused_conv2d") is None
    assert not hasattr(tf.nn, "fused_matmul") and not hasattr(tf, "fused_conv2d")
