"""`layout`: transpose pairs around elementwise ops cancel (NHWC <-> NCHW round trips),
adjacent transposes cancel or compose. Exact in the executor and under XLA (NaN, inf and
-0.0 included); guards; idempotent."""
import numpy as np
import pytest

import flowjit as tf
from pass_helpers import assert_idempotent, check, op_counts

PASS = "layout"
RNG = np.random.default_rng(0)
X = RNG.normal(size=(2, 3, 4, 5)).astype(np.float32)
Y = RNG.normal(size=(2, 3, 4, 5)).astype(np.float32)
X[0, 0, 0, :3] = [np.nan, np.inf, -0.0]
TO_NCHW, TO_NHWC = [0, 3, 1, 2], [0, 2, 3, 1]
C = RNG.normal(size=(5, 1, 1)).astype(np.float32)


def test_round_trip_around_elementwise_chain():
    def f(x, y):
        t = tf.transpose(x, TO_NCHW)
        e = tf.nn.relu(t) * 2.0 + C               # scalar and per-channel constant operands
        e = tf.math.maximum(e, tf.transpose(y, TO_NCHW))   # same-perm transposed operand
        return tf.transpose(tf.cast(e > 0.5, tf.int32), TO_NHWC)
    counts, xla_counts = check(f, [X, Y], PASS)
    assert counts["df.transpose"] == 0 and xla_counts["df.transpose"] == 0
    assert_idempotent(f, [X, Y], PASS)


def test_other_operand_of_full_rank_gets_one_transpose():
    def f(x, y):
        t = tf.transpose(x, TO_NCHW)
        return tf.transpose(tf.math.tanh(t - y), TO_NHWC)
    y = RNG.normal(size=(2, 5, 3, 4)).astype(np.float32)
    counts, _ = check(f, [X, y], PASS)
    assert counts["df.transpose"] == 1


def test_adjacent_pairs():
    def f(x):
        same = tf.transpose(tf.transpose(x, TO_NCHW), TO_NHWC)
        composed = tf.transpose(tf.transpose(x, [1, 0, 2, 3]), [0, 2, 1, 3])
        three = tf.transpose(tf.transpose(tf.transpose(x, TO_NCHW), TO_NHWC), TO_NCHW)
        return same, composed, three
    counts, _ = check(f, [X], PASS)
    assert counts["df.transpose"] == 2
    assert_idempotent(f, [X], PASS)


@pytest.mark.parametrize("case", ["reused", "reduction", "not_inverse", "lower_rank_arg"])
def test_guards(case):
    b = RNG.normal(size=(3, 4)).astype(np.float32)

    def f(x, b):
        t = tf.transpose(x, TO_NCHW)
        if case == "reused":
            e = tf.nn.relu(t)
            return tf.transpose(e, TO_NHWC), e
        if case == "reduction":
            return tf.transpose(tf.reduce_sum(t, axis=1, keepdims=True), TO_NHWC)
        if case == "not_inverse":
            return tf.transpose(tf.exp(t), [0, 3, 2, 1])
        return tf.transpose(t + b, TO_NHWC)      # a rank-2 runtime operand broadcasts
    counts, _ = check(f, [X, b], PASS)
    assert counts["df.transpose"] == 2


def test_default_pipeline_cancels_too():
    def f(x):
        return tf.transpose(tf.nn.sigmoid(tf.transpose(x, TO_NCHW)), TO_NHWC)
    g = tf.function(f)
    np.testing.assert_array_equal(g(X).numpy(), tf.function(f, passes="")(X).numpy())
    counts = op_counts(g.get_concrete_function(tf.constant(X)).optimized_module())
    assert counts["df.transpose"] == 0 and counts["df.sigmoid"] == 1
