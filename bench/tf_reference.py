"""TF 2.21 beside flowjit and jax in `python -m bench --with-tf`: the same programs written for
`tensorflow` (graph: `tf.function`; XLA: `tf.function(jit_compile=True)`), measured in the
same run and the same interleaved batches as the others. Only the benchmarks import
TensorFlow, and only when asked; run them with a Python that has both it and flowjit's
dependencies.
"""
from __future__ import annotations

import numpy as np

_TF = []   # the tensorflow module once imported


def load():
    """tensorflow, imported once; None when it is not installed."""
    if not _TF:
        try:
            import tensorflow
        except ImportError:
            return None
        _TF.append(tensorflow)
    return _TF[0]


def both(tf, fn):
    """`fn` as TF's graph function and as its XLA function."""
    return tf.function(fn), tf.function(fn, jit_compile=True)


def cached_call(tf, x):
    graph, xla = both(tf, lambda v: v * 2.0 + 1.0)
    tx = tf.constant(x)
    return lambda: graph(tx), lambda: xla(tx)


def while_loop(tf, iters, v):
    def loop(x):
        return tf.while_loop(lambda i, a: i < iters, lambda i, a: (i + 1, a * 0.999 + 1.0),
                             [tf.constant(0), x])[1]
    graph, xla = both(tf, loop)
    tv = tf.constant(v)
    return lambda: graph(tv).numpy(), lambda: xla(tv).numpy()


def mlp_step(tf, params, jit, lr):
    """The training step of bench/mlp_step.py in TF (SGD written as `assign_sub`: TF's
    `tf.keras` optimizers are Keras 3's, which update Keras variables)."""
    vs = [tf.Variable(p) for p in params]

    @tf.function(jit_compile=jit)
    def step(x, y):
        with tf.GradientTape() as tape:
            h = x
            for i in range(0, len(vs), 2):
                h = tf.matmul(h, vs[i]) + vs[i + 1]
                if i + 2 < len(vs):
                    h = tf.nn.relu(h)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=y, logits=h))
        for v, g in zip(vs, tape.gradient(loss, vs)):
            v.assign_sub(lr * g)
        return loss
    return step, vs


def chain(tf, n, xs):
    """First-call functions of bench's chain of `n` steps, graph and XLA, and the input."""
    def steps(x):
        for i in range(n):
            x = tf.tanh(x) * 0.5 if i % 2 else x + 1.0
        return x
    graph, xla = both(tf, steps)
    tx = tf.constant(xs)
    return (lambda: np.asarray(graph(tx))), (lambda: np.asarray(xla(tx)))
