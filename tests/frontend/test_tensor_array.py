"""tf.TensorArray eagerly, in staged loops on the graph executor and under XLA, with gradients
through loops checked against NumPy finite differences. Expected values are NumPy's; error
classes and texts are TF 2.21's (recorded)."""
import numpy as np
import pytest

import flowjit as tf

MODES = ("eager", "graph", "xla")


def run(fn, mode, *args):
    f = fn if mode == "eager" else tf.function(fn, jit_compile=mode == "xla")
    return f(*[tf.constant(a) for a in args])


X = np.arange(12, dtype=np.float32).reshape(4, 3)


def _for_loop(x):
    ta = tf.TensorArray(tf.float32, size=4)
    for i in tf.range(4):
        ta = ta.write(i, x[i] * 2.0)
    return ta.stack(), ta.size()


def _while_loop(x):
    ta = tf.TensorArray(tf.float32, size=4, element_shape=[3])
    _, ta = tf.while_loop(lambda i, ta: i < 4, lambda i, ta: (i + 1, ta.write(3 - i, x[i])),
                          (0, ta))
    return ta.stack()


def _read_gather_concat(x):
    ta = tf.TensorArray(tf.float32, size=4, clear_after_read=False).unstack(x)
    return ta.read(2), ta.gather([3, 0]), ta.concat()


def _scatter(x):
    ta = tf.TensorArray(tf.float32, size=4)
    ta = ta.scatter([1, 3], x[:2])
    return ta.stack()


@pytest.mark.parametrize("mode", MODES)
def test_staged_loops(mode):
    stacked, size = run(_for_loop, mode, X)
    np.testing.assert_array_equal(stacked.numpy(), X * 2)
    assert int(size) == 4
    np.testing.assert_array_equal(run(_while_loop, mode, X).numpy(), X[::-1])


@pytest.mark.parametrize("mode", MODES)
def test_read_gather_concat_scatter(mode):
    r, g, c = run(_read_gather_concat, mode, X)
    np.testing.assert_array_equal(r.numpy(), X[2])
    np.testing.assert_array_equal(g.numpy(), X[[3, 0]])
    np.testing.assert_array_equal(c.numpy(), X.reshape(-1))
    expected = np.zeros_like(X)
    expected[[1, 3]] = X[:2]
    np.testing.assert_array_equal(run(_scatter, mode, X).numpy(), expected)


def _dynamic(x):
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    i = tf.constant(0)
    while i < tf.shape(x)[0]:
        ta = ta.write(i, x[i] + 1.0)
        i += 1
    return ta.stack(), ta.size()


@pytest.mark.parametrize("mode", ("eager", "graph"))
def test_dynamic_size_grows(mode):
    stacked, size = run(_dynamic, mode, X)
    np.testing.assert_array_equal(stacked.numpy(), X + 1)
    assert int(size) == 4


def test_dynamic_size_under_xla_is_refused():
    with pytest.raises(tf.errors.UnimplementedError, match="while"):
        run(_dynamic, "xla", X)


def test_eager_semantics():
    # TF 2.21: eager writes update the array in place; unwritten elements read as zeros;
    # a second write to an index replaces the element; a write past a dynamic size grows it.
    ta = tf.TensorArray(tf.float32, size=3)
    ta = ta.write(0, [1.0, 2.0])
    ta.write(0, [3.0, 4.0])
    np.testing.assert_array_equal(ta.stack().numpy(), [[3, 4], [0, 0], [0, 0]])
    assert ta.element_shape.as_list() == [2] and ta.dtype == tf.float32
    dyn = tf.TensorArray(tf.float32, size=0, dynamic_size=True).write(3, 1.0)
    np.testing.assert_array_equal(dyn.stack().numpy(), [0, 0, 0, 1])
    assert int(dyn.size()) == 4
    # TF 2.21: an empty array of unknown element shape stacks to an empty float vector.
    assert tf.TensorArray(tf.float32, size=0).stack().shape.as_list() == [0]
    fixed = tf.TensorArray(tf.float32, size=2, element_shape=[3])
    np.testing.assert_array_equal(fixed.stack().numpy(), np.zeros((2, 3)))


def test_eager_errors():
    ta = tf.TensorArray(tf.float32, size=3).write(0, [1.0, 2.0])
    # TF 2.21 texts (recorded):
    with pytest.raises(ValueError, match=r"Incompatible shape for value \(\(3,\)\), "
                                         r"expected \(\(2,\)\)"):
        ta.write(1, [3.0, 4.0, 5.0])
    with pytest.raises(tf.errors.OutOfRangeError,
                       match="Tried to read from index 5 but array size is: 3"):
        ta.read(5)
    with pytest.raises(tf.errors.OutOfRangeError, match="Tried to write to index 5 but array "
                                                        "is not resizeable and size is: 3"):
        ta.write(5, [1.0, 2.0])
    with pytest.raises(tf.errors.OutOfRangeError,
                       match=r"Writing to negative indices \(index -1\) is not allowed"):
        ta.write(-1, [1.0, 2.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="TensorArray dtype is float32 "
                                                             "but Op is trying to write dtype "
                                                             "int32"):
        ta.write(1, tf.constant([1, 2]))
    once = tf.TensorArray(tf.float32, size=2).write(0, 1.0)
    once.read(0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not read index 0 twice "
                                                             "because it was cleared after a "
                                                             "previous read"):
        once.read(0)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Concat saw a scalar shape at index 0 but requires at least "
                             "vectors"):
        tf.TensorArray(tf.float32, size=2).write(0, 1.0).write(1, 2.0).concat()


def test_traced_shape_mismatch_names_the_line():
    def f(x):
        ta = tf.TensorArray(tf.float32, size=3)
        ta = ta.write(0, x[0])
        ta = ta.write(1, x)          # TF 2.21: ValueError "Inconsistent shapes: saw ..."
        return ta.stack()
    with pytest.raises(ValueError, match=r"(?s)test_tensor_array.py.*Inconsistent shapes: saw "
                                         r"\(4, 3\) but expected \(3,\)"):
        tf.function(f)(tf.constant(X))


def test_traced_static_index_errors():
    def write_past(x):
        return tf.TensorArray(tf.float32, size=3).write(5, x[0]).stack()

    def read_past(x):
        return tf.TensorArray(tf.float32, size=3).write(0, x[0]).read(5)
    # TF 2.21 (graph): InvalidArgumentError "Trying to modify element 5 in a list with 3
    # elements." / "Trying to access element 5 in a list with 3 elements."
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Trying to modify element 5 in a list with 3 elements"):
        tf.function(write_past)(tf.constant(X))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Trying to access element 5 in a list with 3 elements"):
        tf.function(read_past)(tf.constant(X))
    # TF 2.21 (eager): OutOfRangeError "Reading from negative indices (index -1) is not
    # allowed."
    with pytest.raises(tf.errors.OutOfRangeError,
                       match=r"Reading from negative indices \(index -1\) is not allowed"):
        tf.TensorArray(tf.float32, size=3).read(-1)


# --- gradients through loops: an RNN-style accumulation ----------------------------------
def _rnn_numpy(w, x):
    h = np.zeros(w.shape[0])
    out = []
    for t in range(x.shape[0]):
        h = np.tanh(w @ h + x[t])
        out.append(h)
    return np.sum(np.stack(out) ** 2)


def _rnn_grads(w, x):
    with tf.GradientTape() as tape:
        tape.watch([w, x])
        def step(t, h, ta):
            h = tf.tanh(tf.reshape(tf.matmul(w, tf.reshape(h, [2, 1])), [2]) + x[t])
            return t + 1, h, ta.write(t, h)
        # XLA keeps each iteration's values for the gradient: the loop needs a static bound.
        _, _, ta = tf.while_loop(lambda t, h, ta: t < 3, step,
                                 (0, tf.zeros([2], tf.float64),
                                  tf.TensorArray(tf.float64, size=3)), maximum_iterations=3)
        loss = tf.reduce_sum(ta.stack() ** 2)
    return tape.gradient(loss, [w, x])


def _finite_differences(fn, args, eps=1e-6):
    grads = []
    for k, a in enumerate(args):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            up = [b.copy() for b in args]
            down = [b.copy() for b in args]
            up[k][idx] += eps
            down[k][idx] -= eps
            g[idx] = (fn(*up) - fn(*down)) / (2 * eps)
        grads.append(g)
    return grads


@pytest.mark.parametrize("mode", MODES)
def test_rnn_gradient_matches_finite_differences(mode):
    rng = np.random.default_rng(0)
    w, x = rng.normal(size=(2, 2)) * 0.5, rng.normal(size=(3, 2))
    got = run(_rnn_grads, mode, w, x)
    want = _finite_differences(_rnn_numpy, [w, x])
    for g, e in zip(got, want):
        np.testing.assert_allclose(g.numpy(), e, rtol=1e-6, atol=1e-8)
