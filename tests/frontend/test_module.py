"""`tf.Module`: tracking through attributes and nested containers in TF's order, names and name
scopes, and modules whose `__call__` is a `tf.function` creating its Variables on the first call
(eager, graph executor, XLA), trained with GradientTape and an optimizer."""
import numpy as np
import pytest

import flowjit as tf
from helpers import assert_close


class Dense(tf.Module):
    def __init__(self, n_in, n_out, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(np.ones([n_in, n_out], np.float32), name="w")
        self.b = tf.Variable(np.zeros([n_out], np.float32), name="b")

    def __call__(self, x):
        return tf.nn.relu(x @ self.w + self.b)


class MLP(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.layers = [Dense(2, 3), Dense(3, 1)]
        self.extra = {"z": tf.Variable(1.0, trainable=False, name="z"),
                      "a": (tf.Variable(2.0, name="a"),)}
        self.alpha = tf.Variable(3.0, name="alpha")


def test_tracking_order_and_names():
    m = MLP()
    # TF 2.21: attributes sorted by name, own leaves before those of submodules.
    assert m.name == "mlp" and m.name_scope.name == "mlp/"
    assert [v.name for v in m.variables] == ["alpha:0", "a:0", "z:0", "b:0", "w:0", "b:0", "w:0"]
    assert [v.name for v in m.trainable_variables] == ["alpha:0", "a:0", "b:0", "w:0", "b:0",
                                                       "w:0"]
    assert [v.name for v in m.non_trainable_variables] == ["z:0"]
    assert m.submodules == (m.layers[0], m.layers[1])
    assert isinstance(m.variables, tuple)
    paths = [p for p, _ in m._flatten(predicate=lambda v: isinstance(v, tf.Variable),
                                      with_path=True)]
    assert paths == [("alpha",), ("extra", "a", 0), ("extra", "z"), ("layers", 0, "b"),
                     ("layers", 0, "w"), ("layers", 1, "b"), ("layers", 1, "w")]
    assert Dense(1, 1).name == "dense" and MLP(name="foo").name == "foo"


def test_shared_variable_listed_once_and_cycles_end():
    m = tf.Module()
    v = tf.Variable(1.0)
    m.a, m.b = v, [v]
    m.self_ref = m
    assert len(m.variables) == 1


def test_bad_name():
    # TF 2.21's message.
    with pytest.raises(ValueError, match="'bad name' is not a valid module name. Module names "
                                         "must be valid Python identifiers"):
        tf.Module(name="bad name")


def test_name_scope_names_variables():
    class Scoped(tf.Module):
        def __init__(self):
            super().__init__()
            with self.name_scope:
                self.v = tf.Variable(1.0, name="v")

        @tf.Module.with_name_scope
        def make(self):
            return tf.Variable(2.0, name="u")

    s = Scoped()
    assert s.v.name == "scoped/v:0"      # TF 2.21: 'scoped/v:0'
    assert s.make().name == "scoped/u:0"
    assert tf.Variable(0.0, name="free").name == "free:0"


class Lazy(tf.Module):
    """Creates its weights on the first call (legal in TF)."""

    def __init__(self):
        super().__init__()
        self.w = None

    def __call__(self, x):
        if self.w is None:
            self.w = tf.Variable(np.full([x.shape[-1], 2], 0.5, np.float32), name="w")
        return tf.reduce_sum(tf.square(x @ self.w - 1.0))


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
def test_function_call_creates_variables_first_call_and_trains(mode):
    lazy = Lazy()
    if mode != "eager":
        lazy.__call__ = tf.function(lazy.__call__, jit_compile=mode == "xla")
    x = np.array([[1.0, 2.0, 3.0]], np.float32)
    opt = tf.optimizers.SGD(0.01)
    w = np.full([3, 2], 0.5, np.float32)
    for _ in range(3):
        with tf.GradientTape() as tape:
            loss = lazy(x)
        assert [v.name for v in lazy.trainable_variables] == ["w:0"]
        grads = tape.gradient(loss, lazy.trainable_variables)
        opt.apply_gradients(zip(grads, lazy.trainable_variables))
        expected_loss = np.sum(np.square(x @ w - 1.0))
        w = w - 0.01 * (x.T @ (2 * (x @ w - 1.0)))
        assert_close(loss.numpy(), expected_loss, rtol=1e-5)
    assert_close(lazy.w.numpy(), w, rtol=1e-5)
    assert len(lazy.variables) == 1


def test_method_decorated_with_function_in_class():
    class Affine(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(np.float32(2.0))

        @tf.function(jit_compile=True)
        def __call__(self, x):
            return x * self.w

    a, b = Affine(), Affine()
    b.w.assign(3.0)
    assert float(a(np.float32(1.5))) == 3.0 and float(b(np.float32(1.5))) == 4.5
