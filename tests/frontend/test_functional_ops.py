"""tf.map_fn / tf.scan / tf.foldl / tf.foldr in eager, graph executor and XLA against NumPy,
with gradients against finite differences and TF 2.21's errors (recorded)."""
import numpy as np
import pytest

import flowjit as tf

MODES = ("eager", "graph", "xla")
A = np.array([1.0, 2.0, 3.0], np.float32)
B = np.array([4.0, 5.0, 6.0], np.float32)


def run(fn, mode, *args):
    f = fn if mode == "eager" else tf.function(fn, jit_compile=mode == "xla")
    return f(*[tf.constant(a) for a in args])


def _maps(a, b):
    m = tf.map_fn(lambda x: tf.reduce_sum(x * 2.0), tf.reshape(a, [3, 1]))
    nested = tf.map_fn(lambda x: (x[0] + x[1], x[0] * x[1]), (a, b))
    sig = tf.map_fn(lambda x: {"n": tf.cast(x, tf.int32)}, a,
                    fn_output_signature={"n": tf.TensorSpec([], tf.int32)})
    return m, nested, sig["n"]


@pytest.mark.parametrize("mode", MODES)
def test_map_fn(mode):
    m, (s, p), n = run(_maps, mode, A, B)
    np.testing.assert_array_equal(m.numpy(), A * 2)
    np.testing.assert_array_equal(s.numpy(), A + B)
    np.testing.assert_array_equal(p.numpy(), A * B)
    assert n.dtype == tf.int32
    np.testing.assert_array_equal(n.numpy(), A.astype(np.int32))


def _scans_and_folds(a):
    return (tf.scan(lambda acc, x: acc + x, a),
            tf.scan(lambda acc, x: acc * x, a, initializer=tf.constant(2.0)),
            tf.scan(lambda acc, x: acc + x, a, reverse=True),
            tf.foldl(lambda acc, x: acc - x, a),
            tf.foldr(lambda acc, x: acc - x, a),
            tf.foldl(lambda acc, x: acc - x, a, initializer=10.0))


@pytest.mark.parametrize("mode", MODES)
def test_scan_and_folds(mode):
    outs = [o.numpy() for o in run(_scans_and_folds, mode, A)]
    np.testing.assert_array_equal(outs[0], np.cumsum(A))
    np.testing.assert_array_equal(outs[1], 2 * np.cumprod(A))
    np.testing.assert_array_equal(outs[2], np.cumsum(A[::-1])[::-1])
    assert outs[3] == A[0] - A[1] - A[2]          # foldl starts from the first element
    assert outs[4] == A[2] - A[1] - A[0]          # foldr from the last
    assert outs[5] == 10 - A.sum()


def test_errors():
    # TF 2.21 texts (recorded):
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="TensorArray dtype is float32 but Op is trying to write dtype "
                             "int32"):
        tf.map_fn(lambda x: tf.cast(x, tf.int32), tf.constant(A))
    with pytest.raises(ValueError, match="Dimensions 3 and 2 are not compatible"):
        tf.map_fn(lambda x: x, (tf.constant(A), tf.constant(B[:2])))
    with pytest.raises(ValueError, match="Elements in elems must be 1\\+ dimensional Tensors, "
                                         "not scalars"):
        tf.map_fn(lambda x: x, tf.constant(1.0))
    with pytest.raises(tf.errors.OutOfRangeError,
                       match="Tried to read from index 0 but array size is: 0"):
        tf.foldl(lambda acc, x: acc - x, tf.zeros([0]))


def _grads(w, x):
    with tf.GradientTape() as tape:
        tape.watch([w, x])
        m = tf.map_fn(lambda r: tf.reduce_sum(tf.sin(r * w)), x)
        s = tf.scan(lambda acc, r: acc * r + w, x)
        loss = tf.reduce_sum(m) + tf.reduce_sum(s ** 2)
    return tape.gradient(loss, [w, x])


def _loss_numpy(w, x):
    m = np.sin(x * w).sum(axis=1)
    acc, s = x[0], [x[0]]
    for r in x[1:]:
        acc = acc * r + w
        s.append(acc)
    return m.sum() + (np.stack(s) ** 2).sum()


@pytest.mark.parametrize("mode", MODES)
def test_gradients_match_finite_differences(mode):
    rng = np.random.default_rng(1)
    w, x = rng.normal(size=(2,)), rng.normal(size=(3, 2))
    got = run(_grads, mode, w, x)
    eps = 1e-6
    for k, (g, arg) in enumerate(zip(got, (w, x))):
        want = np.zeros_like(arg)
        for idx in np.ndindex(arg.shape):
            up, down = [w.copy(), x.copy()], [w.copy(), x.copy()]
            up[k][idx] += eps
            down[k][idx] -= eps
            want[idx] = (_loss_numpy(*up) - _loss_numpy(*down)) / (2 * eps)
        np.testing.assert_allclose(g.numpy(), want, rtol=1e-6, atol=1e-7)
