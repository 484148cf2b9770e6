"""Warm start across processes: the first call of a `jit_compile=True` function in a fresh
process, cold (no compilation cache) against warm (the cache filled by an earlier process),
for the chain of N elementwise steps, a functional MLP training step (784-512-512-10,
batch 128: parameters in, updated parameters and the loss out) and the same step written as
TF2 code is: the model's variables captured and updated in place, the loss out.

Goals: warm first call <= 0.1x cold for the chain, <= 0.2x cold for the MLP steps.
    python bench/warm_start.py [--quick]
Each number is measured in its own process (`child`) after XLA's client has started (as the
other first-call rows, `scenarios.warm_up`): a process start pays for importing jax either way.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
LR = 0.01
N = int(os.environ.get("FLOWJIT_BENCH_CHAIN", "5000"))


def chain_function(tf):
    @tf.function(jit_compile=True)
    def chain(x):
        for i in range(N):
            x = tf.tanh(x) * 0.5 if i % 2 else x + 1.0
        return x
    return chain, (np.ones(32, np.float32),)


def mlp_function(tf):
    sys.path.insert(0, HERE)
    from mlp_step import init
    params, x, y = init()

    @tf.function(jit_compile=True)
    def step(w1, b1, w2, b2, w3, b3, x, y):
        params = [w1, b1, w2, b2, w3, b3]
        with tf.GradientTape() as tape:
            tape.watch(params)
            h = tf.nn.relu(tf.matmul(x, w1) + b1)
            h = tf.nn.relu(tf.matmul(h, w2) + b2)
            logits = tf.matmul(h, w3) + b3
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=y, logits=logits))
        grads = tape.gradient(loss, params)
        return [p - LR * g for p, g in zip(params, grads)] + [loss]
    return step, (*params, x, y)


def mlp_variables_function(tf):
    sys.path.insert(0, HERE)
    from mlp_step import init
    params, x, y = init()

    class MLP(tf.Module):
        def __init__(self, values):
            super().__init__()
            self.weights = [tf.Variable(v) for v in values]

        def __call__(self, x):
            w1, b1, w2, b2, w3, b3 = self.weights
            h = tf.nn.relu(tf.matmul(x, w1) + b1)
            h = tf.nn.relu(tf.matmul(h, w2) + b2)
            return tf.matmul(h, w3) + b3

    model = MLP(params)

    @tf.function(jit_compile=True)
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=y, logits=model(x)))
        for v, g in zip(model.weights, tape.gradient(loss, model.weights)):
            v.assign_sub(LR * g)
        return loss
    return step, (x, y)


WORKLOADS = {"chain": chain_function, "mlp": mlp_function,
             "mlp_variables": mlp_variables_function}


def child(workload: str, cache: str):
    import flowjit as tf
    if cache != "-":
        tf.config.experimental.enable_compilation_cache(cache)
    import jax
    jax.jit(lambda a: a + 1.0)(np.float32(1.0)).block_until_ready()   # XLA's client
    fn, args = WORKLOADS[workload](tf)
    tensors = [tf.constant(a) for a in args]
    t0 = time.perf_counter()
    out = fn(*tensors)
    first = out[-1] if isinstance(out, list) else out
    first.numpy()
    seconds = time.perf_counter() - t0
    print(json.dumps({"seconds": seconds, "traces": fn.experimental_get_tracing_count(),
                      "checksum": float(np.sum(first.numpy()))}))


def _run_child(workload, cache, n):
    env = dict(os.environ, FLOWJIT_BENCH_CHAIN=str(n))
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "child", workload, cache],
                          capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def scenario(cfg) -> dict:
    """cold/warm first-call seconds per workload (`<workload>_cold`, `<workload>_warm`)."""
    out = {}
    for workload in WORKLOADS:
        with tempfile.TemporaryDirectory() as cache:
            filled = _run_child(workload, cache, cfg.n)        # fills the cache
            cold = _run_child(workload, "-", cfg.n)
            warm = _run_child(workload, cache, cfg.n)
        assert warm["traces"] == 0 and filled["traces"] == cold["traces"] == 1
        assert np.isclose(warm["checksum"], cold["checksum"], rtol=1e-5)
        out[workload + "_cold"] = cold["seconds"]
        out[workload + "_filling"] = filled["seconds"]
        out[workload + "_warm"] = warm["seconds"]
    return out


def main(quick=False):
    sys.path.insert(0, HERE)
    from common import table
    from scenarios import FULL, QUICK
    got = scenario(QUICK if quick else FULL)
    rows = [[f"{w} first call, warm / cold (s)", f"{got[w + '_warm']:.2f}",
             f"{got[w + '_cold']:.2f}", f"{got[w + '_warm'] / got[w + '_cold']:.2f}x", goal]
            for w, goal in (("chain", "<= 0.1x"), ("mlp", "<= 0.2x"),
                            ("mlp_variables", "<= 0.2x"))]
    print(table(rows, ["benchmark", "warm", "cold", "ratio", "goal"]))


if __name__ == "__main__":
    if sys.argv[1:2] == ["child"]:
        child(sys.argv[2], sys.argv[3])
    else:
        main(quick="--quick" in sys.argv)
