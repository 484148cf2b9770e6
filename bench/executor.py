"""The graph executor: staged loops against a NumPy Python loop, the MLP
training step against jax.jit, the first call of a 5000-step chain by phase, and the peak
host memory of an MLP step against the live tensors. Each function returns its numbers.
    python bench/executor.py [--quick]
"""
from __future__ import annotations

import os
import sys
import time
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import table  # noqa: E402
from mlp_step import flowjit_step, init, jax_step, paired_us  # noqa: E402

LOOP_ITERATIONS = 1000


def while_loop(rounds=15) -> dict:
    """A 1000-iteration staged `tf.while_loop` (counter, multiply-add on f32[16]) on the
    executor (generated code, and its interpreter) against the same loop in NumPy, in µs."""
    import flowjit as tf

    @tf.function
    def staged(x):
        return tf.while_loop(lambda i, v: i < LOOP_ITERATIONS,
                             lambda i, v: (i + 1, v * 0.999 + 1.0), [tf.constant(0), x])[1]

    def numpy_loop(v):
        i = 0
        while i < LOOP_ITERATIONS:
            i += 1
            v = v * np.float32(0.999) + np.float32(1.0)
        return v

    v = np.ones(16, np.float32)
    tv = tf.constant(v)
    np.testing.assert_allclose(staged(tv).numpy(), numpy_loop(v), rtol=1e-5)
    plan = staged.get_concrete_function(tv).program.executable(())
    t_exec, t_np, t_interp = paired_us(
        [lambda: staged(tv), lambda: numpy_loop(v), lambda: plan.interpret([v])],
        rounds=rounds, calls=3)
    return {"executor_us": t_exec, "numpy_us": t_np, "interpreter_us": t_interp,
            "ratio": t_exec / t_np, "goal": 1.0}


def mlp_step(rounds=15) -> dict:
    """Steady MLP 784-512-512-10 SGD step (batch 128): executor against jax.jit, in µs."""
    import jax

    import flowjit as tf
    params, x, y = init()
    tx, ty = tf.constant(x), tf.constant(y)
    step, _ = flowjit_step(params, jit=False)
    step(tx, ty)
    step(tx, ty)    # compiled on the second call
    jstep = jax_step()
    state = {"p": [jax.device_put(p) for p in params]}
    jx, jy = jax.device_put(x), jax.device_put(y)

    def jax_once():
        state["p"], loss = jstep(state["p"], jx, jy)
        loss.block_until_ready()
    jax_once()
    t_jax, t_exec = paired_us([jax_once, lambda: step(tx, ty)], rounds=rounds)
    return {"executor_us": t_exec, "jax_us": t_jax, "ratio": t_exec / t_jax, "goal": 1.2}


def chain_first_call(n=5000) -> dict:
    """First call of a chain of n elementwise steps (~1.5 n ops) on the executor, in s, by
    phase (trace, import, passes, plan; run is the rest)."""
    import flowjit as tf

    def chain(x):
        for i in range(n):
            x = tf.tanh(x) * 0.5 if i % 2 else x + 1.0
        return x
    f = tf.function(chain)
    x = tf.constant(np.ones(32, np.float32))
    t0 = time.perf_counter()
    f(x)
    total = time.perf_counter() - t0
    phases = dict(f.get_concrete_function(x).timings)
    phases["run"] = total - sum(phases.values())
    return {"total_s": total, "goal": 1.5, **{f"{k}_s": v for k, v in phases.items()}}


def mlp_memory() -> dict:
    """Peak host memory of one steady MLP step on the executor (NumPy's allocations, traced),
    against the bytes of the tensors live across steps (variables and the batch)."""
    import flowjit as tf
    params, x, y = init()
    tx, ty = tf.constant(x), tf.constant(y)
    step, variables = flowjit_step(params, jit=False)
    step(tx, ty)
    step(tx, ty)
    live = sum(v.numpy().nbytes for v in variables) + x.nbytes + y.nbytes
    tracemalloc.start()
    try:
        start, _ = tracemalloc.get_traced_memory()
        step(tx, ty)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    extra = peak - start
    return {"live_mb": live / 2 ** 20, "step_peak_extra_mb": extra / 2 ** 20,
            "ratio": (live + extra) / live, "goal": 2.0}


def main(quick=False):
    rounds = 5 if quick else 15
    loop, mlp, mem = while_loop(rounds), mlp_step(rounds), mlp_memory()
    chain = chain_first_call(1000 if quick else 5000)
    rows = [
        ["while 1000 iterations vs NumPy loop (us)", f"{loop['executor_us']:.0f}",
         f"{loop['numpy_us']:.0f}", f"{loop['ratio']:.2f}x", "<= 1.0x"],
        ["MLP SGD step vs jax.jit (us)", f"{mlp['executor_us']:.0f}", f"{mlp['jax_us']:.0f}",
         f"{mlp['ratio']:.2f}x", "<= 1.2x"],
        ["MLP step peak host memory vs live (MB)",
         f"{mem['live_mb'] + mem['step_peak_extra_mb']:.1f}", f"{mem['live_mb']:.1f}",
         f"{mem['ratio']:.2f}x", "<= 2.0x"],
    ]
    print(table(rows, ["executor", "flowjit", "reference", "ratio", "goal"]))
    print(f"\nloop on the interpreter: {loop['interpreter_us']:.0f} us")
    print("chain first call (s): " + " ".join(
        f"{k[:-2]}={v:.2f}" for k, v in chain.items() if k.endswith("_s")))


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
