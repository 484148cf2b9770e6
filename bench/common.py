"""Timing helpers shared by the benchmarks: best-of-repeats per-call time, ratio tables."""
from __future__ import annotations

import time
import timeit


def per_call_us(fn, min_time=0.2, repeat=5) -> float:
    """Best per-call time in microseconds (best of `repeat` runs of about `min_time` s each):
    the minimum is the least noisy estimate on a shared machine."""
    t = timeit.Timer(fn)
    n, _ = t.autorange()
    n = max(1, int(n * min_time / 0.2))
    return min(t.repeat(repeat=repeat, number=n)) / n * 1e6


def interleaved_best(fns, rounds=15, batch_s=0.02) -> list:
    """Best per-call time in seconds of each function, the functions timed in alternating
    batches of about `batch_s` each, so that load changing on a shared machine weighs on
    every contender alike."""
    calls = [_calls_per_batch(fn, batch_s) for fn in fns]
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            n = calls[i]
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            best[i] = min(best[i], (time.perf_counter() - t0) / n)
    return best


def _calls_per_batch(fn, batch_s) -> int:
    """How many calls of `fn` take about `batch_s`, counted by doubling a timed run.

    Not from one call: a "cached" call's first few may still do one-off work (the executor
    compiles a plan to Python on its second call), and a batch sized by such a call holds a
    single call, whose time is mostly timer and cold-cache noise (25 µs measured for a 4 µs
    call)."""
    for _ in range(3):
        fn()
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        elapsed = time.perf_counter() - t0
        if elapsed >= batch_s / 4 or n >= 1 << 20:
            return max(1, int(n * batch_s / max(elapsed, 1e-9)))
        n *= 2


def first_call_s(fn) -> float:
    """Seconds of one call (a fresh function's first: trace and compile included)."""
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def table(rows, headers):
    widths = [max(len(str(r[i])) for r in rows + [headers]) for i in range(len(headers))]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths))
    out = [line, "-" * len(line)]
    for r in rows:
        out.append("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))
    return "\n".join(out)


def mlp_forward(jit_compile: bool, sizes=(784, 512, 512, 10), batch=128, seed=0):
    """The MLP forward benchmark, built the same way for every backend.

    Returns `(run_flowjit, run_jax, run_numpy)`; each runs one forward on the same inputs
    and weights (jax's is already jitted, flowjit's a `function` with `jit_compile`)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    import flowjit as tf

    rng = np.random.default_rng(seed)
    ws = [rng.normal(size=(a, b)).astype(np.float32) * 0.05 for a, b in zip(sizes, sizes[1:])]
    bs = [np.zeros(b, np.float32) for b in sizes[1:]]
    xb = rng.normal(size=(batch, sizes[0])).astype(np.float32)
    last = len(ws) - 1

    def forward(x, params, matmul, relu):
        for i, (w, b) in enumerate(params):
            x = matmul(x, w) + b
            if i < last:
                x = relu(x)
        return x

    vars_ = [(tf.Variable(w), tf.Variable(b)) for w, b in zip(ws, bs)]

    @tf.function(jit_compile=jit_compile)
    def fj(x):
        return forward(x, vars_, tf.matmul, tf.nn.relu)

    jx = jax.jit(lambda p, x: forward(x, p, jnp.matmul, lambda v: jnp.maximum(v, 0)))
    params = [(jax.device_put(w), jax.device_put(b)) for w, b in zip(ws, bs)]
    txb, jxb = tf.constant(xb), jax.device_put(xb)
    return (lambda: fj(txb), lambda: jx(params, jxb),
            lambda: forward(xb, zip(ws, bs), np.matmul, lambda v: np.maximum(v, 0)))
