"""Graph-mode call cost: flowjit's graph executor against jax.jit and NumPy, in one run.

Goals: cached call of f(x) = x*2+1 on f32[4] <= 1.0x jax.jit's call; MLP forward
784-512-512-10 at batch 128 <= 1.2x jax.jit. Also the import/plan time of a 1k-op graph.
    python bench/graph_call.py
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import mlp_forward, per_call_us, table  # noqa: E402


def main():
    import jax

    import flowjit as tf

    rows = []
    # 1. cached call of a tiny function
    x = np.arange(4, dtype=np.float32)
    fj = tf.function(lambda x: x * 2.0 + 1.0)
    jx = jax.jit(lambda x: x * 2.0 + 1.0)
    tx, jxx = tf.constant(x), jax.device_put(x)
    np.testing.assert_allclose(fj(tx).numpy(), np.asarray(jx(jxx)))
    t_np = per_call_us(lambda: x * 2.0 + 1.0)
    t_fj = per_call_us(lambda: fj(tx))
    t_jx = per_call_us(lambda: jx(jxx).block_until_ready())
    rows.append(["x*2+1 f32[4] cached call", f"{t_np:.1f}", f"{t_fj:.1f}", f"{t_jx:.1f}",
                 f"{t_fj / t_jx:.2f}x", "<= 1.0x"])

    # 2. MLP forward 784-512-512-10, batch 128
    run_fj, run_jx, run_np = mlp_forward(jit_compile=False)
    np.testing.assert_allclose(run_fj().numpy(), run_np(), rtol=1e-4, atol=1e-4)
    run_jx().block_until_ready()
    t_np = per_call_us(run_np)
    t_fj = per_call_us(run_fj)
    t_jx = per_call_us(lambda: run_jx().block_until_ready())
    rows.append(["MLP 784-512-512-10 b128", f"{t_np:.1f}", f"{t_fj:.1f}", f"{t_jx:.1f}",
                 f"{t_fj / t_jx:.2f}x", "<= 1.2x"])
    print(table(rows, ["case", "numpy us", "flowjit us", "jax.jit us", "flowjit/jax",
                       "goal"]))

    # 3. import + plan time for a 1k-op graph
    @tf.function
    def chain(x):
        for _ in range(500):
            x = tf.tanh(x) * 0.5
        return x

    t0 = time.perf_counter()
    cf = chain.get_concrete_function(tf.TensorSpec([16]))
    t1 = time.perf_counter()
    chain(tf.zeros([16]))
    t2 = time.perf_counter()
    n = len(cf.graph.nodes)
    print(f"\n1k-op graph ({n} nodes): trace {1e3 * (t1 - t0):.0f} ms, "
          f"import {1e3 * cf.timings['import']:.0f} ms, plan {1e3 * cf.timings['plan']:.0f} ms, "
          f"first call total {1e3 * (t2 - t1):.0f} ms")


if __name__ == "__main__":
    main()
