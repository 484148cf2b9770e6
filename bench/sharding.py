"""A data-parallel MLP training step on 4 forced host CPUs: flowjit's DTensor step against
jax.jit with the same shardings, in one run.

784-256-10 relu MLP, global batch 128 split over the 4 devices (`batch_sharded`), weights
replicated (`DVariable`s), mean softmax cross-entropy, SGD(0.01). flowjit runs

    @tf.function(jit_compile=True)
    def train_step(x, y):              # x, y: DTensors sharded along the batch
        with tf.GradientTape() as tape:
            loss = loss_fn(x, y)
        optimizer.apply_gradients(zip(tape.gradient(loss, params), params))
        return loss

and jax runs `jax.jit(value_and_grad + update)` with the same input shardings and the
parameters donated. XLA's partitioner inserts the gradient all-reduces in both: their
counts in the optimized HLO should be equal. First call = trace + compile + run of a fresh
function; steady = best per-step time, the two timed in alternating batches.

Goals: steady <= 1.1x jax.jit, first call <= 1.2x, equal all-reduce counts.
    python bench/sharding.py [--quick]
`measure(quick)` returns the numbers (it runs this file in a subprocess: the host device
count is fixed when XLA's backend starts).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import table  # noqa: E402
from mlp_step import flowjit_train_step, jax_update, paired_us  # noqa: E402
from mlp_step import init as mlp_init  # noqa: E402

DEVICES = 4
SIZES = [784, 256, 10]
BATCH = 128


def init(seed=0):
    return mlp_init(seed, SIZES, BATCH)


def collectives(hlo: str) -> int:
    """Number of all-reduce instructions in an optimized HLO module."""
    return len(re.findall(r"\sall-reduce(?:-start)?\(", hlo))


def flowjit_step(params, mesh):
    import flowjit as tf
    from flowjit.experimental import dtensor
    vs = [dtensor.DVariable(dtensor.relayout(tf.constant(p), dtensor.Layout.replicated(
        mesh, p.ndim))) for p in params]
    return flowjit_train_step(vs, True), vs


def jax_step(mesh):
    import jax
    from jax.sharding import NamedSharding, PartitionSpec as P
    rep, batch = NamedSharding(mesh, P()), NamedSharding(mesh, P("b"))
    n = len(SIZES) * 2 - 2
    return jax.jit(jax_update(), in_shardings=([rep] * n, batch, batch),
                   donate_argnums=0), rep, batch


def _run(quick=False) -> dict:
    import flowjit as tf
    cpu = tf.config.list_physical_devices("CPU")
    tf.config.set_logical_device_configuration(
        cpu[0], [tf.config.LogicalDeviceConfiguration()] * DEVICES)
    import jax
    from flowjit.experimental import dtensor
    mesh = dtensor.create_mesh([("b", DEVICES)], device_type="CPU")
    jmesh = jax.sharding.Mesh(np.array(jax.devices()[:DEVICES]), ("b",))
    jax.jit(lambda a: a + 1.0)(np.float32(1.0)).block_until_ready()   # warm the backend
    tf.function(lambda a: a + 1.0, jit_compile=True)(tf.constant(1.0))

    params, x, y = init()
    batch = lambda a: dtensor.relayout(tf.constant(a), dtensor.Layout.batch_sharded(  # noqa
        mesh, "b", a.ndim))
    tx, ty = batch(x), batch(y)
    fj, vs = flowjit_step(params, mesh)
    t0 = time.perf_counter()
    loss = float(dtensor.relayout(fj(tx, ty), dtensor.Layout.replicated(mesh, 0)).numpy())
    first_fj = time.perf_counter() - t0

    jstep, rep, bsh = jax_step(jmesh)
    jparams = [jax.device_put(p, rep) for p in params]
    jx, jy = jax.device_put(x, bsh), jax.device_put(y, bsh)
    t0 = time.perf_counter()
    jparams, jloss = jax.block_until_ready(jstep(jparams, jx, jy))
    first_jax = time.perf_counter() - t0

    np.testing.assert_allclose(loss, float(jloss), rtol=1e-5)
    for v, p in zip(vs, jparams):
        got = dtensor.relayout(v.read_value(), dtensor.Layout.replicated(mesh, v.shape.rank))
        np.testing.assert_allclose(got.numpy(), np.asarray(p), rtol=1e-4, atol=1e-5)

    state = {"p": jparams}

    def jax_once():
        state["p"], out = jstep(state["p"], jx, jy)
        out.block_until_ready()

    t_jax, t_fj = paired_us([jax_once, lambda: fj(tx, ty)._value.block_until_ready()],
                            rounds=5 if quick else 15)
    hlo_fj = fj.experimental_get_compiler_ir(tx, ty)(stage="optimized_hlo")
    hlo_jax = jstep.lower(state["p"], jx, jy).compile().as_text()
    return {"devices": DEVICES, "steady_us": t_fj, "steady_jax_us": t_jax,
            "first_call_s": first_fj, "first_call_jax_s": first_jax,
            "all_reduces": collectives(hlo_fj), "all_reduces_jax": collectives(hlo_jax)}


def measure(quick=False) -> dict:
    """The benchmark's numbers, measured in a fresh process with 4 host devices."""
    out = subprocess.run([sys.executable, __file__, "--json"] + (["--quick"] if quick else []),
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(quick=False):
    r = _run(quick)
    rows = [
        ["first call (ms)", f"{r['first_call_s'] * 1e3:.0f}",
         f"{r['first_call_jax_s'] * 1e3:.0f}",
         f"{r['first_call_s'] / r['first_call_jax_s']:.2f}x", "<= 1.2x"],
        ["steady step (us)", f"{r['steady_us']:.0f}", f"{r['steady_jax_us']:.0f}",
         f"{r['steady_us'] / r['steady_jax_us']:.2f}x", "<= 1.1x"],
        ["all-reduces in optimized HLO", r["all_reduces"], r["all_reduces_jax"],
         "equal" if r["all_reduces"] == r["all_reduces_jax"] else "differ", "equal"],
    ]
    print(f"data-parallel MLP {'-'.join(map(str, SIZES))} batch {BATCH} on {DEVICES} host "
          f"CPUs, SGD step")
    print(table(rows, ["case", "flowjit", "jax.jit", "ratio", "goal"]))


if __name__ == "__main__":
    if "--json" in sys.argv:
        print(json.dumps(_run(quick="--quick" in sys.argv)))
    else:
        main(quick="--quick" in sys.argv)
