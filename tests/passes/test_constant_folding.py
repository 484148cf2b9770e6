"""`constant-folding`: pure ops on constants become constants (bit for bit what the kernels
give, NaN/Inf/-0.0 included), stateful and random ops, raising kernels and oversized results
are left alone, and constant predicates inline their branch with side effects kept in order.
Results are compared with the unoptimized function in the executor and under XLA, and with
NumPy; the pass is idempotent."""
import os

import ml_dtypes
import numpy as np
import pytest

import flowjit as tf
from flowjit.ir.dialect import encode_attr
from flowjit.ir.printing import parse_module
from flowjit.ir.constants import const_value, dense_attr
from exact_helpers import (FLOATS, INTS, assert_idempotent, assert_idempotent_module,
                           assert_same, check_exact, counts, op_counts, run_text, special)

PASS = "constant-folding"
RNG = np.random.default_rng(11)


def _non_const_ops(c):
    return {k: v for k, v in c.items() if k.startswith("df.") and k != "df.const"}


@pytest.mark.parametrize("dtype", FLOATS + INTS + [np.bool_])
def test_constant_attribute_round_trip(dtype):
    # the fast byte-level encoder/decoder agree with the dialect's list-based encode_attr
    for shape in [(), (0,), (3,), (2, 3)]:
        a = special(RNG, shape, dtype)
        attr = dense_attr(a)
        assert attr == encode_attr(a)
        op = tf.function(lambda: tf.constant(a)).get_concrete_function() \
            .dataflow_module().body.block.first_op.body.block.first_op
        assert_same(const_value(op), a)


def float_chain(c, d):
    def f(x):
        a, b = tf.constant(c), tf.constant(d)
        y = (a * b - a) / b + tf.abs(-a) - tf.maximum(a, b)
        return x + y, tf.reduce_sum(a, axis=0), tf.cast(a, tf.float64), a < b
    return f


def float_chain_numpy(c, d):
    with np.errstate(all="ignore"):
        return (c * d - c) / d + np.abs(-c) - np.maximum(c, d)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values_fold_bit_for_bit(dtype):
    c, d = special(RNG, (4, 5), dtype, False), special(RNG, (5,), dtype, False)
    f = float_chain(c, d)
    x = special(RNG, (4, 5), dtype)
    # XLA compiles the unfolded constants with its own FMA contraction and reciprocal
    # multiplication (not IEEE per-op); the folded value is the per-op one, as in the executor
    outs = check_exact(f, [x], PASS, xla_ulps=8)
    with np.errstate(all="ignore"):
        assert_same(outs[0], x + float_chain_numpy(c, d))
    assert_same(outs[2], c.astype(np.float64))
    assert_same(outs[3], c < d)
    assert set(_non_const_ops(counts(f, [x], PASS))) == {"df.add"}


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_half_precision_results_fold_only_on_request(dtype):
    # XLA evaluates half-precision chains in float32 without the intermediate roundings, so
    # by default ops with half results stay; casts out of half precision and compares fold
    c, d = special(RNG, (4, 5), dtype, False), special(RNG, (5,), dtype, False)
    f = float_chain(c, d)
    x = special(RNG, (4, 5), dtype)
    outs = check_exact(f, [x], PASS)
    assert_same(outs[2], c.astype(np.float64))
    with np.errstate(all="ignore"):
        assert_same(outs[3], c < d)
    ops = _non_const_ops(counts(f, [x], PASS))
    assert "df.cast" not in ops and "df.less" not in ops and ops["df.mul"] == 1
    # folded on request: exact in the executor, which rounds every op as NumPy does
    half = "constant-folding{fold-half=true}"
    outs = check_exact(f, [x], half, xla=False)
    with np.errstate(all="ignore"):
        assert_same(outs[0], x + float_chain_numpy(c, d))
    assert set(_non_const_ops(counts(f, [x], half))) == {"df.add"}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_subnormals_are_not_folded(dtype):
    # XLA flushes subnormal inputs and results to zero, the kernels do not: folding
    # tiny / 1 or x / tiny would change XLA's answer, so such ops stay
    tiny = ml_dtypes.finfo(dtype).smallest_subnormal
    normal_min = ml_dtypes.finfo(dtype).tiny

    def f(x):
        t = tf.constant(np.array([tiny, 1.0], dtype))
        m = tf.constant(np.array([normal_min, 1.0], dtype))
        big = tf.constant(np.array(2.0 ** 60, dtype))
        return (x + t / tf.constant(np.array(1.0, dtype)),     # makes a subnormal
                x + m / tf.constant(np.array(4.0, dtype)),     # makes a subnormal
                x + t * big)                                    # reads one, makes a normal

    x = special(RNG, (2,), dtype, False)
    check_exact(f, [x], PASS)
    c = counts(f, [x], PASS)
    assert c["df.div"] == 2 and c["df.mul"] == 1


@pytest.mark.parametrize("dtype", INTS)
def test_integer_chains_fold(dtype):
    c = special(RNG, (6,), dtype)

    def f(x):
        a = tf.constant(c)
        return x + (a * a - tf.reverse(a, [0])), tf.reshape(a, [2, 3]), tf.argmax(a)

    x = special(RNG, (6,), dtype)
    outs = check_exact(f, [x], PASS)
    with np.errstate(all="ignore"):
        assert_same(outs[0], x + (c * c - c[::-1]))
    assert_same(outs[1], c.reshape(2, 3))
    assert set(_non_const_ops(counts(f, [x], PASS))) == {"df.add"}


def test_multi_result_and_shape_ops():
    c = np.arange(12, dtype=np.float32).reshape(3, 4)

    def f(x):
        a, b = tf.split(tf.constant(c), [1, 3], axis=1)
        v, i = tf.math.top_k(tf.constant(c), k=2)
        return x * a, b, v, i, tf.shape(tf.constant(c)), tf.size(tf.constant(c))

    x = np.ones((3, 1), np.float32)
    outs = check_exact(f, [x], PASS)
    assert_same(outs[0], c[:, :1])
    assert_same(outs[2], np.sort(c, axis=1)[:, ::-1][:, :2])
    assert_same(outs[4], np.array([3, 4], np.int32))
    assert set(_non_const_ops(counts(f, [x], PASS))) == {"df.mul"}


def test_stateful_and_random_ops_are_not_folded():
    v = tf.Variable(2.0)

    def f(x):
        r = v.read_value() * tf.constant(3.0)
        v.assign_add(tf.constant(1.0) + tf.constant(1.0))
        u = tf.random.stateless_uniform([3], seed=[1, 2])
        return x + r, u, v.read_value()

    x = np.float32(1.0)
    outs = check_exact(f, [x], PASS, reset=lambda: v.assign(2.0))
    assert outs[0] == 7.0 and outs[2] == 4.0
    c = counts(f, [x], PASS)
    v.assign(2.0)
    assert c["df.read_variable"] == 2 and c["df.assign_add_variable"] == 1
    assert c["df.stateless_random_uniform"] == 1 and c["df.mul"] == 1
    assert c["df.add"] == 1                      # 1.0 + 1.0 did fold


def test_raising_kernel_is_left_for_run_time():
    def f(x):
        return x + tf.gather(tf.constant([1.0, 2.0]), tf.constant([5]))

    c = counts(f, [np.float32(0)], PASS)
    assert c["df.gather"] == 1
    for passes in ("", PASS):
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.function(f, passes=passes)(tf.constant(0.0))


def test_size_limits():
    def f(x):
        a = tf.constant(np.arange(100, dtype=np.float32))
        return x + a * 2.0, x + tf.range(5000, dtype=tf.float32), tf.zeros([64, 64])

    x = np.float32(1.0)
    c = counts(f, [x], PASS)
    assert c["df.mul"] == 0                      # 100 elements: folded
    assert c["df.range"] == 1 and c["df.broadcast_to"] == 1   # would grow the graph
    c = counts(f, [x], "constant-folding{max-size=50}")
    assert c["df.mul"] == 1
    c = counts(f, [x], "constant-folding{max-growth=100000}")
    assert c["df.range"] == 0 and c["df.broadcast_to"] == 0
    outs = check_exact(f, [x], "constant-folding{max-growth=100000}")
    assert_same(outs[1], np.arange(5000, dtype=np.float32) + 1)
    assert_same(outs[2], np.zeros((64, 64), np.float32))


def stateful_cond(x, v, pred):
    def then():
        v.assign_add(1.0)
        return x * 2.0

    def other():
        v.assign(-5.0)
        return x - 1.0

    y = tf.cond(tf.constant(pred), then, other)
    v.assign(v.read_value() * 10.0)   # after the cond: must see the branch's write
    return y, v.read_value()


@pytest.mark.parametrize("pred", [True, False])
def test_constant_cond_inlines_the_taken_branch_with_its_effects(pred):
    v = tf.Variable(1.0)

    def f(x):
        return stateful_cond(x, v, pred)

    x = special(RNG, (3,), np.float32)
    outs = check_exact(f, [x], PASS, reset=lambda: v.assign(1.0))
    with np.errstate(all="ignore"):
        assert_same(outs[0], x * np.float32(2) if pred else x - np.float32(1))
    assert outs[1] == (20.0 if pred else -50.0)
    v.assign(1.0)
    c = counts(f, [x], PASS)
    assert not c["df.cond"]
    assert c["df.assign_add_variable"] == (1 if pred else 0)
    assert c["df.assign_variable"] == (1 if pred else 2)


def test_switch_case_with_constant_index_and_nested_cond():
    def f(x, p):
        branches = [lambda: x + 1.0, lambda: tf.cond(p, lambda: x * 3.0, lambda: -x),
                    lambda: x - 5.0]
        return (tf.switch_case(tf.constant(1), branches),
                tf.switch_case(tf.constant(17), branches),    # out of range: the last
                tf.switch_case(tf.constant(-1), branches))

    x = special(RNG, (4,), np.float32)
    for p in (True, False):
        outs = check_exact(f, [x, np.bool_(p)], PASS)
        with np.errstate(all="ignore"):
            assert_same(outs[0], x * np.float32(3) if p else -x)
            assert_same(outs[1], x - np.float32(5))
            assert_same(outs[2], x - np.float32(5))
    c = counts(f, [x, np.bool_(True)], PASS)
    assert not c["df.case"] and c["df.cond"] == 1        # the nested one depends on p


def test_branch_with_more_static_type_keeps_the_signature():
    sig = [tf.TensorSpec([None], tf.float32), tf.TensorSpec([2], tf.float32)]

    def f(x, z):
        return (tf.cond(tf.constant(False), lambda: x, lambda: z * 2.0),
                tf.cond(tf.constant(False), lambda: x, lambda: tf.constant([1.0, 2.0])))
    m = tf.function(f, passes=PASS, input_signature=sig).get_concrete_function() \
        .optimized_module()
    c = op_counts(m)
    # z * 2.0 goes through an identity of the cond's type; the constant is folded into a
    # constant of that type
    assert not c["df.cond"] and c["df.identity"] == 1 and c["df.mul"] == 1
    assert [str(t) for t in m.body.block.first_op.function_type.outputs.data] == [
        "tensor<?xf32>", "tensor<?xf32>"]
    z = special(RNG, (2,), np.float32)
    outs = check_exact(f, [np.zeros(5, np.float32), z], PASS, signature=sig, xla=False)
    with np.errstate(all="ignore"):
        assert_same(outs[0], z * np.float32(2))
    assert_same(outs[1], np.array([1.0, 2.0], np.float32))
    assert_idempotent(f, None, PASS, signature=sig)
    # the default pipeline refines the identity's type and removes it, unless it is what
    # the function returns (the signature says `?`)
    m = tf.function(f, input_signature=sig).get_concrete_function().optimized_module()
    assert op_counts(m)["df.identity"] == 1

    def g(x, z):
        return f(x, z)[0] * 3.0
    m = tf.function(g, input_signature=sig).get_concrete_function().optimized_module()
    assert not op_counts(m)["df.identity"]
    outs = check_exact(g, [np.zeros(5, np.float32), z], None, signature=sig, xla=False)
    with np.errstate(all="ignore"):
        assert_same(outs[0], z * np.float32(2) * np.float32(3))


def test_inside_loops_and_idempotent():
    def f(x, n):
        def body(i, a):
            k = tf.constant(2.0) * tf.constant(3.0)     # folds inside the body
            return i + 1, a * k
        return tf.while_loop(lambda i, a: i < n, body, (tf.constant(0), x))[1]

    x = special(RNG, (3,), np.float32)
    for n in (0, 2):
        outs = check_exact(f, [x, np.int32(n)], PASS)
        with np.errstate(all="ignore"):
            assert_same(outs[0], x * np.float32(6) ** n if n else x)
    c = counts(f, [x, np.int32(2)], PASS)
    assert c["df.mul"] == 1
    assert_idempotent(f, [x, np.int32(2)], PASS)
    v = tf.Variable(1.0)
    assert_idempotent(lambda x: stateful_cond(x, v, True), [x], PASS)


@pytest.mark.parametrize("name", ["constant_folding_basic.mlir",
                                  "constant_folding_branches.mlir"])
def test_idempotent_on_the_filecheck_inputs(name):
    path = os.path.join(os.path.dirname(__file__), "..", "filecheck", name)
    with open(path) as fh:
        assert_idempotent_module(parse_module(fh.read()), PASS)


def test_folded_module_verifies_and_runs_dce_clean():
    m = run_text("""
func.func @f(%0: tensor<2xf32>) -> tensor<2xf32> {
  %1 = df.const {value = dense<[1.0, -0.0]> : tensor<2xf32>, dtype = f32} : () -> tensor<2xf32>
  %2 = df.neg %1 : (tensor<2xf32>) -> tensor<2xf32>
  %3 = df.add %0, %2 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %3 : tensor<2xf32>
}""", PASS)
    consts = [op for op in m.walk() if op.name == "df.const"]
    assert len(consts) == 1
    assert_same(const_value(consts[0]), np.array([-1.0, 0.0], np.float32))
