"""nn family under jit_compile=True: every op against the eager NumPy kernels and, where
cheap, an independent NumPy reference written here.

Tolerances: float32 results use rtol 1e-5 (XLA's exp/log/erfc and its summation order differ
from NumPy's in the last ulps); half types compare XLA with the kernel at the type's usual
tolerance (both compute in float32 and round once, so they differ by at most an ulp).
XLA flushes float32 subnormals to zero, so inputs here avoid them.
"""
import math
import warnings

import ml_dtypes
import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import flowjit as tf
from flowjit.ir.registry import OPS
from flowjit.lowering.stablehlo import RULES
from helpers import RTOL, assert_close, rand
from xla_helpers import x64_mode  # noqa: F401  (a fixture)

BF16 = ml_dtypes.bfloat16
FLOATS = [np.float16, BF16, np.float32, np.float64]
# f32 tolerance for XLA vs NumPy (transcendentals, summation order)
TOL = {np.dtype(np.float16): 2e-3, np.dtype(BF16): 1.6e-2, np.dtype(np.float32): 1e-5,
       np.dtype(np.float64): 1e-12}

# runtime/xla.to_device goes through jax.device_put, which narrows int64/float64 without x64.
pytestmark = pytest.mark.usefixtures("x64_mode")


def run(fn, *arrays):
    """(eager results, jit_compile=True results) of fn on the arrays, as lists of numpy."""
    eager = fn(*[tf.constant(a) for a in arrays])
    jit = tf.function(fn, jit_compile=True)(*[tf.constant(a) for a in arrays])
    if not isinstance(eager, (tuple, list)):
        eager, jit = (eager,), (jit,)
    return [np.asarray(t.numpy()) for t in eager], [np.asarray(t.numpy()) for t in jit]


def check(fn, *arrays, refs=None, tol=None):
    """XLA == eager (dtype and shape exactly, values to tolerance) and XLA ~ refs."""
    eager, jit = run(fn, *arrays)
    for i, (e, j) in enumerate(zip(eager, jit)):
        assert j.dtype == e.dtype and j.shape == e.shape, (i, j.dtype, e.dtype, j.shape, e.shape)
        t = tol if tol is not None else TOL.get(e.dtype)
        assert_close(j, e, rtol=t, atol=t)
        if refs is not None and refs[i] is not None:
            r = max(t or 0, RTOL.get(e.dtype, 0))
            assert_close(j, np.asarray(refs[i]), dtype=e.dtype, rtol=r, atol=r)
    return jit


def f64(a):
    return np.asarray(a, dtype=np.float64)


def test_every_nn_op_has_a_rule():
    names = [n for n, d in OPS.items() if d.family == "nn"]
    assert names
    assert [n for n in names if f"df.{n}" not in RULES] == []


# --- activations --------------------------------------------------------------------------
_SELU = (1.6732632423543772848170429916717, 1.0507009873554804934193349852946)


def _erf(v):
    return np.vectorize(math.erf, otypes=[np.float64])(v)


def _activation_refs(x):
    x = f64(x)
    return [np.maximum(x, 0), np.clip(x, 0, 6), np.where(x > 0, x, 0.3 * x),
            np.where(x > 0, x, np.expm1(x)),
            _SELU[1] * np.where(x > 0, x, _SELU[0] * np.expm1(x)),
            0.5 * x * (1 + _erf(x / np.sqrt(2))),
            0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))]


def _activations(x):
    return (tf.nn.relu(x), tf.nn.relu6(x), tf.nn.leaky_relu(x, alpha=0.3), tf.nn.elu(x),
            tf.nn.selu(x), tf.nn.gelu(x), tf.nn.gelu(x, approximate=True))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_activations(dtype):
    rng = np.random.default_rng(1)
    x = rand(rng, (3, 17), dtype, -7, 7)
    check(_activations, x, refs=_activation_refs(x))


def test_activations_special_values():
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e30, -1e30, 80.0, -80.0, 6.0, 5.9999995,
                  -1e-30, 1e-30], np.float32)
    eager, jit = run(_activations, x)
    for e, j in zip(eager, jit):
        np.testing.assert_array_equal(np.isnan(j), np.isnan(e))
        assert_close(j, e, rtol=1e-5, atol=1e-30)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8],
                         ids=lambda d: np.dtype(d).name)
def test_relu_integers(dtype):
    x = rand(np.random.default_rng(2), (4, 5), dtype, -10, 10)
    out = check(lambda v: (tf.nn.relu(v), tf.nn.relu6(v)), x,
                refs=[np.maximum(x, 0), np.clip(x, 0, 6).astype(dtype)])
    assert out[0].dtype == np.dtype(dtype)


# --- softmax ------------------------------------------------------------------------------
def _np_log_softmax(x, axis):
    x = f64(x)
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape,axis", [((7,), -1), ((3, 4, 5), 1), ((2, 3, 4), 0)])
def test_softmax(dtype, shape, axis):
    x = rand(np.random.default_rng(3), shape, dtype, -20, 20)
    ls = _np_log_softmax(x, axis)
    check(lambda v: (tf.nn.softmax(v, axis=axis), tf.nn.log_softmax(v, axis=axis)), x,
          refs=[np.exp(ls), ls])


def test_softmax_large_and_special():
    # max-shifting: huge logits must not overflow; -inf entries get probability 0
    x = np.array([[1e30, 1e30 - 1e24, -1e30], [1.0, -np.inf, 2.0], [np.nan, 1.0, 2.0]],
                 np.float32)
    out = check(lambda v: (tf.nn.softmax(v), tf.nn.log_softmax(v)), x)
    assert out[0][1, 1] == 0 and np.isneginf(out[1][1, 1])
    assert np.isnan(out[0][2]).all()
    assert np.isfinite(out[0][0]).all()


def test_softmax_zero_size():
    x = np.zeros((0, 3), np.float32)
    check(lambda v: (tf.nn.softmax(v), tf.nn.log_softmax(v, axis=0)), x)


# --- cross entropies, l2_loss ---------------------------------------------------------------
@pytest.mark.parametrize("dtype,ldtype", [(np.float32, np.int32), (np.float64, np.int64),
                                          (np.float16, np.int32), (BF16, np.int64)],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(5,), (4, 6), (2, 3, 7)])
def test_sparse_softmax_xent(dtype, ldtype, shape):
    rng = np.random.default_rng(4)
    logits = rand(rng, shape, dtype, -10, 10)
    labels = rng.integers(0, shape[-1], shape[:-1]).astype(ldtype)
    ls = _np_log_softmax(logits, -1)
    ref = -np.take_along_axis(ls, labels[..., None].astype(np.intp), -1)[..., 0]
    check(lambda lab, z: tf.nn.sparse_softmax_cross_entropy_with_logits(lab, z), labels, logits,
          refs=[ref])


def test_sparse_softmax_xent_out_of_range_is_nan():
    # eager raises; XLA cannot raise on values and gives NaN for those rows, like TF's XLA
    logits = rand(np.random.default_rng(5), (5, 4), np.float32)
    labels = np.array([0, 4, -1, 3, 1 << 30], np.int32)
    fn = tf.function(lambda lab, z: tf.nn.sparse_softmax_cross_entropy_with_logits(lab, z),
                     jit_compile=True)
    out = fn(tf.constant(labels), tf.constant(logits)).numpy()
    np.testing.assert_array_equal(np.isnan(out), [False, True, True, False, True])
    ls = _np_log_softmax(logits, -1)
    assert_close(out[[0, 3]], -ls[[0, 3], [0, 3]], dtype=np.float32, rtol=1e-5, atol=1e-5)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)


def test_sparse_softmax_xent_zero_size():
    check(lambda lab, z: tf.nn.sparse_softmax_cross_entropy_with_logits(lab, z),
          np.zeros((0,), np.int32), np.zeros((0, 3), np.float32))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("zshape,pshape,axis", [((4, 6), (4, 6), -1), ((3, 5, 2), (1, 5, 2), 1),
                                                ((2, 7), (2, 1), 0)])
def test_softmax_xent(dtype, zshape, pshape, axis):
    rng = np.random.default_rng(6)
    logits = rand(rng, zshape, dtype, -8, 8)
    labels = rand(rng, pshape, dtype, 0, 1)
    ref = -(f64(labels) * _np_log_softmax(logits, axis)).sum(axis=axis)
    check(lambda p, z: tf.nn.softmax_cross_entropy_with_logits(p, z, axis=axis), labels,
          logits, refs=[ref])


def test_softmax_xent_zero_classes():
    check(lambda p, z: tf.nn.softmax_cross_entropy_with_logits(p, z),
          np.zeros((3, 0), np.float32), np.zeros((3, 0), np.float32))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(), (6, 7), (0, 3)])
def test_l2_loss(dtype, shape):
    x = rand(np.random.default_rng(7), shape, dtype)
    check(tf.nn.l2_loss, x, refs=[(f64(x) ** 2).sum() / 2])


# --- bias_add -----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype,shape,fmt", [
    (np.float32, (2, 3), None), (np.float32, (2, 3, 4, 5), "NHWC"),
    (np.float16, (2, 3, 4, 5), "NCHW"), (BF16, (2, 3, 4), "NCW"),
    (np.float64, (2, 3, 2, 2, 4), "NDHWC"), (np.int32, (3, 4, 2), "NCHW"),
    (np.int64, (3, 2), None), (np.uint8, (2, 2, 3), "NWC")], ids=str)
def test_bias_add(dtype, shape, fmt):
    rng = np.random.default_rng(8)
    x = rand(rng, shape, dtype, 0, 50)
    axis = 1 if fmt is not None and fmt.startswith("NC") else len(shape) - 1
    b = rand(rng, (shape[axis],), dtype, 0, 50)
    view = [1] * len(shape)
    view[axis] = shape[axis]
    check(lambda v, w: tf.nn.bias_add(v, w, data_format=fmt), x, b,
          refs=[(f64(x) + f64(b).reshape(view)).astype(dtype)])


# --- convolution reference ----------------------------------------------------------------
def _pads(size, k, s, d, padding):
    eff = (k - 1) * d + 1
    if padding == "VALID":
        return 0, 0
    if padding == "SAME":
        out = -(-size // s)
        total = max((out - 1) * s + eff - size, 0)
        return total // 2, total - total // 2
    return padding


def _np_conv(x, w, strides, dilations, padding, groups):
    """NHWC float64 cross-correlation: sliding windows contracted per group."""
    kh, kw, fin, cout = w.shape
    pads = [_pads(x.shape[1 + i], (kh, kw)[i], strides[i], dilations[i],
                  padding if isinstance(padding, str) else padding[i]) for i in range(2)]
    xp = np.pad(f64(x), [(0, 0), pads[0], pads[1], (0, 0)])
    eff = [(k - 1) * d + 1 for k, d in zip((kh, kw), dilations)]
    if any(xp.shape[1 + i] < eff[i] for i in range(2)):
        outs = [max(xp.shape[1 + i] - eff[i], -1) // strides[i] + 1 for i in range(2)]
        return np.zeros((x.shape[0], *outs, cout))
    win = sliding_window_view(xp, eff, axis=(1, 2))
    win = win[:, ::strides[0], ::strides[1], :, ::dilations[0], ::dilations[1]]
    n, ho, wo = win.shape[:3]
    win = win.reshape(n, ho, wo, groups, fin, kh, kw)
    wg = f64(w).reshape(kh, kw, fin, groups, cout // groups)
    return np.einsum("nhwgcij,ijcgo->nhwgo", win, wg).reshape(n, ho, wo, cout)


def _nchw(a):
    return np.ascontiguousarray(np.moveaxis(a, -1, -3))


def _pad_arg(padding, fmt):
    """TF's padding argument: the string, or the list form of spatial pads [(t, b), (l, r)]
    in the layout's order."""
    if isinstance(padding, str):
        return padding
    if fmt == "NCHW":
        return [[0, 0], [0, 0], list(padding[0]), list(padding[1])]
    return [[0, 0], list(padding[0]), list(padding[1]), [0, 0]]


CONV_CASES = [
    # (input NHWC, filter, strides, padding, dilations, format, dtype)
    ((2, 7, 8, 3), (3, 3, 3, 4), (1, 1), "SAME", (1, 1), "NHWC", np.float32),
    ((2, 7, 8, 3), (3, 2, 3, 5), (2, 2), "SAME", (1, 1), "NHWC", np.float32),
    ((1, 9, 7, 2), (3, 3, 2, 4), (2, 1), "VALID", (1, 1), "NHWC", np.float32),
    ((2, 9, 9, 3), (3, 3, 3, 2), (1, 1), "SAME", (2, 2), "NHWC", np.float32),
    ((2, 8, 9, 4), (2, 3, 2, 6), (1, 2), "VALID", (1, 1), "NHWC", np.float32),   # 2 groups
    ((2, 6, 6, 6), (3, 3, 1, 6), (1, 1), "SAME", (1, 1), "NHWC", np.float32),   # 6 groups
    ((2, 6, 7, 3), (3, 3, 3, 4), (2, 2), ((1, 2), (0, 3)), (1, 1), "NHWC", np.float32),
    ((2, 7, 8, 3), (3, 3, 3, 4), (2, 2), "SAME", (1, 1), "NCHW", np.float32),
    ((1, 8, 8, 4), (3, 3, 2, 4), (1, 1), "VALID", (2, 1), "NCHW", np.float64),
    ((2, 5, 6, 3), (2, 2, 3, 4), (1, 1), ((2, 0), (1, 1)), (1, 2), "NCHW", np.float32),
    ((2, 7, 8, 3), (3, 3, 3, 4), (2, 2), "SAME", (1, 1), "NHWC", np.float16),
    ((2, 7, 8, 3), (3, 3, 3, 4), (1, 2), "VALID", (1, 1), "NHWC", BF16),
    ((2, 7, 8, 3), (3, 3, 3, 4), (2, 2), "SAME", (1, 1), "NHWC", np.float64),
    ((2, 6, 5, 4), (3, 3, 2, 4), (1, 1), "SAME", (1, 1), "NHWC", np.int32),
    ((2, 6, 5, 4), (3, 2, 2, 6), (2, 1), ((1, 0), (2, 2)), (1, 2), "NCHW", np.int32),
    ((2, 3, 6, 6, 3), (3, 3, 3, 4), (2, 1), "SAME", (1, 1), "NHWC", np.float32),  # rank 5
    ((3, 2, 5, 4, 3), (1, 1, 3, 2), (1, 1), "VALID", (1, 1), "NCHW", np.float32),
    ((2, 2, 3, 3), (3, 3, 3, 2), (1, 1), "VALID", (1, 1), "NHWC", np.float32),  # no output
    ((0, 4, 4, 3), (3, 3, 3, 2), (1, 1), "SAME", (1, 1), "NHWC", np.float32),   # no batch
]


def _conv_tol(dtype):
    return {np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}.get(np.dtype(dtype))


@pytest.mark.parametrize("xshape,wshape,strides,padding,dilations,fmt,dtype", CONV_CASES,
                         ids=[str(i) for i in range(len(CONV_CASES))])
def test_conv2d(xshape, wshape, strides, padding, dilations, fmt, dtype):
    rng = np.random.default_rng(9)
    x = rand(rng, xshape, dtype, -4, 4)
    w = rand(rng, wshape, dtype, -4, 4)
    lead = xshape[:-3]
    x4 = x.reshape((-1,) + xshape[-3:])
    ref = _np_conv(x4, w, strides, dilations, padding, xshape[-1] // wshape[2])
    ref = ref.reshape(lead + ref.shape[1:])
    xin = _nchw(x) if fmt == "NCHW" else x
    ref = _nchw(ref) if fmt == "NCHW" else ref
    pad = _pad_arg(padding, fmt)
    if np.dtype(dtype).kind == "i":
        ref = ref.astype(np.int64).astype(dtype)  # int32 arithmetic wraps
    scale = np.abs(ref).max() if ref.size else 1
    tol = _conv_tol(dtype)
    out = check(lambda a, b: tf.nn.conv2d(a, b, strides, pad, data_format=fmt,
                                          dilations=dilations),
                xin, w, tol=None if tol is None else tol * scale)
    r = tol if tol is not None else 2 * RTOL.get(np.dtype(dtype), 0)
    assert_close(out[0], ref, dtype=dtype, rtol=r, atol=r * scale)


DEPTHWISE_CASES = [
    ((2, 7, 8, 3), (3, 3, 3, 2), (1, 1), "SAME", (1, 1), "NHWC", np.float32),
    ((2, 7, 8, 4), (3, 2, 4, 1), (2, 2), "VALID", (1, 1), "NHWC", np.float32),
    ((1, 9, 9, 2), (3, 3, 2, 3), (1, 1), "SAME", (2, 2), "NCHW", np.float64),
    ((2, 6, 7, 3), (2, 3, 3, 2), (1, 2), ((1, 1), (2, 0)), (1, 1), "NCHW", np.float32),
    ((2, 6, 6, 3), (3, 3, 3, 2), (2, 2), "SAME", (1, 1), "NHWC", np.float16),
]


@pytest.mark.parametrize("xshape,wshape,strides,padding,dilations,fmt,dtype", DEPTHWISE_CASES,
                         ids=[str(i) for i in range(len(DEPTHWISE_CASES))])
def test_depthwise_conv2d(xshape, wshape, strides, padding, dilations, fmt, dtype):
    rng = np.random.default_rng(10)
    x = rand(rng, xshape, dtype, -4, 4)
    w = rand(rng, wshape, dtype, -4, 4)
    kh, kw, c, mult = wshape
    ref = _np_conv(x, w.reshape(kh, kw, 1, c * mult), strides, dilations, padding, c)
    xin = _nchw(x) if fmt == "NCHW" else x
    ref = _nchw(ref) if fmt == "NCHW" else ref
    pad = _pad_arg(padding, fmt)
    scale = np.abs(ref).max()
    tol = _conv_tol(dtype)
    out = check(lambda a, b: tf.nn.depthwise_conv2d(a, b, [1, *strides, 1] if fmt == "NHWC"
                                                    else [1, 1, *strides], pad,
                                                    data_format=fmt, dilations=dilations),
                xin, w, tol=None if tol is None else tol * scale)
    r = tol if tol is not None else 2 * RTOL.get(np.dtype(dtype), 0)
    assert_close(out[0], ref, dtype=dtype, rtol=r, atol=r * scale)


TRANSPOSE_CASES = [
    # (output NHWC, filter [kh, kw, out_c, in_c], strides, padding, dilations, format, dtype)
    ((2, 8, 10, 3), (3, 3, 3, 4), (2, 2), "SAME", (1, 1), "NHWC", np.float32),
    ((2, 7, 9, 3), (3, 3, 3, 4), (2, 2), "SAME", (1, 1), "NHWC", np.float32),
    ((2, 9, 11, 3), (3, 3, 3, 4), (2, 2), "VALID", (1, 1), "NHWC", np.float32),
    ((1, 10, 11, 2), (3, 2, 2, 3), (3, 2), "VALID", (1, 1), "NHWC", np.float32),
    ((2, 8, 8, 3), (3, 3, 3, 2), (1, 1), "SAME", (2, 2), "NHWC", np.float64),
    ((2, 9, 8, 2), (3, 3, 2, 3), (2, 1), ((1, 2), (0, 2)), (1, 1), "NHWC", np.float32),
    # pads larger than the window: negative transposed pads on both sides (cropped)
    ((2, 6, 7, 2), (2, 2, 2, 3), (1, 1), ((3, 1), (0, 3)), (1, 1), "NHWC", np.float32),
    ((2, 8, 10, 3), (3, 3, 3, 4), (2, 2), "SAME", (1, 1), "NCHW", np.float32),
    ((2, 8, 9, 3), (3, 3, 3, 4), (2, 3), "SAME", (1, 1), "NHWC", BF16),
    ((2, 5, 6, 3), (3, 3, 3, 2), (1, 2), "VALID", (1, 1), "NHWC", np.int32),
    ((2, 7, 6, 3), (2, 3, 3, 2), (2, 1), ((0, 2), (3, 0)), (1, 1), "NCHW", np.int32),
]


@pytest.mark.parametrize("oshape,wshape,strides,padding,dilations,fmt,dtype", TRANSPOSE_CASES,
                         ids=[str(i) for i in range(len(TRANSPOSE_CASES))])
def test_conv2d_transpose(oshape, wshape, strides, padding, dilations, fmt, dtype):
    """Reference: the transpose of the forward conv's matrix, built by convolving every basis
    image of the output shape with `_np_conv`."""
    rng = np.random.default_rng(11)
    kh, kw, cout, cin = wshape
    w = rand(rng, wshape, dtype, -4, 4)
    n = oshape[0]
    size = int(np.prod(oshape[1:]))
    basis = np.eye(size).reshape((size,) + oshape[1:])
    jac = _np_conv(basis, w, strides, dilations, padding, 1)
    y = rand(rng, (n,) + jac.shape[1:], dtype, -4, 4)
    ref = np.einsum("khwc,nhwc->nk", jac, f64(y)).reshape(oshape)
    if np.dtype(dtype).kind == "i":
        ref = ref.astype(np.int64).astype(dtype)
    yin = _nchw(y) if fmt == "NCHW" else y
    ref = _nchw(ref) if fmt == "NCHW" else ref
    out_shape = list(ref.shape)
    pad = _pad_arg(padding, fmt)
    scale = np.abs(ref).max()
    tol = _conv_tol(dtype)
    out = check(lambda a, b: tf.nn.conv2d_transpose(a, b, out_shape, strides, pad,
                                                    data_format=fmt, dilations=dilations),
                yin, w, tol=None if tol is None else tol * scale)
    r = tol if tol is not None else 2 * RTOL.get(np.dtype(dtype), 0)
    assert_close(out[0], ref, dtype=dtype, rtol=r, atol=r * scale)


def test_int32_convolutions_wrap_like_the_kernel():
    # sums of products past 2**31 overflow int32: XLA must wrap exactly as the kernel does
    # (the float64 reference is exact here: every sum stays below 2**53)
    rng = np.random.default_rng(15)
    x = rng.integers(-2 ** 20, 2 ** 20, (1, 5, 5, 4)).astype(np.int32)
    w = rng.integers(-2 ** 14, 2 ** 14, (3, 3, 4, 2)).astype(np.int32)
    exact = _np_conv(x, w, (1, 1), (1, 1), "SAME", 1).astype(np.int64)
    assert np.abs(exact).max() > 2 ** 31
    eager, jit = run(lambda a, b, bt: (tf.nn.conv2d(a, b, 1, "SAME"),
                                       tf.nn.conv2d_transpose(a, bt, [1, 9, 9, 2], 2, "SAME")),
                     x, w, np.ascontiguousarray(w.transpose(0, 1, 3, 2)))
    np.testing.assert_array_equal(jit[0], exact.astype(np.int32))
    for e, j in zip(eager, jit):
        assert j.dtype == np.int32
        np.testing.assert_array_equal(j, e)


def test_conv2d_transpose_spatial_output_shape():
    rng = np.random.default_rng(12)
    y = rand(rng, (2, 4, 5, 3), np.float32)
    w = rand(rng, (3, 3, 2, 3), np.float32)
    check(lambda a, b: tf.nn.conv2d_transpose(a, b, [8, 10], 2, "SAME"), y, w, tol=1e-4)


# --- pooling ------------------------------------------------------------------------------
def _np_pool(x, ksize, strides, pads, kind):
    """Channels-last pooling; max skips NaN with -inf padding, avg averages in-bounds only."""
    sp = list(range(1, x.ndim - 1))
    fill = -np.inf if kind == "max" else np.nan
    xp = np.pad(f64(x), [(0, 0)] + list(pads) + [(0, 0)], constant_values=fill)
    win = sliding_window_view(xp, ksize, axis=sp)
    win = win[(slice(None),) + tuple(slice(None, None, s) for s in strides)]
    axes = tuple(range(x.ndim, x.ndim + len(sp)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN windows
        return np.nanmax(win, axis=axes) if kind == "max" else np.nanmean(win, axis=axes)


def _channels_first(a):
    return np.ascontiguousarray(np.moveaxis(a, -1, 1))


POOL_CASES = [
    # (input channels-last, ksize, strides, padding, format, dtype)
    ((2, 7, 8, 3), (3, 3), (2, 2), "SAME", "NHWC", np.float32),
    ((2, 7, 8, 3), (2, 3), (1, 2), "VALID", "NHWC", np.float32),
    ((2, 7, 8, 3), (3, 2), (2, 1), "SAME", "NCHW", np.float64),
    ((2, 9, 3), (4,), (3,), "SAME", "NWC", np.float16),
    ((2, 9, 3), (2,), (1,), "VALID", "NCW", BF16),
    ((1, 5, 6, 4, 2), (2, 3, 2), (2, 2, 1), "SAME", "NDHWC", np.float32),
    ((1, 5, 6, 4, 2), (3, 2, 2), (1, 2, 2), "VALID", "NCDHW", np.float32),
    ((2, 6, 5, 3), (3, 3), (1, 1), "SAME", "NHWC", np.int32),
]


def _pool_pads(shape, ksize, strides, padding):
    return [_pads(n, k, s, 1, padding) for n, k, s in zip(shape[1:-1], ksize, strides)]


@pytest.mark.parametrize("shape,ksize,strides,padding,fmt,dtype", POOL_CASES,
                         ids=[str(i) for i in range(len(POOL_CASES))])
def test_pools(shape, ksize, strides, padding, fmt, dtype):
    x = rand(np.random.default_rng(13), shape, dtype, -50, 50)
    pads = _pool_pads(shape, ksize, strides, padding)
    mx = _np_pool(x, ksize, strides, pads, "max")
    back = _channels_first if fmt.startswith("NC") else (lambda a: a)
    xin = back(x)
    if np.dtype(dtype).kind == "i":
        check(lambda v: tf.nn.max_pool(v, ksize, strides, padding, data_format=fmt), xin,
              refs=[back(mx).astype(dtype)])
        return
    avg = _np_pool(x, ksize, strides, pads, "avg")
    check(lambda v: (tf.nn.max_pool(v, ksize, strides, padding, data_format=fmt),
                     tf.nn.avg_pool(v, ksize, strides, padding, data_format=fmt)), xin,
          refs=[back(mx), back(avg)])


def test_max_pool_explicit_padding():
    x = rand(np.random.default_rng(14), (2, 6, 7, 3), np.float32, -5, 5)
    ref = _np_pool(x, (3, 3), (2, 1), [(1, 2), (2, 0)], "max")
    check(lambda v: tf.nn.max_pool2d(v, 3, (2, 1), [[0, 0], [1, 2], [2, 0], [0, 0]]), x,
          refs=[ref])


def test_max_pool_nan_matches_kernel():
    # NaN is skipped unless a window holds nothing else; padding counts as -inf, so a window
    # of padding plus NaNs is -inf (the kernel's fmax fold over -inf padding)
    x = np.array([[np.nan, np.nan, 1.0, np.nan, np.nan, np.nan, 5.0]], np.float32)[..., None]
    out = check(lambda v: (tf.nn.max_pool1d(v, 2, 1, "SAME"), tf.nn.max_pool1d(v, 3, 2,
                                                                               "VALID")), x)
    np.testing.assert_array_equal(out[0][0, :, 0], [np.nan, 1, 1, np.nan, np.nan, 5, 5])
    np.testing.assert_array_equal(out[1][0, :, 0], [1, 1, 5])
    y = np.array([[1.0, np.nan]], np.float32)[..., None]
    out = check(lambda v: tf.nn.max_pool1d(v, 2, 2, [[0, 0], [0, 1], [0, 0]]), y[:, 1:])
    np.testing.assert_array_equal(out[0][0, :, 0], [-np.inf])


def test_pool_zero_size():
    x = np.zeros((0, 4, 4, 2), np.float32)
    check(lambda v: (tf.nn.max_pool2d(v, 2, 2, "SAME"), tf.nn.avg_pool2d(v, 2, 2, "VALID")), x)


def test_conv2d_transpose_with_uneven_explicit_padding_compiles():
    # This configuration used to abort the process inside XLA's algebraic simplifier (lhs
    # dilation); the rule now pads and dilates explicitly. Compared with the NumPy kernel.
    rng = np.random.default_rng(3)
    x = rng.random((1, 4, 2, 2)).astype(np.float32)
    w = rng.random((2, 3, 2, 2)).astype(np.float32)

    def f(x, w):
        return tf.nn.conv2d_transpose(x, w, (1, 5, 5, 2), 2,
                                      padding=[[0, 0], [1, 2], [0, 1], [0, 0]])

    eager = f(tf.constant(x), tf.constant(w)).numpy()
    jit = tf.function(f, jit_compile=True)(tf.constant(x), tf.constant(w)).numpy()
    np.testing.assert_allclose(jit, eager, rtol=1e-5, atol=1e-6)
