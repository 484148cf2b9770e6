"""Stateful random ops under jit_compile=True: every compiled call draws the words the graph
executor would draw for the same seeds and advances the same stream positions (the kernels
themselves are checked against an independent Threefry in tests/ops/test_random.py)."""
import numpy as np
import pytest

import flowjit as tf

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def _draws(x):
    return {"normal": tf.random.normal(tf.shape(x)),               # op seed from the graph
            "uniform": tf.random.uniform([5], -1.0, 3.0, seed=3),
            "int32": tf.random.uniform([4], 2, 9, dtype=tf.int32, seed=4),
            "int64": tf.random.uniform([3], -5, 5, dtype=tf.int64),
            "truncated": tf.random.truncated_normal([2, 3], dtype=tf.float64, seed=5),
            "same_seed": tf.random.uniform([3], -1.0, 3.0, seed=3)}  # shares uniform's stream


def _run(modes, seed=7):
    """One call per entry of `modes` (False: executor, True: XLA) after set_seed(seed)."""
    fns = {jit: tf.function(_draws, jit_compile=jit) for jit in set(modes)}
    tf.random.set_seed(seed)
    return [{k: v.numpy() for k, v in fns[jit](tf.constant(X)).items()} for jit in modes]


def _assert_same_draws(got, want, keys=None):
    for k in keys or want:
        assert got[k].dtype == want[k].dtype and got[k].shape == want[k].shape, k
        if k in ("normal", "truncated"):  # XLA's log/cos/sqrt: a few ulps
            np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6, err_msg=k)
        else:
            np.testing.assert_array_equal(got[k], want[k], err_msg=k)


def test_successive_xla_calls_continue_the_executor_sequence():
    executor = _run([False] * 3)
    xla = _run([True] * 3)
    for got, want in zip(xla, executor):
        _assert_same_draws(got, want)
    for k in executor[0]:  # each call draws fresh values
        assert not np.array_equal(xla[0][k], xla[1][k]), k
    # the two modes advance one stream: interleaved calls continue each other (ops with an
    # op seed: without one, each trace takes the next op seed from the global seed's sequence)
    for got, want in zip(_run([True, False, True]), executor):
        _assert_same_draws(got, want, ["uniform", "int32", "truncated", "same_seed"])


def test_shapes_and_dtypes_static_and_none():
    @tf.function(jit_compile=True, input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def f(x):
        return (tf.random.normal(tf.shape(x), dtype=tf.float16),
                tf.random.uniform(tf.shape(x)[:1], maxval=7, dtype=tf.int64),
                tf.random.truncated_normal([0, 2]))
    for n in (1, 4):
        a, b, c = f(np.zeros((n, 3), np.float32))
        assert (a.dtype, a.shape) == (tf.float16, (n, 3))
        assert (b.dtype, b.shape) == (tf.int64, (n,)) and 0 <= b.numpy().min() <= 6
        assert (c.dtype, c.shape) == (tf.float32, (0, 2))
    # TF 2.21: static shapes (None, 3), (None,), (0, 2)
    assert [o.shape.as_tuple() for o in f.get_concrete_function().outputs] == \
        [(None, 3), (None,), (0, 2)]
    assert f.compile_count() == 2


def test_statistics_without_a_seed():
    tf.random.set_seed(None)

    @tf.function(jit_compile=True)
    def f(x):
        return tf.random.normal(tf.shape(x)), tf.random.uniform(tf.shape(x))
    x = tf.zeros([200, 100])
    n1, u1 = (t.numpy() for t in f(x))
    n2, _ = f(x)
    assert abs(n1.mean()) < 0.03 and abs(n1.std() - 1) < 0.03
    assert abs(u1.mean() - 0.5) < 0.02 and u1.min() >= 0 and u1.max() < 1
    assert not np.array_equal(n1, n2.numpy())


def test_gradient_through_a_random_mask():
    @tf.function(jit_compile=True)
    def f(x):
        u = tf.random.uniform(tf.shape(x))
        return x * u, u
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y, u = f(x)
        loss = tf.reduce_sum(y)
    np.testing.assert_array_equal(tape.gradient(loss, x).numpy(), u.numpy())

    @tf.function(jit_compile=True)
    def inside(x):
        with tf.GradientTape() as t:
            t.watch(x)
            u = tf.random.uniform(tf.shape(x), seed=2)
            loss = tf.reduce_sum(x * u)
        return t.gradient(loss, x), u
    g, u = inside(x)
    np.testing.assert_array_equal(g.numpy(), u.numpy())


def test_refused_inside_a_loop():
    @tf.function(jit_compile=True)
    def f(x):
        return tf.while_loop(lambda i, s: i < 3,
                             lambda i, s: (i + 1, s + tf.random.uniform([2])), (0, x))
    with pytest.raises(tf.errors.UnimplementedError, match=r"random_uniform.*loop or branch"):
        f(tf.zeros([2]))


def test_saved_model_artifact_counts_its_host_inputs(tmp_path):
    import json
    m = tf.Module()
    m.f = tf.function(lambda x: x + tf.random.uniform([3], seed=1), jit_compile=True,
                      input_signature=[tf.TensorSpec([3], tf.float32)])
    tf.saved_model.save(m, str(tmp_path))
    manifest = json.load(open(tmp_path / "saved_model.json"))
    [entry] = manifest["functions"].values()
    assert entry["stablehlo"]["host_inputs"] == 1
    f = tf.saved_model.load(str(tmp_path)).f
    a, b = f(tf.zeros([3])).numpy(), f(tf.zeros([3])).numpy()
    assert a.shape == (3,) and 0 <= a.min() and a.max() < 1 and not np.array_equal(a, b)
