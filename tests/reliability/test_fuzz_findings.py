"""What the differential fuzzer's long runs found, each stated as TF 2.21 behaves."""
from __future__ import annotations

import numpy as np
import pytest

import flowjit as tf
from flowjit.frontend.eager.dispatch import apply

MODES = ("eager", "graph", "xla")


def in_mode(fn, mode):
    return fn if mode == "eager" else tf.function(fn, jit_compile=mode == "xla")


def _gradient_of(program):
    def run(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = program(x)
            total = tf.reduce_sum(y)
        return y, tape.gradient(total, x)
    return run


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("branch", ["cond", "switch_case"])
def test_gradient_through_a_zeros_like_branch(branch, mode):
    # TF 2.21, y = log([0, 1, -1]) then the zeros_like branch of a cond / switch_case: eagerly
    # the tape has no path (gradient None); in tf.function and under jit_compile the branch
    # has a gradient, 0 * (1 / x) = [nan, 0, -0].
    def program(x):
        y = tf.math.log(x)
        if branch == "cond":
            return tf.cond(tf.reduce_sum(x) < -100.0, lambda: tf.identity(y),
                           lambda: tf.zeros_like(y))
        return tf.switch_case(tf.constant(0), [lambda: tf.zeros_like(y), lambda: tf.identity(y)])
    y, g = in_mode(_gradient_of(program), mode)(tf.constant([0.0, 1.0, -1.0]))
    np.testing.assert_array_equal(y.numpy(), [0.0, 0.0, 0.0])
    if mode == "eager":
        assert g is None
    else:
        np.testing.assert_array_equal(g.numpy(), [np.nan, 0.0, -0.0])


@pytest.mark.parametrize("mode", MODES)
def test_reduce_max_gradient_at_a_nan(mode):
    # TF 2.21: reduce_max([1, nan, 3]) is nan with gradient [nan, nan, nan] eagerly and in
    # tf.function (no element equals the max: 0 / 0). Under jit_compile TF gives max 3 and
    # gradient [0, 0, 1]; flowjit keeps the max nan (as eagerly) and XLA's simplifier turns
    # cast(x == max) / count into a select, so the gradient is 0 (the fuzzer's documented
    # XLA_MASKED_GRADIENTS allowance).
    y, g = in_mode(_gradient_of(tf.reduce_max), mode)(tf.constant([1.0, np.nan, 3.0]))
    assert np.isnan(y.numpy())
    if mode == "xla":
        np.testing.assert_array_equal(g.numpy(), [0.0, 0.0, 0.0])
    else:
        assert np.isnan(g.numpy()).all()


@pytest.mark.parametrize("mode", MODES)
def test_apply_fills_declared_attribute_defaults(mode):
    # The registry's defaults (reduce_sum: axis=None, keepdims=False; cumsum: axis=0) in every
    # mode, as the public functions pass them; before, a bare KeyError 'axis' in all three.
    x = tf.constant(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    total, running = in_mode(lambda x: (apply("reduce_sum", (x,), {}),
                                        apply("cumsum", (x,), {"exclusive": True})), mode)(x)
    assert total.numpy() == 15.0
    np.testing.assert_array_equal(running.numpy(), [[0, 0, 0], [0, 1, 2]])


def test_apply_names_an_unknown_or_missing_attribute():
    x = tf.constant([1.0])
    with pytest.raises(TypeError, match="op 'reduce_sum' got unknown attributes"):
        apply("reduce_sum", (x,), {"axes": 0})
    with pytest.raises(TypeError, match="op 'transpose' requires attribute 'perm'"):
        apply("transpose", (x,), {})


SPECIALS = [-np.inf, np.inf, np.nan, 1e30, -1e30, 0.4, 70000.0]
# TF 2.21 eagerly and in tf.function (x86 conversion into int32/int64, then wrapped); flowjit
# gives the same under jit_compile, where TF's XLA saturates (README, Reliability).
CAST_OF_SPECIALS = {
    "int32": [-2**31] * 5 + [0, 70000],
    "int64": [-2**63] * 5 + [0, 70000],
    "int16": [0] * 6 + [4464],
    "int8": [0] * 6 + [112],
    "uint8": [0] * 6 + [112],
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("src", ["float32", "float64", "complex64", "complex128"])
def test_cast_of_nan_inf_and_out_of_range_values(src, mode):
    # complex -> int takes the real part first; under XLA it used to saturate (the fuzzer's
    # seed 101299: cast(-inf + 5j, int16) gave -32768 under XLA, 0 eagerly)
    x = tf.constant(np.array(SPECIALS).astype(src))
    dts = sorted(CAST_OF_SPECIALS)
    got = in_mode(lambda x: [tf.cast(x, getattr(tf, d)) for d in dts], mode)(x)
    for d, g in zip(dts, got):
        np.testing.assert_array_equal(g.numpy(), CAST_OF_SPECIALS[d], err_msg=d)


# TF 2.21 (eager == tf.function, then jit_compile): its CPU kernel binary-searches with `<`
# (std::lower_bound / upper_bound), its XLA kernel counts; they differ where the sequence is
# unsorted or holds NaN (the fuzzer's seeds 110117 and 110154; NumPy's searchsorted put NaN last).
SEARCHSORTED = [
    ([[2**63 - 1, 1, 5]], [[2**63 - 1, 1, 5]], [[3, 0, 2]], [[3, 2, 3]], [[2, 0, 1]], [[3, 1, 2]]),
    ([[0.9146]], [[np.nan]], [[0]], [[1]], [[0]], [[0]]),
    ([[0.5, np.nan]], [[np.nan, 1.0, 0.2]], [[0, 1, 0]], [[2, 2, 2]], [[0, 1, 0]], [[0, 1, 0]]),
    ([[3.0, 1.0, 2.0, 0.0]], [[0.0, 1.0, 2.0, 3.0, 1.5]], [[0, 0, 2, 4, 2]], [[0, 2, 4, 4, 2]],
     [[0, 1, 2, 3, 2]], [[1, 2, 3, 4, 2]]),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", SEARCHSORTED, ids=["unsorted-int", "nan-value", "nan-sequence",
                                                     "unsorted-float"])
def test_searchsorted_outside_its_precondition(case, mode):
    seq, vals, left, right, xla_left, xla_right = case
    dt = np.int64 if isinstance(seq[0][0], int) else np.float64
    got = in_mode(lambda s, v: (tf.searchsorted(s, v, side="left"),
                                tf.searchsorted(s, v, side="right")), mode)(
        tf.constant(np.array(seq, dt)), tf.constant(np.array(vals, dt)))
    want = (xla_left, xla_right) if mode == "xla" else (left, right)
    assert [g.numpy().tolist() for g in got] == list(want)


@pytest.mark.parametrize("band", [(-1, 0), (0, 0), (1, 2), (0, -1)])
def test_band_part_with_matrix_dims_unknown_while_tracing(band):
    # TF 2.21 takes a [None, None, None] signature; flowjit refused it, and with it the
    # gradient of cholesky under an unknown-dim signature (the fuzzer's seed 110437)
    x = np.arange(24.0).reshape(2, 3, 4)
    i, j = np.arange(3)[:, None], np.arange(4)[None, :]
    lo, up = band
    keep = ((lo < 0) | (i - j <= lo)) & ((up < 0) | (j - i <= up))
    f = tf.function(lambda x: tf.linalg.band_part(x, lo, up),
                    input_signature=[tf.TensorSpec([None, None, None], tf.float64)])
    np.testing.assert_array_equal(f(tf.constant(x)).numpy(), np.where(keep, x, 0.0))


def test_cholesky_gradient_with_unknown_dims():
    def grad(a):
        with tf.GradientTape() as tape:
            tape.watch(a)
            y = tf.reduce_sum(tf.linalg.cholesky(a))
        return tape.gradient(y, a)
    f = tf.function(grad, input_signature=[tf.TensorSpec([None, None], tf.float64)])
    # TF 2.21, eagerly and with this signature
    np.testing.assert_allclose(f(tf.constant([[4.0, 2.0], [2.0, 3.0]], tf.float64)).numpy(),
                               [[0.21338835, 0.0732233], [0.0732233, 0.35355339]], rtol=1e-7)


def test_clip_by_value_bounds_with_unknown_dims():
    # TF 2.21 traces bounds of shape [None] against an input of shape [1] (the fuzzer's seed
    # 200709: flowjit refused at trace time); bounds that turn out larger make TF's result
    # grow to their shape, flowjit raises instead (README, Reliability)
    sig = [tf.TensorSpec([None], tf.int16)] * 3
    f = tf.function(tf.clip_by_value, input_signature=sig)
    c = lambda v: tf.constant(np.array(v, np.int16))   # noqa: E731
    np.testing.assert_array_equal(f(c([5]), c([1]), c([3])).numpy(), [3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="clip bounds of shapes"):
        f(c([5]), c([1, 2, 3]), c([3, 3, 3]))


@pytest.mark.parametrize("mode", MODES)
def test_complex_of_infinite_parts(mode):
    # TF 2.21 in every mode; the eager kernel computed real + imag * 1j, where -inf * 1j is
    # nan - inf j (the fuzzer's seed 201761: real(complex(-inf, -inf)) was nan eagerly)
    re = tf.constant([-4.5, -np.inf, np.inf, np.nan], tf.float64)
    im = tf.constant([np.inf, -np.inf, 2.0, 1.0], tf.float64)
    got = in_mode(tf.complex, mode)(re, im).numpy()
    want = np.array([complex(-4.5, np.inf), complex(-np.inf, -np.inf), complex(np.inf, 2.0),
                     complex(np.nan, 1.0)])
    np.testing.assert_array_equal(got.real, want.real)
    np.testing.assert_array_equal(got.imag, want.imag)


def test_gradient_of_a_broadcast_with_dims_unknown_while_tracing():
    # TF 2.21 sums the gradient over the dims broadcast at run time (BroadcastGradientArgs);
    # flowjit assumed an unknown dim was not broadcast (the fuzzer's seed 201842 got a
    # gradient of shape (0, 2, 0, 2) for an input of shape (0, 2, 1, 1))
    def grads(x, y):
        with tf.GradientTape() as tape:
            tape.watch([x, y])
            s = tf.reduce_sum(x * 2.0 + y)
        return tape.gradient(s, [x, y])
    f = tf.function(grads, input_signature=[tf.TensorSpec([None, None], tf.float32)] * 2)
    gx, gy = f(tf.ones([3, 1]), tf.ones([1, 4]))
    np.testing.assert_array_equal(gx.numpy(), np.full((3, 1), 8.0))
    np.testing.assert_array_equal(gy.numpy(), np.full((1, 4), 3.0))
    gx, gy = f(tf.ones([0, 1]), tf.ones([1, 2]))   # a dim broadcast from 1 to 0
    assert gx.shape == (0, 1) and gy.shape == (1, 2)
    np.testing.assert_array_equal(gy.numpy(), np.zeros((1, 2)))


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("xs,ys", [((2, 3, 4), (3, 1)), ((2, 3, 4), ()), ((0, 3), (1,)),
                                   ((1, 3), (2, 1, 1))])
def test_gradient_of_a_broadcast_of_unknown_rank(jit, xs, ys):
    # the fuzzer's seed 418309 (a while_loop gradient traced for unknown dims) reached a
    # product whose operands' ranks were unknown while tracing; TF 2.21 sums over the axes
    # broadcast at run time, whatever the rank
    def grads(x, y):
        with tf.GradientTape() as tape:
            tape.watch([x, y])
            s = tf.reduce_sum(x * y * 3.0)
        return tape.gradient(s, [x, y])
    f = tf.function(grads, jit_compile=jit, input_signature=[tf.TensorSpec(None, tf.float32)] * 2)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(xs).astype(np.float32)
    y = rng.standard_normal(ys).astype(np.float32)
    gx, gy = f(tf.constant(x), tf.constant(y))
    out = np.broadcast_shapes(xs, ys)
    want_x = _sum_to(3.0 * np.broadcast_to(y, out), xs)
    want_y = _sum_to(3.0 * np.broadcast_to(x, out), ys)
    assert gx.shape == xs and gy.shape == ys
    np.testing.assert_allclose(gx.numpy(), want_x, rtol=1e-5)
    np.testing.assert_allclose(gy.numpy(), want_y, rtol=1e-5)


def _sum_to(g, shape):
    """NumPy's reading of the broadcast gradient: sum the leading axes away, then keep-sum
    each axis where `shape` has 1."""
    g = g.reshape((-1,) + g.shape[g.ndim - len(shape):]).sum(0) if g.ndim > len(shape) else g
    for i, d in enumerate(shape):
        if d == 1:
            g = g.sum(i, keepdims=True)
    return g


def test_slice_with_a_size_known_only_at_run_time_is_not_dropped():
    # the arithmetic pass took a run-time size (None) for "everything" on an unknown dim and
    # removed the slice; TF 2.21 gives shape (3, 2, 1, 2)
    f = tf.function(lambda g, l: tf.slice(g, [0, 0, 0, 0], tf.stack([-1, -1, tf.shape(l)[2], -1])),
                    input_signature=[tf.TensorSpec([None] * 4, tf.float64)] * 2)
    assert f(tf.ones([3, 2, 3, 2], tf.float64), tf.ones([3, 2, 1, 1], tf.float64)).shape == \
        (3, 2, 1, 2)


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_segment_count_beyond_memory_is_resource_exhausted(mode):
    # the fuzzer's one crash (seed 203615): an id of 2**31 - 1 sizes the result from a value,
    # NumPy's working set got the process killed; TF 2.21 raises ResourceExhaustedError when
    # the allocation fails (under XLA these ops are refused: sizes from values)
    ids = tf.constant([2**31 - 1])
    with pytest.raises(tf.errors.ResourceExhaustedError, match="OOM when allocating"):
        in_mode(tf.math.segment_max, mode)(tf.constant([1]), ids)


def test_value_sized_results_over_the_allocation_limit_are_refused_before_allocating():
    # fuzzer seed 306400: bincount of 2**31 - 1 asked NumPy for 8 GiB in every mode at once and
    # the worker was killed. A result sized by values is checked against memory (or
    # FLOWJIT_MAX_ALLOCATION_BYTES) before the kernel allocates: TF's ResourceExhaustedError.
    import subprocess
    import sys
    code = """
import numpy as np, flowjit as tf
from flowjit.errors import ResourceExhaustedError
arr = tf.constant(np.array([3, 2**31 - 1], np.int32))
for f in (tf.math.bincount, tf.function(tf.math.bincount)):
    try:
        f(arr)
    except ResourceExhaustedError as e:
        assert "bincount" in str(e) and "2147483648" in str(e), e
    else:
        raise SystemExit("no error")
print(tf.math.bincount(tf.constant([1, 1, 3])).numpy().tolist())
"""
    env = dict(__import__("os").environ, FLOWJIT_MAX_ALLOCATION_BYTES=str(1 << 20))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == str(np.bincount([1, 1, 3]).tolist())


@pytest.mark.parametrize("mode", MODES)
def test_complex128_constants_of_several_elements(mode):
    # fuzz seed 390077: a folded complex128 constant failed under XLA (its splat check viewed
    # 16-byte elements as an unsigned type NumPy lacks); TF 2.21 gives [0j, 3 + 0j]
    x = tf.constant(np.zeros((0, 3), bool))
    got = in_mode(lambda x: tf.cast(tf.shape(x), tf.complex128), mode)(x).numpy()
    np.testing.assert_array_equal(got, np.array([0, 3], np.complex128))
    pair = in_mode(lambda: tf.constant([1 + 2j, 1 + 2j]) * tf.constant([1j, -1.0]), mode)()
    np.testing.assert_array_equal(pair.numpy(), np.array([1 + 2j, 1 + 2j]) * [1j, -1.0])


@pytest.mark.parametrize("mode", MODES)
def test_a_bfloat16_result_is_rounded_before_a_cast_to_an_integer(mode):
    # fuzz seed 393054: cos of bfloat16 0.028 rounds to 1.0 in bfloat16; under XLA the cast
    # read cos's float32 value (0.9996) and gave 0. TF 2.21 gives [1, 1, 0] eagerly and under
    # jit_compile
    import ml_dtypes
    x = tf.constant(np.array([0.0284423828125, 0.052734375, -0.3125], ml_dtypes.bfloat16))
    got = in_mode(lambda x: tf.cast(tf.cos(x), tf.int64), mode)(x).numpy()
    assert got.tolist() == [1, 1, 0]


@pytest.mark.parametrize("mode", MODES)
def test_relu_keeps_negative_zero(mode):
    # fuzz seed 408299: atan2(relu6(-0.0), -3.2) was +pi under XLA (its maximum gives +0.0);
    # TF 2.21 keeps -0.0 eagerly and under jit_compile, so atan2 gives -pi
    x = tf.constant(np.array([-0.0, 0.0, -1.0, np.nan, 7.0], np.float16))
    for f, top in ((tf.nn.relu, 7.0), (tf.nn.relu6, 6.0)):
        got = in_mode(f, mode)(x).numpy()
        assert np.signbit(got).tolist() == [True, False, False, False, False]
        np.testing.assert_array_equal(got[2:], [0.0, np.nan, top])


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_slogdet_sign_of_a_nan_matrix_is_nan(mode):
    # fuzz seed 403508; TF 2.21: [[nan]] -> (nan, nan), [[inf]] -> (1, inf), [[-inf]] -> (-1, inf)
    for m, want in (([[np.nan]], [np.nan, np.nan]), ([[1.0, np.nan], [0.0, 2.0]], [np.nan, np.nan]),
                    ([[np.inf]], [1.0, np.inf]), ([[-np.inf]], [-1.0, np.inf])):
        got = in_mode(tf.linalg.slogdet, mode)(tf.constant(m, tf.float32))
        np.testing.assert_array_equal([float(t) for t in got], want)
