"""An MLP training step (GradientTape + SGD) against jax.jit(value_and_grad + update), in one run.

784-512-512-10 relu MLP, batch 128, mean softmax cross-entropy, SGD(0.01). flowjit runs the
TF2-style step

    @tf.function(jit_compile=...)
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(x, y)
        optimizer.apply_gradients(zip(tape.gradient(loss, params), params))
        return loss

under XLA (variables donated) and on the graph executor; jax runs `jax.jit` of
value_and_grad + a tree_map update with the parameters donated. First call = trace + compile +
run of a fresh function; steady = best per-step time, the contenders timed in alternating
batches (the machine's load then weighs on all alike). The graph executor's matmuls are NumPy's
(OpenBLAS), run with the executor's own BLAS thread count (runtime/blas.py).

Goals: XLA steady <= 1.0x jax.jit, graph steady <= 1.2x jax.jit, XLA first call <= 1.0x.
    python bench/mlp_step.py [--quick]
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import table  # noqa: E402

SIZES = [784, 512, 512, 10]
BATCH = 128
LR = 0.01


def init(seed=0, sizes=SIZES, batch=BATCH):
    rng = np.random.default_rng(seed)
    params = []
    for a, b in zip(sizes, sizes[1:]):
        params.append((rng.normal(size=(a, b)) * np.sqrt(2.0 / a)).astype(np.float32))
        params.append(np.zeros(b, np.float32))
    x = rng.normal(size=(batch, sizes[0])).astype(np.float32)
    y = rng.integers(0, sizes[-1], size=batch).astype(np.int32)
    return params, x, y


def flowjit_step(params, jit):
    import flowjit as tf
    vs = [tf.Variable(p) for p in params]
    return flowjit_train_step(vs, jit), vs


def flowjit_train_step(vs, jit):
    """The TF2-style training step over the variables `vs` (weights and biases in turn)."""
    import flowjit as tf
    opt = tf.optimizers.SGD(LR)

    def loss_fn(x, y):
        h = x
        for i in range(0, len(vs), 2):
            h = tf.matmul(h, vs[i]) + vs[i + 1]
            if i + 2 < len(vs):
                h = tf.nn.relu(h)
        return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))

    @tf.function(jit_compile=jit)
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(x, y)
        grads = tape.gradient(loss, vs)
        opt.apply_gradients(zip(grads, vs))
        return loss
    return train_step


def jax_step():
    import jax
    return jax.jit(jax_update(), donate_argnums=0)


def jax_update():
    """The same step for jax: (params, x, y) -> (new params, loss)."""
    import jax
    import jax.numpy as jnp

    def loss_fn(params, x, y):
        h = x
        for i in range(0, len(params), 2):
            h = h @ params[i] + params[i + 1]
            if i + 2 < len(params):
                h = jnp.maximum(h, 0)
        logp = jax.nn.log_softmax(h)
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    def step(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return jax.tree_util.tree_map(lambda p, g: p - LR * g, params, grads), loss
    return step


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def paired_us(fns, rounds=15, calls=5):
    """Best per-call time (us) of each function, measured in alternating batches so that load
    changing on a shared machine affects every contender alike."""
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            best[i] = min(best[i], (time.perf_counter() - t0) / calls * 1e6)
    return best


def main(quick=False):
    import jax

    import flowjit as tf

    # Warm the XLA backend once, so neither first call below pays its start-up.
    jax.jit(lambda a: a + 1.0)(np.float32(1.0)).block_until_ready()
    tf.function(lambda a: a + 1.0, jit_compile=True)(tf.constant(1.0))

    params, x, y = init()
    tx, ty = tf.constant(x), tf.constant(y)
    jx, jy = jax.device_put(x), jax.device_put(y)

    # first calls (fresh functions)
    fj_xla, vs_xla = flowjit_step(params, jit=True)
    f_xla, loss_xla = timed(lambda: float(fj_xla(tx, ty)))
    jstep = jax_step()
    jparams = [jax.device_put(p) for p in params]
    f_jax, (jparams, jloss) = timed(lambda: jax.block_until_ready(jstep(jparams, jx, jy)))
    fj_graph, vs_graph = flowjit_step(params, jit=False)
    f_graph, loss_graph = timed(lambda: float(fj_graph(tx, ty)))

    # the same numbers after one step
    np.testing.assert_allclose(loss_xla, float(jloss), rtol=1e-5)
    np.testing.assert_allclose(loss_graph, float(jloss), rtol=1e-5)
    for a, b, c in zip(vs_xla, vs_graph, jparams):
        np.testing.assert_allclose(a.numpy(), np.asarray(c), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(b.numpy(), np.asarray(c), rtol=1e-4, atol=1e-5)

    # steady state
    state = {"p": jparams}

    def jax_once():
        state["p"], loss = jstep(state["p"], jx, jy)
        loss.block_until_ready()

    fx = lambda: fj_xla(tx, ty)._value.block_until_ready()  # noqa: E731
    fg = lambda: fj_graph(tx, ty)  # noqa: E731
    t_jax, t_xla, t_graph = paired_us([jax_once, fx, fg], rounds=5 if quick else 15)

    rows = [
        ["XLA first call (ms)", f"{f_xla * 1e3:.0f}", f"{f_jax * 1e3:.0f}",
         f"{f_xla / f_jax:.2f}x", "<= 1.0x"],
        ["XLA steady step (us)", f"{t_xla:.0f}", f"{t_jax:.0f}", f"{t_xla / t_jax:.2f}x",
         "<= 1.0x"],
        ["graph executor first call (ms)", f"{f_graph * 1e3:.0f}", f"{f_jax * 1e3:.0f}",
         f"{f_graph / f_jax:.2f}x", "-"],
        ["graph executor steady step (us)", f"{t_graph:.0f}", f"{t_jax:.0f}",
         f"{t_graph / t_jax:.2f}x", "<= 1.2x"],
    ]
    print(f"MLP {'-'.join(map(str, SIZES))} batch {BATCH}, softmax cross-entropy, SGD step")
    print(table(rows, ["case", "flowjit", "jax.jit", "ratio", "goal"]))
    ir = fj_xla.compiler_ir(tx, ty)
    print("\nflowjit XLA first call by phase (s): " + " ".join(
        f"{k}={v:.3f}" for k, v in ir.timings().items()))


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
