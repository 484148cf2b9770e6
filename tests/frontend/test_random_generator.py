"""tf.random.Generator: a Variable state that every draw advances (eagerly, in the executor
and under XLA), checkpoints and restores, splits into independent streams; seeds build TF's
state layout (values checked by the TF oracle, cases_breadth_linalg.py)."""
from __future__ import annotations

import os

import numpy as np
import pytest

import flowjit as tf

MODES = ("eager", "graph", "xla")


def _in_mode(fn, mode):
    return fn if mode == "eager" else tf.function(fn, jit_compile=mode == "xla",
                                                  autograph=False)


@pytest.mark.parametrize("mode", MODES)
def test_draws_advance_the_state_and_repeat_from_the_same_seed(mode):
    def draws(g):
        return g.normal([3]), g.uniform([2], maxval=10, dtype=tf.int32), \
            g.truncated_normal([4], dtype=tf.float64)
    first, second = tf.random.Generator.from_seed(7), tf.random.Generator.from_seed(7)
    run_first, run_second = _in_mode(lambda: draws(first), mode), \
        _in_mode(lambda: draws(second), mode)
    a, b = run_first(), run_first()
    assert first.state.numpy().tolist() == [7 + 6, 0, 0]
    assert not np.array_equal(a[0].numpy(), b[0].numpy())
    eager = draws(tf.random.Generator.from_seed(7))
    for x, y in zip(run_second(), eager):
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-6)
    assert np.all(np.abs(a[2].numpy()) <= 2) and np.all((a[1].numpy() >= 0) & (a[1].numpy() < 10))


def test_checkpoint_restores_the_stream(tmp_path):
    g = tf.random.Generator.from_seed(3)
    g.normal([2])
    path = tf.train.Checkpoint(gen=g).save(os.path.join(tmp_path, "ckpt"))
    after = g.normal([5]).numpy()
    g.normal([5])
    tf.train.Checkpoint(gen=g).restore(path)
    np.testing.assert_array_equal(g.normal([5]).numpy(), after)


def test_split_gives_distinct_streams_and_keeps_the_parent_going():
    g = tf.random.Generator.from_seed(1)
    children = g.split(3)
    values = [c.normal([4]).numpy() for c in children] + [g.normal([4]).numpy()]
    assert len({v.tobytes() for v in values}) == 4
    assert all(c.algorithm == 1 and c.state.shape == (3,) for c in children)


def test_state_forms_and_global_generator():
    g = tf.random.Generator(state=[5, 0, 9], alg="philox")
    assert int(g.key.numpy()) == 9
    h = tf.random.Generator.from_key_counter(9, [5, 0], alg=tf.random.Algorithm.PHILOX)
    np.testing.assert_array_equal(g.normal([3]).numpy(), h.normal([3]).numpy())
    t = tf.random.Generator.from_seed(4, alg="threefry")
    assert t.state.numpy().tolist() == [4, 0] and t.algorithm == 2
    copy = tf.random.Generator(copy_from=g)
    np.testing.assert_array_equal(copy.uniform([2]).numpy(), g.uniform([2]).numpy())
    g.reset_from_seed(5)
    assert g.state.numpy().tolist() == [5, 0, 0]
    g.skip(10)
    assert g.state.numpy().tolist() == [15, 0, 0]
    assert g.make_seeds(4).shape == (2, 4) and g.uniform_full_int([3]).dtype == tf.int64
    tf.random.set_global_generator(tf.random.Generator.from_seed(2))
    np.testing.assert_array_equal(tf.random.get_global_generator().normal([2]).numpy(),
                                  tf.random.Generator.from_seed(2).normal([2]).numpy())
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \[3\] are incompatible"):
        tf.random.Generator(state=[1, 2], alg="philox")
    with pytest.raises(ValueError, match="Must specify maxval"):
        g.uniform([2], dtype=tf.int32)
