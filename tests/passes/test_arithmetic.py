"""`arithmetic`: each identity fires where it is exact and nowhere else. Results are compared
bit for bit (-0.0 told from +0.0, NaN positions) with the unoptimized function in the executor
and under XLA, on inputs full of NaN/Inf/-0.0/subnormals, and against NumPy; the pass is
idempotent."""
import os

import ml_dtypes
import numpy as np
import pytest

import flowjit as tf
from flowjit.ir.printing import parse_module
from exact_helpers import (FLOATS, INTS, assert_idempotent, assert_idempotent_module,
                           assert_same, check_exact, counts, op_counts, run_text, special)

PASS = "arithmetic"
RNG = np.random.default_rng(7)
ARITH = ("df.mul", "df.div", "df.add", "df.sub")


def neutral_float(x):
    one = tf.constant(1, dtype=x.dtype)
    return (x * one, one * x, x / one, x - tf.constant(0.0, dtype=x.dtype),
            x + tf.constant(-0.0, dtype=x.dtype), tf.constant(-0.0, dtype=x.dtype) + x,
            x * tf.ones([1, 3], dtype=x.dtype))


@pytest.mark.parametrize("dtype", FLOATS)
def test_float_neutral_elements_fire_and_are_exact(dtype):
    x = special(RNG, (4, 3), dtype)
    outs = check_exact(neutral_float, [x], PASS)
    for o in outs:
        assert_same(o, x)               # NumPy: each of these is x itself
    c = counts(neutral_float, [x], PASS)
    assert not any(c[n] for n in ARITH), c


def neutral_int(x):
    zero, one = tf.constant(0, dtype=x.dtype), tf.constant(1, dtype=x.dtype)
    return x * one, one * x, x + zero, zero + x, x - zero


@pytest.mark.parametrize("dtype", INTS)
def test_int_neutral_elements_fire(dtype):
    x = special(RNG, (5,), dtype)
    outs = check_exact(neutral_int, [x], PASS)
    for o in outs:
        assert_same(o, x)
    c = counts(neutral_int, [x], PASS)
    assert not any(c[n] for n in ("df.mul", "df.add", "df.sub")), c


def float_guards(x):
    zero = tf.constant(0.0, dtype=x.dtype)
    nzero = tf.constant(-0.0, dtype=x.dtype)
    return (x + zero,                               # -0.0 + 0.0 = +0.0
            zero + x,
            x - nzero,                              # -0.0 - -0.0 = +0.0
            x * zero,                               # NaN, Inf * 0 = NaN
            zero - x,                               # not neg(x): 0 - 0 = +0
            x * tf.constant([1.0, 2.0, 1.0], dtype=x.dtype),
            x * tf.ones([2, 4, 3], dtype=x.dtype),  # broadcasts x to a bigger shape
            x + tf.constant([-0.0, 0.0, -0.0], dtype=x.dtype))


@pytest.mark.parametrize("dtype", FLOATS)
def test_float_guards_do_not_fire(dtype):
    x = special(RNG, (4, 3), dtype)
    outs = check_exact(float_guards, [x], PASS)
    # NumPy reference for the IEEE facts the guards protect
    with np.errstate(all="ignore"):
        z = np.zeros((), dtype)
        assert_same(outs[0], x + z)
        assert_same(outs[2], x - (-z))
        assert_same(outs[3], x * z)
        assert_same(outs[4], z - x)
    assert np.any(np.signbit(x) & (x == 0))          # the inputs hold -0.0 ...
    assert not np.any(np.signbit(outs[0]) & (outs[0] == 0))   # ... x + 0.0 holds none
    c = counts(float_guards, [x], PASS)
    assert c["df.add"] == 3 and c["df.sub"] == 2 and c["df.mul"] == 3, c


def test_unknown_batch_dim_rewrites_only_without_broadcast():
    sig = [tf.TensorSpec([None, 3], tf.float32)]

    def f(x):
        return x * tf.ones([1, 3]), x * tf.ones([2, 1, 3]), x * tf.ones([3])

    m = tf.function(f, passes=PASS, input_signature=sig).get_concrete_function() \
        .optimized_module()
    assert op_counts(m)["df.mul"] == 1                 # the [2, 1, 3] one stays
    for n in (0, 1, 5):
        x = special(RNG, (n, 3), np.float32)
        outs = check_exact(f, [x], PASS, signature=sig)
        assert_same(outs[0], x)
        assert_same(outs[2], x)
        assert_same(outs[1], np.broadcast_to(x, (2, n, 3)))


def test_unknown_rank_needs_a_scalar_constant():
    m = run_text("""
func.func @f(%0: tensor<*xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %1 = df.const {value = dense<1.0> : tensor<f32>, dtype = f32} : () -> tensor<f32>
  %2 = df.mul %0, %1 : (tensor<*xf32>, tensor<f32>) -> tensor<*xf32>
  %3 = df.const {value = dense<1.0> : tensor<1x1xf32>, dtype = f32} : () -> tensor<1x1xf32>
  %4 = df.mul %0, %3 : (tensor<*xf32>, tensor<1x1xf32>) -> tensor<*xf32>
  func.return %2, %4 : tensor<*xf32>, tensor<*xf32>
}""", PASS)
    assert op_counts(m)["df.mul"] == 1
    sig = [tf.TensorSpec(None, tf.float32)]

    def f(x):
        return x * 1.0, x * tf.ones([1, 1])
    x = special(RNG, (3,), np.float32)
    outs = check_exact(f, [x], PASS, signature=sig, xla=False)
    assert_same(outs[0], x)
    assert outs[1].shape == (1, 3)


def bool_ops(p):
    t, f_ = tf.constant(True), tf.constant(False)
    return (tf.logical_and(p, t), tf.logical_and(t, p), tf.logical_or(p, f_),
            tf.logical_not(tf.logical_not(p)), tf.logical_and(p, f_), tf.logical_or(p, t))


def test_boolean_identities():
    p = RNG.random((6,)) < 0.5
    outs = check_exact(bool_ops, [p], PASS)
    for o in outs[:4]:
        assert_same(o, p)
    assert_same(outs[4], np.zeros(6, bool))
    assert_same(outs[5], np.ones(6, bool))
    c = counts(bool_ops, [p], PASS)
    assert c["df.logical_and"] == 1 and c["df.logical_or"] == 1 and not c["df.logical_not"]


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.float32, ml_dtypes.bfloat16])
def test_double_negation(dtype):
    def f(x):
        return -(-x), -(-(-x))
    x = special(RNG, (7,), dtype)
    outs = check_exact(f, [x], PASS)
    assert_same(outs[0], x)                       # neg(neg(INT_MIN)) wraps back to INT_MIN
    with np.errstate(all="ignore"):
        assert_same(outs[1], -x)
    assert counts(f, [x], PASS)["df.neg"] == 1


def movement(x):
    t = tf.transpose(tf.transpose(x, [1, 2, 0]), [2, 0, 1])      # identity
    u = tf.transpose(tf.transpose(x, [1, 0, 2]), [0, 2, 1])      # one transpose
    r = tf.reshape(tf.reshape(tf.reshape(x, [-1]), [6, 4]), [4, 6])
    s = tf.squeeze(tf.expand_dims(x, 1), [1])
    e = tf.expand_dims(tf.squeeze(tf.expand_dims(x, 0), [0]), 0)
    i = tf.identity(tf.identity(x))
    return t, u, r, s, e, i, tf.reshape(x, [2, 3, 4]), tf.tile(x, [1, 1, 1])


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
def test_data_movement_simplifies(dtype):
    x = special(RNG, (2, 3, 4), dtype)
    outs = check_exact(movement, [x], PASS)
    assert_same(outs[0], x)
    assert_same(outs[1], np.transpose(np.transpose(x, [1, 0, 2]), [0, 2, 1]))
    assert_same(outs[2], x.reshape(4, 6))
    assert_same(outs[3], x)
    assert_same(outs[4], x[None])
    assert_same(outs[5], x)
    c = counts(movement, [x], PASS)
    assert c["df.transpose"] == 1 and c["df.reshape"] == 1 and c["df.expand_dims"] == 1
    assert not c["df.squeeze"] and not c["df.identity"] and not c["df.tile"]
    assert_idempotent(movement, [x], PASS)


def test_composed_transpose_permutations_against_numpy():
    x = special(RNG, (2, 3, 4, 5), np.float32)
    perms = [(3, 1, 0, 2), (1, 2, 3, 0), (0, 1, 3, 2), (-1, 0, -2, 1)]
    for p1 in perms:
        for p2 in perms:
            def f(x, p1=p1, p2=p2):
                return tf.transpose(tf.transpose(x, p1), p2)
            n = counts(f, [x], PASS)["df.transpose"]
            q1, q2 = [p % 4 for p in p1], [p % 4 for p in p2]
            assert n == (0 if [q1[p] for p in q2] == [0, 1, 2, 3] else 1)
            assert_same(check_exact(f, [x], PASS, xla=False)[0],
                        np.transpose(np.transpose(x, q1), q2))


def test_dynamic_reshape_chain_is_kept_and_exact():
    # [0, 0] -> reshape [-1, 0] is [1, 0] in TF: a reshape to x's own type with a `?` dim is
    # only x when no static dim is 0, and a chain through `?` shapes is left alone
    sig = [tf.TensorSpec([None, 4], tf.float32), tf.TensorSpec([None, 0], tf.float32)]

    def f(x, z):
        return (tf.reshape(tf.reshape(x, [-1]), [-1, 2]), tf.reshape(x, [-1, 4]),
                tf.reshape(z, [-1, 0]))
    m = tf.function(f, passes=PASS, input_signature=sig).get_concrete_function() \
        .optimized_module()
    assert op_counts(m)["df.reshape"] == 3       # the no-op [-1, 4] goes, [-1, 0] stays
    for n in (0, 1, 3):
        x = special(RNG, (n, 4), np.float32)
        z = np.zeros((n, 0), np.float32)
        outs = check_exact(f, [x, z], PASS, signature=sig)
        assert_same(outs[0], x.reshape(-1, 2))
        assert_same(outs[1], x)
    outs = check_exact(f, [np.zeros((0, 4), np.float32), np.zeros((0, 0), np.float32)], PASS,
                       signature=sig)
    assert outs[2].shape == (1, 0)               # TF's rule, kept by not rewriting


def test_squeeze_of_unknown_dim_keeps_its_runtime_check():
    sig = [tf.TensorSpec([None, 3], tf.float32)]

    def f(x):
        return tf.expand_dims(tf.squeeze(x, [0]), 0)
    m = tf.function(f, passes=PASS, input_signature=sig).get_concrete_function() \
        .optimized_module()
    assert op_counts(m)["df.squeeze"] == 1
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.function(f, passes=PASS, input_signature=sig)(tf.zeros([2, 3]))


def test_cast_to_same_dtype_and_stop_gradient():
    m = run_text("""
func.func @f(%0: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf64>) {
  %1 = df.cast %0 {dtype = f32} : (tensor<3xf32>) -> tensor<3xf32>
  %2 = df.stop_gradient %1 : (tensor<3xf32>) -> tensor<3xf32>
  %3 = df.cast %0 {dtype = f64} : (tensor<3xf32>) -> tensor<3xf64>
  %4 = df.identity %2 : (tensor<3xf32>) -> tensor<3xf32>
  func.return %1, %4, %3 : tensor<3xf32>, tensor<3xf32>, tensor<3xf64>
}""", PASS)
    c = op_counts(m)
    assert c["df.cast"] == 1 and c["df.stop_gradient"] == 1 and not c["df.identity"]


def test_no_op_movement_ops():
    m = run_text("""
func.func @f(%0: tensor<2x3xf32>, %1: tensor<?x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<4x3xf32>, tensor<2x3xf32>) {
  %2 = df.broadcast_to %0 {shape = array<i64: 2, 3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = df.const {value = dense<0.0> : tensor<f32>, dtype = f32} : () -> tensor<f32>
  %4 = df.pad %0, %3 {paddings = array<i64: 0, 0, 0, 0>, mode = "CONSTANT"} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %5 = df.slice %0 {begin = array<i64: 0, 0>, size = array<i64: -1, 3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = df.slice %1 {begin = array<i64: 0, 0>, size = array<i64: -1, -1>} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %7 = df.concat %1 {axis = 0 : i64} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %8 = df.tile %0 {multiples = array<i64: 2, 1>} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  %9 = df.slice %0 {begin = array<i64: 0, 1>, size = array<i64: 2, 2>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %10 = df.pad %9, %3 {paddings = array<i64: 0, 0, 0, 1>, mode = "CONSTANT"} : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x3xf32>
  func.return %2, %4, %5, %6, %7, %8, %10 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<4x3xf32>, tensor<2x3xf32>
}""", PASS)
    c = op_counts(m)
    assert not c["df.broadcast_to"] and not c["df.concat"]
    assert c["df.pad"] == 1 and c["df.slice"] == 1 and c["df.tile"] == 1
    fn = m.body.block.first_op
    ret = fn.body.block.last_op
    args = list(fn.body.block.args)
    assert list(ret.operands[:5]) == [args[0], args[0], args[0], args[1], args[1]]


def test_inside_regions_and_idempotent():
    def f(x, p):
        y = tf.cond(p, lambda: (x * 1.0) + tf.constant(-0.0), lambda: -(-x))

        def body(i, a):
            return i + 1, tf.transpose(tf.transpose(a)) * 1.0
        return y, tf.while_loop(lambda i, a: i < 3, body, (tf.constant(0), x))[1]
    x = special(RNG, (3, 3), np.float32)
    for p in (True, False):
        outs = check_exact(f, [x, np.bool_(p)], PASS)
        assert_same(outs[0], x)
        assert_same(outs[1], x)
    c = counts(f, [x, np.bool_(True)], PASS)
    assert not any(c[n] for n in ("df.transpose", "df.neg")) and c["df.mul"] == 0
    assert_idempotent(f, [x, np.bool_(True)], PASS)


@pytest.mark.parametrize("name", ["arithmetic_identities.mlir", "arithmetic_movement.mlir"])
def test_idempotent_on_the_filecheck_inputs(name):
    path = os.path.join(os.path.dirname(__file__), "..", "filecheck", name)
    with open(path) as fh:
        assert_idempotent_module(parse_module(fh.read()), PASS)
