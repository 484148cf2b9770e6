"""`tf.experimental.numpy` against TF 2.21's recorded results (tools/record_tnp.py), in eager
mode, in the graph executor and under XLA, with gradients where recorded."""
import json
import os
import sys

import numpy as np
import pytest

import flowjit as tf
import flowjit.experimental.numpy as tnp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "oracle"))
from tnp_cases import CASES  # noqa: E402
from spec import decode, upstream  # noqa: E402

RECORD = json.load(open(os.path.join(HERE, "data", "tf_oracle", "tnp.json")))["cases"]

# Where TF 2.21's tnp differs from NumPy, flowjit gives NumPy's answer (README, "Differences
# from TF"): TF raises (`var(ddof=)` passes dtype=None on, `concatenate(axis=None)` converts
# None, `pad` requires `mode`), or its result differs (`around(int, -1)` truncates after
# rounding in float, `signbit(-0.0)` is False, `angle`/`float_power`/`hypot`/`logaddexp2`
# return other dtypes than NumPy's). The test checks TF still differs there.
NUMPY_OVER_TF = {"var_ddof", "concatenate_none", "pad_const", "around_int_negative",
                 "signbit", "angle", "float_power", "hypot", "logaddexp2"}
# TF's gradient of sinc at 0 is NaN (its `where` differentiates sin(x)/x there); flowjit's is
# the derivative, 0.
OWN_GRADIENT = {"sinc"}
# Results whose shape depends on input values: XLA refuses them, as TF-XLA does.
DATA_DEPENDENT = {"where1", "nonzero", "compress"}
MODES = ("eager", "graph", "xla")


def _decode(rec):
    vals = [np.nan if v is None else decode(v) for v in rec["values"]]
    return np.asarray(vals, dtype=rec["dtype"]).reshape(rec["shape"])


def _run(fn, args, mode, grad):
    def body(*xs):
        if not grad:
            return fn(tnp, *xs), None
        with tf.GradientTape() as tape:
            tape.watch(xs[0])
            y = fn(tnp, *xs)
        w = tf.constant(upstream(y.shape.as_list()), y.dtype)
        return y, tape.gradient(y, xs[0], output_gradients=w)
    if mode == "eager":
        return body(*args)
    return tf.function(body, jit_compile=(mode == "xla"))(*args)


def _check(got, want, what):
    got = np.asarray(got)
    assert got.dtype.name == want.dtype.name, f"{what}: dtype {got.dtype} != TF's {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape} != TF's {want.shape}"
    tol = 1e-5 if want.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True, err_msg=what)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("cid,fn,inputs,grad", CASES, ids=[c[0] for c in CASES])
def test_tnp_matches_tf(cid, fn, inputs, grad, mode):
    if mode == "xla" and cid in DATA_DEPENDENT:
        pytest.skip("data-dependent result shape: XLA refuses it, as TF-XLA does")
    args = [tf.constant(np.asarray(decode(v), dtype=d)) for v, d in inputs]
    rec = RECORD[cid]
    y, g = _run(fn, args, mode, grad)
    if cid in NUMPY_OVER_TF:
        want = np.asarray(fn(np, *[np.asarray(decode(v), dtype=d) for v, d in inputs]))
        tf_agrees = "error" not in rec and _decode(rec).dtype == want.dtype and np.allclose(
            _decode(rec), want, equal_nan=True)
        assert not tf_agrees, f"{cid}: TF now agrees with NumPy; drop it from NUMPY_OVER_TF"
        _check(y, want, f"{cid} [{mode}] vs NumPy")
    else:
        _check(y, _decode(rec), f"{cid} [{mode}]")
    if grad and cid in OWN_GRADIENT:
        want = _decode(rec["grad"])
        assert np.isnan(want).any(), f"{cid}: TF's gradient is finite now"
        np.testing.assert_allclose(np.asarray(g)[~np.isnan(want)], want[~np.isnan(want)],
                                   rtol=1e-6)
        assert np.isfinite(np.asarray(g)).all()
    elif grad and "grad" in rec:      # TF raised on the value: no gradient recorded
        _check(g, _decode(rec["grad"]), f"{cid} [{mode}] gradient")


def test_numpy_behavior_methods():
    tnp.experimental_enable_numpy_behavior()
    x = tnp.reshape(tnp.arange(6), (2, 3))
    assert x.T.shape == (3, 2)
    assert x.reshape((3, 2)).shape == (3, 2) and x.reshape(6, 1).shape == (6, 1)
    assert x.astype(tnp.float32).dtype == tf.float32
    assert int(x.sum()) == 15 and x.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert x.mean(axis=0).numpy().tolist() == [1.5, 2.5, 3.5]

    @tf.function
    def f(v):
        return v.T.reshape((-1,)).astype(tnp.float64).sum()
    assert float(f(tf.constant([[1, 2], [3, 4]]))) == 10.0


def test_defaults_are_numpy_dtypes():
    assert tnp.asarray([1.0]).dtype == tf.float64
    assert tnp.asarray([1]).dtype == tf.int64
    assert tnp.zeros(3).dtype == tf.float64 and tnp.arange(3).dtype == tf.int64
    assert tnp.ndarray is tf.Tensor
    with pytest.raises(ValueError, match="equal division"):
        tnp.split(tnp.arange(5), 2)
