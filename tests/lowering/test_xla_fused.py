"""Fused ops through XLA: `apply` records them in a trace like any op, so a jit_compile=True
function runs their StableHLO rules. Compared with eager (the NumPy kernels) and with a
NumPy reference. The rules emit what the unfused ops' rules emit, so float32 agrees with the
kernels to XLA's usual last-ulp differences (rtol 1e-5 for transcendental activations)."""
import math

import ml_dtypes
import numpy as np
import pytest

import flowjit as tf
from flowjit.frontend.eager.dispatch import apply
from flowjit.ir.ops.fused import ACTIVATIONS
from flowjit.ir.registry import OPS
from flowjit.lowering.stablehlo import RULES
from helpers import assert_close, rand

MM_DEFAULTS = {"transpose_a": False, "transpose_b": False, "output_type": None,
               "activation": "", "alpha": 0.2}
CONV_DEFAULTS = {"strides": (1, 1), "padding": "VALID", "explicit_paddings": (),
                 "data_format": "NHWC", "dilations": (1, 1), "activation": "", "alpha": 0.2}
_erf = np.vectorize(math.erf)
REF_ACT = {
    "": lambda x: x, "relu": lambda x: np.maximum(x, 0), "relu6": lambda x: np.clip(x, 0, 6),
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "selu": lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
    "leaky_relu": lambda x: np.where(x > 0, x, 0.25 * x),
    "gelu": lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2))),
    "gelu_approximate": lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                                         (x + 0.044715 * x ** 3))),
    "tanh": np.tanh, "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
}


def test_every_fused_op_has_a_rule():
    for name, opdef in OPS.items():
        if opdef.family == "fused":
            assert f"df.{name}" in RULES, name


def _modes(opname, attrs, *arrays):
    """(eager, XLA) results of one fused op."""
    def f(*xs):
        return apply(opname, xs, attrs)
    ts = [tf.constant(a) for a in arrays]
    eager = f(*ts).numpy()
    xla = tf.function(f, jit_compile=True)(*ts).numpy()
    return eager, xla


@pytest.mark.parametrize("act", sorted(ACTIVATIONS))
def test_fused_matmul_activations_f32(act):
    rng = np.random.default_rng(0)
    a, b, bias = rand(rng, (5, 4), np.float32), rand(rng, (4, 3), np.float32), \
        rand(rng, (3,), np.float32)
    eager, xla = _modes("fused_matmul", dict(MM_DEFAULTS, activation=act, alpha=0.25),
                        a, b, bias)
    assert xla.dtype == np.float32 and xla.shape == (5, 3)
    assert_close(xla, eager, rtol=1e-5, atol=1e-6)
    ref = REF_ACT[act](a.astype(np.float64) @ b + bias)
    assert_close(xla, ref.astype(np.float32), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype,act", [(np.float64, "gelu"), (np.float16, "elu"),
                                       (ml_dtypes.bfloat16, "relu"), (np.int32, "relu6")])
def test_fused_matmul_dtypes_transposed_batched(dtype, act):
    rng = np.random.default_rng(1)
    a, b, bias = rand(rng, (2, 4, 3), dtype), rand(rng, (5, 4), dtype), rand(rng, (5,), dtype)
    attrs = dict(MM_DEFAULTS, transpose_a=True, transpose_b=True, activation=act)
    eager, xla = _modes("fused_matmul", attrs, a, b, bias)
    assert xla.dtype == np.dtype(dtype) and xla.shape == (2, 3, 5)
    dt = np.dtype(dtype)
    if dt.kind == "i":
        np.testing.assert_array_equal(xla, eager)
    else:
        # half types: the product rounds once to the input type, like the kernel
        assert_close(xla, eager, dtype=dt, rtol={np.dtype(np.float64): 1e-12}.get(dt, 1e-2))


def test_fused_matmul_int8_to_int32():
    rng = np.random.default_rng(2)
    a, b = rand(rng, (3, 4), np.int8), rand(rng, (4, 2), np.int8)
    bias = rand(rng, (2,), np.int32)
    eager, xla = _modes("fused_matmul", dict(MM_DEFAULTS, output_type=tf.int32), a, b, bias)
    np.testing.assert_array_equal(xla, eager)
    np.testing.assert_array_equal(xla, a.astype(np.int32) @ b.astype(np.int32) + bias)


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
@pytest.mark.parametrize("act", ["", "relu", "leaky_relu", "tanh"])
def test_fused_conv2d(fmt, act):
    rng = np.random.default_rng(3)
    x = rand(rng, (2, 6, 5, 3) if fmt == "NHWC" else (2, 3, 6, 5), np.float32)
    w, bias = rand(rng, (3, 2, 3, 4), np.float32), rand(rng, (4,), np.float32)
    attrs = dict(CONV_DEFAULTS, strides=(2, 1), padding="EXPLICIT",
                 explicit_paddings=(1, 1, 0, 1), dilations=(1, 2), data_format=fmt,
                 activation=act, alpha=0.25)
    eager, xla = _modes("fused_conv2d", attrs, x, w, bias)
    assert xla.shape == eager.shape
    assert_close(xla, eager, rtol=1e-5, atol=1e-5)


def test_fused_conv2d_same_batch_dims_and_empty():
    rng = np.random.default_rng(4)
    x = rand(rng, (2, 2, 5, 5, 2), np.float32)
    w, bias = rand(rng, (3, 3, 2, 3), np.float32), rand(rng, (3,), np.float32)
    eager, xla = _modes("fused_conv2d", dict(CONV_DEFAULTS, padding="SAME", activation="relu"),
                        x, w, bias)
    assert xla.shape == (2, 2, 5, 5, 3)
    assert_close(xla, eager, rtol=1e-5, atol=1e-5)
    eager, xla = _modes("fused_conv2d", dict(CONV_DEFAULTS, activation="sigmoid"),
                        np.zeros((0, 4, 4, 2), np.float32), w, bias)
    assert xla.shape == eager.shape == (0, 2, 2, 3)


def test_fused_nan_inf_match_eager():
    a = np.array([[np.inf, 1.0], [np.nan, -0.0], [-np.inf, 2.0]], np.float32)
    b = np.array([[1.0, -1.0], [0.0, 2.0]], np.float32)
    bias = np.array([0.0, -np.inf], np.float32)
    eager, xla = _modes("fused_matmul", dict(MM_DEFAULTS, activation="relu"), a, b, bias)
    np.testing.assert_array_equal(xla, eager)   # NaN positions equal too
