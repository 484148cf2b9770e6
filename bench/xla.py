"""jit_compile=True against jax.jit, in one run.

Goals: cached call <= 1.0x jax.jit; steady MLP <= 1.0x; first call <= 1.0x; chain of
N=5000 elementwise ops first call <= 1.2x; 1000-iteration while loop <= 1.5x.
    python bench/xla.py [--quick]
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import mlp_forward, per_call_us, table  # noqa: E402


def first_call(fn, *args):
    t0 = time.perf_counter()
    out = fn(*args)
    getattr(out, "block_until_ready", lambda: None)()
    return time.perf_counter() - t0


def main(quick=False):
    import jax
    import jax.numpy as jnp

    import flowjit as tf

    rows = []
    # cached call
    x = np.arange(4, dtype=np.float32)
    fj = tf.function(lambda x: x * 2.0 + 1.0, jit_compile=True)
    jx = jax.jit(lambda x: x * 2.0 + 1.0)
    tx, jxx = tf.constant(x), jax.device_put(x)
    np.testing.assert_allclose(fj(tx).numpy(), np.asarray(jx(jxx)))
    t_fj = per_call_us(lambda: fj(tx))
    t_jx = per_call_us(lambda: jx(jxx))
    rows.append(["cached call x*2+1 f32[4] (us)", f"{t_fj:.1f}", f"{t_jx:.1f}",
                 f"{t_fj / t_jx:.2f}x", "<= 1.0x"])

    # MLP forward 784-512-512-10 b128: first call and steady state
    run_fj, run_jx, _ = mlp_forward(jit_compile=True)
    f_fj = first_call(run_fj)
    f_jx = first_call(run_jx)
    np.testing.assert_allclose(run_fj().numpy(), np.asarray(run_jx()), rtol=1e-4, atol=1e-4)
    rows.append(["MLP first call (ms)", f"{f_fj * 1e3:.0f}", f"{f_jx * 1e3:.0f}",
                 f"{f_fj / f_jx:.2f}x", "<= 1.0x"])
    t_fj = per_call_us(lambda: run_fj()._value.block_until_ready())
    t_jx = per_call_us(lambda: run_jx().block_until_ready())
    rows.append(["MLP steady (us)", f"{t_fj:.0f}", f"{t_jx:.0f}", f"{t_fj / t_jx:.2f}x",
                 "<= 1.0x"])

    # while loop, 1000 iterations
    @tf.function(jit_compile=True)
    def loop_fj(x):
        return tf.while_loop(lambda i, v: i < 1000, lambda i, v: (i + 1, v * 0.999 + 1.0),
                             [tf.constant(0), x])[1]

    @jax.jit
    def loop_jx(x):
        return jax.lax.while_loop(lambda c: c[0] < 1000, lambda c: (c[0] + 1, c[1] * 0.999 + 1.0),
                                  (0, x))[1]

    v = np.ones(16, np.float32)
    tv, jv = tf.constant(v), jax.device_put(v)
    np.testing.assert_allclose(loop_fj(tv).numpy(), np.asarray(loop_jx(jv)), rtol=1e-5)
    t_fj = per_call_us(lambda: loop_fj(tv)._value.block_until_ready())
    t_jx = per_call_us(lambda: loop_jx(jv).block_until_ready())
    rows.append(["while 1000 iterations (us)", f"{t_fj:.0f}", f"{t_jx:.0f}",
                 f"{t_fj / t_jx:.2f}x", "<= 1.5x"])

    print(table(rows, ["case", "flowjit", "jax.jit", "ratio", "goal"]))

    # chains of N elementwise ops: first-call time by phase
    print()
    crow = []
    for n in ((100, 1000) if quick else (100, 1000, 5000)):
        def chain_fj(x, n=n):
            for i in range(n):
                x = tf.tanh(x) * 0.5 if i % 2 else x + 1.0
            return x

        def chain_jx(x, n=n):
            for i in range(n):
                x = jnp.tanh(x) * 0.5 if i % 2 else x + 1.0
            return x

        ff = tf.function(chain_fj, jit_compile=True)
        xs = np.ones(32, np.float32)
        t_f = first_call(ff, tf.constant(xs))
        t_j = first_call(jax.jit(chain_jx), jax.device_put(xs))
        ir = ff.compiler_ir(tf.constant(xs))
        ph = ir.timings()
        crow.append([str(n), f"{t_f:.2f}", f"{t_j:.2f}", f"{t_f / t_j:.2f}x",
                     " ".join(f"{k}={v:.2f}" for k, v in ph.items() if k != "plan")])
    print(table(crow, ["N ops", "flowjit first s", "jax.jit first s", "ratio",
                       "flowjit phases (s)"]))


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
