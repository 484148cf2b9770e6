"""Eager per-op cost: flowjit against NumPy and un-jitted JAX, in one run.

Goal: at most 3 us above NumPy per small op. Prints times and ratios; the ratios are
what to compare across machines.
    python bench/eager_overhead.py
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import per_call_us, table  # noqa: E402


def main():
    import jax
    import jax.numpy as jnp

    import flowjit as tf

    rng = np.random.default_rng(0)
    cases = {
        "add f32[4]": (rng.normal(size=4).astype(np.float32),) * 2,
        "matmul f32[128,128]": (rng.normal(size=(128, 128)).astype(np.float32),) * 2,
    }
    impls = {
        "add f32[4]": (np.add, tf.add, jnp.add),
        "matmul f32[128,128]": (np.matmul, tf.matmul, jnp.matmul),
    }
    rows = []
    for name, (a, b) in cases.items():
        np_fn, tf_fn, jax_fn = impls[name]
        ta, tb = tf.constant(a), tf.constant(b)
        ja, jb = jax.device_put(a), jax.device_put(b)
        np.testing.assert_allclose(tf_fn(ta, tb).numpy(), np_fn(a, b), rtol=1e-5)
        jax_fn(ja, jb).block_until_ready()
        t_np = per_call_us(lambda: np_fn(a, b))
        t_fj = per_call_us(lambda: tf_fn(ta, tb))
        t_jx = per_call_us(lambda: jax_fn(ja, jb).block_until_ready())
        rows.append([name, f"{t_np:.2f}", f"{t_fj:.2f}", f"{t_jx:.2f}",
                     f"{t_fj - t_np:+.2f}", f"{t_fj / t_np:.2f}x", f"{t_fj / t_jx:.3f}x"])
    print(table(rows, ["op", "numpy us", "flowjit us", "jax eager us", "flowjit-numpy us",
                       "flowjit/numpy", "flowjit/jax"]))
    print("\ngoal: flowjit-numpy <= +3 us per small op")


if __name__ == "__main__":
    main()
