"""Keras optimizers: three steps of SGD (plain, momentum, Nesterov) and Adam give TensorFlow's
numbers, eagerly, traced and under XLA; slot variables are created once, on the first trace.

The expected numbers were produced once with TensorFlow 2.21 / Keras 3.15 (the oracle venv,
never imported by flowjit or its tests) running this very problem:

    w, b = tf.Variable(W0), tf.Variable(B0)
    for _ in range(3):
        with tf.GradientTape() as t:
            loss = tf.reduce_mean(tf.square(tf.matmul(X, w) + b - Y))
        opt.apply_gradients(zip(t.gradient(loss, [w, b]), [w, b]))
        losses.append(float(loss))
    print(w.numpy().tolist(), b.numpy().tolist(), losses)

with opt = tf.keras.optimizers.SGD(0.1), SGD(0.1, momentum=0.9), SGD(0.1, momentum=0.9,
nesterov=True), Adam(0.1) and Adam(0.01, beta_1=0.8, beta_2=0.99, epsilon=1e-3).
"""
import numpy as np
import pytest

import flowjit as tf
from helpers import assert_close

X = np.array([[1., 2.], [3., 4.], [-1., 0.5]], np.float32)
Y = np.array([[1., 0.], [0., 1.], [0.5, 0.5]], np.float32)
W0 = np.array([[0.5, -0.3], [0.2, 0.8]], np.float32)
B0 = np.array([0.1, -0.1], np.float32)

TF_RESULTS = {
    "sgd": dict(
        w=[[0.17273147404193878, -0.431302547454834], [-0.0626879557967186, 0.5650749206542969]],
        b=[0.12802407145500183, -0.2005363404750824],
        losses=[1.5483332872390747, 0.30891308188438416, 0.2726043164730072]),
    "momentum": dict(
        w=[[-0.0892685204744339, -0.5260525941848755],
           [-0.25368791818618774, 0.3873499631881714]],
        b=[0.16602405905723572, -0.2805863320827484],
        losses=[1.5483332872390747, 0.30891308188438416, 1.3200401067733765]),
    "nesterov": dict(
        w=[[-0.011904776096343994, -0.4018099009990692],
           [-0.017683792859315872, 0.5377910137176514]],
        b=[0.3038511276245117, -0.2548310160636902],
        losses=[1.5483332872390747, 1.4839738607406616, 0.22890932857990265]),
    "adam": dict(
        w=[[0.21389926970005035, -0.5529020428657532],
           [-0.07609173655509949, 0.5415852069854736]],
        b=[-0.1097494512796402, -0.3676125407218933],
        losses=[1.5483332872390747, 0.7075047492980957, 0.39744117856025696]),
    "adam_custom": dict(
        w=[[0.4701606035232544, -0.32971587777137756], [0.1701725274324417, 0.77022385597229]],
        b=[0.07062696665525436, -0.12961025536060333],
        losses=[1.5483332872390747, 1.4407386779785156, 1.3385772705078125]),
}

OPTIMIZERS = {
    "sgd": lambda: tf.optimizers.SGD(0.1),
    "momentum": lambda: tf.optimizers.SGD(0.1, momentum=0.9),
    "nesterov": lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
    "adam": lambda: tf.keras.optimizers.Adam(0.1),
    "adam_custom": lambda: tf.optimizers.Adam(0.01, beta_1=0.8, beta_2=0.99, epsilon=1e-3),
}


@pytest.mark.parametrize("mode", ["eager", "graph", "xla"])
@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_three_steps_match_tensorflow(name, mode):
    w, b = tf.Variable(W0), tf.Variable(B0)
    opt = OPTIMIZERS[name]()

    def step():
        with tf.GradientTape() as t:
            loss = tf.reduce_mean(tf.square(tf.matmul(X, w) + b - Y))
        grads = t.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b]))
        return loss

    if mode != "eager":
        step = tf.function(step, jit_compile=(mode == "xla"))
    losses = [float(step()) for _ in range(3)]
    want = TF_RESULTS[name]
    assert_close(np.array(losses), np.array(want["losses"]), rtol=2e-6)
    assert_close(w.numpy(), np.array(want["w"], np.float32), rtol=2e-6, atol=1e-7)
    assert_close(b.numpy(), np.array(want["b"], np.float32), rtol=2e-6, atol=1e-7)
    assert int(opt.iterations.numpy()) == 3
    if mode != "eager":
        # TF 2.21: 2 when the first call creates slot variables (the trace is redone with
        # creation refused), else 1 (Adam: 2, plain SGD: 1)
        assert step.experimental_get_tracing_count() == (1 if name == "sgd" else 2)


def test_slots_created_once_on_first_trace_and_are_variables():
    w = tf.Variable([1.0, 2.0])
    opt = tf.optimizers.Adam(0.1)

    @tf.function
    def step(g):
        opt.apply_gradients([(g, w)])

    step(tf.constant([1.0, 1.0]))
    step(tf.constant([1.0, 1.0]))
    step(tf.constant([[1.0, 1.0]])[0])   # same signature: no retrace
    assert len(opt._slots) == 1
    m, v = opt._slot(w, "m"), opt._slot(w, "v")
    assert isinstance(m, tf.Variable) and not m.trainable
    # m after three steps of g = 1: 1 - 0.9^3; v: 1 - 0.999^3
    assert_close(m.numpy(), np.full(2, 1 - 0.9 ** 3, np.float32), rtol=1e-6)
    assert_close(v.numpy(), np.full(2, 1 - 0.999 ** 3, np.float32), rtol=1e-5)
    assert len(opt.variables) == 4


def test_none_gradients_are_skipped_and_all_none_raises():
    w, u = tf.Variable(1.0), tf.Variable(2.0)
    opt = tf.optimizers.SGD(0.5)
    opt.apply_gradients([(tf.constant(2.0), w), (None, u)])
    assert float(w.numpy()) == 0.0 and float(u.numpy()) == 2.0
    with pytest.raises(ValueError, match="No gradients provided"):
        opt.apply_gradients([(None, u)])
    with pytest.raises(TypeError, match="Variable"):
        opt.apply_gradients([(tf.constant(1.0), tf.constant(1.0))])


def test_learning_rate_can_change_between_calls_of_a_traced_step():
    w = tf.Variable(1.0)
    opt = tf.optimizers.SGD(0.5)

    @tf.function
    def step():
        opt.apply_gradients([(tf.constant(1.0), w)])

    step()
    opt.learning_rate = 0.25
    step()
    assert float(w.numpy()) == pytest.approx(1.0 - 0.5 - 0.25)
    assert step.experimental_get_tracing_count() == 1


def test_minimize_with_callable_loss():
    w = tf.Variable(3.0)
    opt = tf.optimizers.SGD(0.1)
    for _ in range(2):
        opt.minimize(lambda: w * w, [w])
    assert float(w.numpy()) == pytest.approx(3.0 * 0.8 * 0.8)


def test_bad_momentum():
    with pytest.raises(ValueError, match="momentum"):
        tf.optimizers.SGD(momentum=1.5)
