"""`remapper`: matmul / conv2d + bias [+ activation] -> fused ops, and the batch-norm fold.

Each rewrite must fire (op counts in the optimized module, and in the module XLA compiles),
must not fire when an intermediate has another use, and must leave results unchanged: bit
for bit in the graph executor and under XLA (NaN and infinities included), except the
batch-norm fold, which reassociates the scale into the filter (a few float32 ulps; stated
where tested). Running the pass twice equals running it once.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flowjit as tf
from pass_helpers import assert_idempotent as _idem, check as _check, op_counts as _ops, run

PASS = "remapper"


def check(fn, args, passes=PASS, **kw):
    return _check(fn, args, passes, **kw)


def assert_idempotent(fn, args, passes=PASS):
    _idem(fn, args, passes)


def _run(fn, args, passes, jit=False):
    return run(fn, args, passes, jit)


RNG = np.random.default_rng(0)
X = RNG.normal(size=(6, 4)).astype(np.float32)
W = RNG.normal(size=(4, 5)).astype(np.float32)
B = RNG.normal(size=(5,)).astype(np.float32)

ACTS = {
    "relu": tf.nn.relu, "relu6": tf.nn.relu6, "elu": tf.nn.elu, "selu": tf.nn.selu,
    "leaky_relu": lambda y: tf.nn.leaky_relu(y, alpha=0.3),
    "gelu": tf.nn.gelu, "gelu_approximate": lambda y: tf.nn.gelu(y, approximate=True),
    "tanh": tf.math.tanh, "sigmoid": tf.math.sigmoid,
}


# --- matmul ----------------------------------------------------------------------------------
@pytest.mark.parametrize("act", sorted(ACTS))
def test_dense_with_activation_fuses(act):
    def f(x):
        return ACTS[act](x @ W + B)
    ops, xla_ops = check(f, [X])
    for counts in (ops, xla_ops):
        assert counts["df.fused_matmul"] == 1
        assert counts["df.matmul"] == counts["df.add"] == 0
    assert_idempotent(f, [X])


def test_bias_add_forms_and_transposes():
    w_t = W.T.copy()

    def f(x):
        a = tf.nn.bias_add(tf.matmul(x, w_t, transpose_b=True), B)       # no activation
        b = tf.nn.relu(B + tf.matmul(x, W))                               # bias first
        c = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, W), B, data_format="NCHW"))  # rank 2
        return a, b, c
    ops, xla_ops = check(f, [X])
    assert ops["df.fused_matmul"] == 3 and ops["df.matmul"] == 0 and ops["df.relu"] == 0
    assert xla_ops["df.fused_matmul"] == 3
    assert_idempotent(f, [X])


@pytest.mark.parametrize("dtype", [np.float64, np.float16, np.int32])
def test_dtypes(dtype):
    x, w, b = (X * 3).astype(dtype), (W * 3).astype(dtype), (B * 3).astype(dtype)

    def f(x):
        return tf.nn.relu6(tf.matmul(x, w) + b)
    ops, _ = check(f, [x])
    assert ops["df.fused_matmul"] == 1


def test_batched_and_unknown_batch_dim():
    x = RNG.normal(size=(2, 3, 4)).astype(np.float32)

    def f(x):
        return tf.nn.elu(tf.matmul(x, W) + B)
    ops, _ = check(f, [x])
    assert ops["df.fused_matmul"] == 1
    g = tf.function(f, passes=PASS, input_signature=[tf.TensorSpec([None, 3, 4], tf.float32)])
    counts = _ops(g.get_concrete_function().optimized_module())
    assert counts["df.fused_matmul"] == 1
    np.testing.assert_array_equal(g(x).numpy(), tf.function(f, passes="")(x).numpy())


def test_nan_inf_negative_zero_unchanged():
    x = X.copy()
    x[0, 0], x[1, 1], x[2, :] = np.nan, np.inf, -0.0
    b = B.copy()
    b[0], b[1] = -np.inf, -0.0

    def f(x):
        return tf.nn.relu(x @ W + b), tf.nn.bias_add(x @ W, b)
    ops, _ = check(f, [x])
    assert ops["df.fused_matmul"] == 2


def test_no_fusion_when_an_intermediate_has_another_use():
    def product_reused(x):
        y = x @ W
        return tf.nn.relu(y + B), y

    def biased_reused(x):
        y = x @ W + B
        return tf.nn.relu(y), y * 2.0

    ops, _ = check(product_reused, [X])
    assert ops["df.fused_matmul"] == 0 and ops["df.matmul"] == 1
    ops, _ = check(biased_reused, [X])
    # matmul + bias still fuse; the activation stays on the fused value
    assert ops["df.fused_matmul"] == 1 and ops["df.relu"] == 1


def test_no_fusion_for_non_bias_addends():
    full = RNG.normal(size=(6, 5)).astype(np.float32)
    col = RNG.normal(size=(6, 1)).astype(np.float32)

    def f(x):
        return tf.nn.relu(x @ W + full), tf.nn.relu(x @ W + col), tf.nn.relu(x @ W + x[0, 0])
    ops, _ = check(f, [X])
    assert ops["df.fused_matmul"] == 0 and ops["df.matmul"] == 3


def test_scalar_constant_addend_is_a_bias():
    def f(x):
        return tf.nn.relu(x @ W + 1.5)
    ops, _ = check(f, [X])
    assert ops["df.fused_matmul"] == 1 and ops["df.add"] == 0


def test_stateful_neighbours_stay_in_order():
    v = tf.Variable(B)

    def f(x):
        y = tf.nn.relu(x @ W + v.read_value())   # the bias comes from a stateful read
        v.assign_add(B)
        return y, v.read_value()
    ops, _ = check(f, [X], reset=lambda: v.assign(B))
    assert ops["df.fused_matmul"] == 1
    assert ops["df.read_variable"] == 2 and ops["df.assign_add_variable"] == 1


def test_in_loop_body():
    def f(x):
        def body(i, acc):
            return i + 1, tf.nn.tanh(acc @ W[:, :4] + B[:4])
        return tf.while_loop(lambda i, a: i < 3, body, (tf.constant(0), x))[1]
    ops, _ = check(f, [X])
    assert ops["df.fused_matmul"] == 1


def test_default_pipeline_fuses_dense_layers():
    w2 = RNG.normal(size=(5, 3)).astype(np.float32)
    b2 = RNG.normal(size=(3,)).astype(np.float32)

    def f(x):
        h = tf.nn.relu(x @ W + B)
        return tf.nn.softmax(h @ w2 + b2)
    ff = tf.function(f)
    got = ff(X).numpy()
    np.testing.assert_array_equal(got, tf.function(f, passes="")(X).numpy())
    counts = _ops(ff.get_concrete_function(tf.constant(X)).optimized_module())
    assert counts["df.fused_matmul"] == 2


@settings(max_examples=10)
@given(m=st.integers(0, 5), k=st.integers(1, 5), n=st.integers(1, 5),
       act=st.sampled_from(sorted(ACTS)), dtype=st.sampled_from([np.float32, np.float64]),
       seed=st.integers(0, 2 ** 16), bias_add=st.booleans())
def test_random_dense_layers(m, k, n, act, dtype, seed, bias_add):
    rng = np.random.default_rng(seed)
    x = rng.normal(scale=3, size=(m, k)).astype(dtype)
    w = rng.normal(size=(k, n)).astype(dtype)
    b = rng.normal(size=(n,)).astype(dtype)

    def f(x):
        y = tf.matmul(x, w)
        return ACTS[act](tf.nn.bias_add(y, b) if bias_add else y + b)
    ops, xla_ops = check(f, [x])
    assert ops["df.fused_matmul"] == xla_ops["df.fused_matmul"] == 1


# --- conv2d ----------------------------------------------------------------------------------
XI = RNG.normal(size=(2, 7, 6, 3)).astype(np.float32)
F = RNG.normal(size=(3, 3, 3, 4)).astype(np.float32)
FB = RNG.normal(size=(4,)).astype(np.float32)


@pytest.mark.parametrize("act", ["relu", "relu6", "elu", "leaky_relu"])
def test_conv_bias_activation_nhwc(act):
    def f(x):
        return ACTS[act](tf.nn.bias_add(tf.nn.conv2d(x, F, [1, 2], "SAME"), FB))
    ops, xla_ops = check(f, [XI])
    assert ops["df.fused_conv2d"] == xla_ops["df.fused_conv2d"] == 1
    assert ops["df.conv2d"] == ops["df.bias_add"] == 0
    assert_idempotent(f, [XI])


def test_conv_nchw_and_add_forms():
    xc = XI.transpose(0, 3, 1, 2).copy()
    per_channel = FB.reshape(4, 1, 1)

    def f(x, xn):
        a = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(xn, F, 1, "VALID", data_format="NCHW"),
                                      FB, data_format="NCHW"))
        b = tf.nn.conv2d(xn, F, 1, "VALID", data_format="NCHW") + per_channel
        c = tf.nn.relu(tf.nn.conv2d(x, F, 1, "VALID") + FB)
        return a, b, c
    ops, xla_ops = check(f, [XI, xc])
    assert ops["df.fused_conv2d"] == xla_ops["df.fused_conv2d"] == 3
    assert ops["df.conv2d"] == 0


def test_conv_guards():
    def f(x):
        y = tf.nn.conv2d(x, F, 1, "SAME")
        return tf.nn.relu(y + FB), y                      # conv output reused

    def g(x):
        return tf.nn.relu(tf.nn.conv2d(x, F, 1, "SAME"))  # no bias: nothing to fuse
    ops, _ = check(f, [XI])
    assert ops["df.fused_conv2d"] == 0
    ops, _ = check(g, [XI])
    assert ops["df.fused_conv2d"] == 0


# --- batch norm fold ---------------------------------------------------------------------------
# Batch-norm tests compare against constant folding alone: folding rsqrt with NumPy may
# differ from XLA's rsqrt in the last ulp, which is constant-folding's business.
FOLDED = "constant-folding,dce"
MEAN = RNG.normal(size=(4,)).astype(np.float32)
VAR = RNG.uniform(0.5, 2.0, size=(4,)).astype(np.float32)
OFF = RNG.normal(size=(4,)).astype(np.float32)
SCALE = RNG.normal(size=(4,)).astype(np.float32)


def _conv_bn(x):
    y = tf.nn.conv2d(x, F, 1, "SAME")
    return tf.nn.relu(tf.nn.batch_normalization(y, MEAN, VAR, OFF, SCALE, 1e-3))


def _conv_bias_bn(x):
    y = tf.nn.bias_add(tf.nn.conv2d(x, F, 1, "SAME"), FB)
    return tf.nn.batch_normalization(y, MEAN, VAR, None, SCALE, 1e-3)


@pytest.mark.parametrize("fn", [_conv_bn, _conv_bias_bn])
def test_batch_norm_folds_into_the_filter(fn):
    passes = "constant-folding,remapper,dce"
    # Not bit-exact by nature: conv(x, w * s) vs conv(x, w) * s rounds differently (float32,
    # a few ulps of the largest terms: 1e-5 relative to values of order 10).
    ops, xla_ops = check(fn, [XI], passes, exact=False, rtol=1e-5, base=FOLDED)
    for counts in (ops, xla_ops):
        assert counts["df.fused_conv2d"] == 1
        assert counts["df.mul"] == counts["df.add"] == counts["df.conv2d"] == 0
    # the reference: batch norm computed in float64 by NumPy
    xw = np.zeros((2, 7, 6, 4))
    xp = np.pad(XI.astype(np.float64), ((0, 0), (1, 1), (1, 1), (0, 0)))
    for i in range(3):
        for j in range(3):
            xw += xp[:, i:i + 7, j:j + 6, :] @ F[i, j].astype(np.float64)
    if fn is _conv_bias_bn:
        xw += FB
        ref = (xw - MEAN) / np.sqrt(VAR.astype(np.float64) + 1e-3) * SCALE
    else:
        ref = np.maximum((xw - MEAN) / np.sqrt(VAR.astype(np.float64) + 1e-3) * SCALE + OFF, 0)
    np.testing.assert_allclose(_run(fn, [XI], passes)[0], ref, rtol=1e-5, atol=1e-5)
    assert_idempotent(fn, [XI], passes)


def test_batch_norm_fold_can_be_switched_off_and_is_then_exact():
    ops, _ = check(_conv_bn, [XI], "constant-folding,remapper{fold-batch-norm=false},dce",
                   base=FOLDED)
    assert ops["df.fused_conv2d"] == 0 and ops["df.conv2d"] == 1


def test_batch_norm_not_folded_into_a_variable_filter():
    fv = tf.Variable(F)

    def f(x):
        y = tf.nn.conv2d(x, fv.read_value(), 1, "SAME")
        return tf.nn.batch_normalization(y, MEAN, VAR, OFF, SCALE, 1e-3)
    ops, _ = check(f, [XI], "constant-folding,remapper,dce", base=FOLDED)
    assert ops["df.fused_conv2d"] == 0 and ops["df.mul"] == 1 and ops["df.read_variable"] == 1


def test_batch_norm_not_folded_with_a_zero_or_infinite_scale():
    for bad in (0.0, np.inf):
        scale = SCALE.copy()
        scale[1] = bad

        def f(x):
            y = tf.nn.conv2d(x, F, 1, "SAME")
            return tf.nn.batch_normalization(y, MEAN, VAR, OFF, scale, 1e-3)
        ops, _ = check(f, [XI], "constant-folding,remapper,dce", base=FOLDED)
        assert ops["df.fused_conv2d"] == 0, bad
