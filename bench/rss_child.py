"""One framework's MLP training steps in a fresh process; prints its peak resident memory.

    python bench/rss_child.py {jax,xla,executor} STEPS SIZES BATCH   (SIZES: 784,512,512,10)

Prints JSON: `peak_rss_bytes` (the process's peak, imports included) and `imports_rss_bytes`
(the peak once the framework is imported, before anything is built), so
the difference is what the step itself added. Run by `scenarios.rss`.
"""
from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))


def peak_rss_bytes() -> int:
    """This process's resident-memory high-water mark (`VmHWM`). Not `getrusage`'s
    ru_maxrss: Linux carries that over from the parent through fork and exec, so every child
    of the bench would report the bench's own peak."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024   # kB
    raise RuntimeError("no VmHWM in /proc/self/status (Linux only)")


def main(framework: str, steps: int, sizes, batch: int):
    import jax
    import numpy as np

    import mlp_step
    if framework != "jax":
        import flowjit as tf
    imports = peak_rss_bytes()
    params, x, y = mlp_step.init(sizes=sizes, batch=batch)
    if framework == "jax":
        step = mlp_step.jax_step()
        p, jx, jy = [jax.device_put(a) for a in params], jax.device_put(x), jax.device_put(y)
        for _ in range(steps):
            p, loss = step(p, jx, jy)
            np.asarray(loss)
    else:
        step, _ = mlp_step.flowjit_step(params, jit=framework == "xla")
        tx, ty = tf.constant(x), tf.constant(y)
        for _ in range(steps):
            step(tx, ty).numpy()
    print(json.dumps({"peak_rss_bytes": peak_rss_bytes(), "imports_rss_bytes": imports}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), [int(s) for s in sys.argv[3].split(",")],
         int(sys.argv[4]))
