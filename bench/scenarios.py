"""The measurements behind `python -m bench`: each scenario builds one program for every
framework, checks that they agree, times them interleaved and returns its numbers (seconds,
bytes) by name. `run.py`'s rows pick a flowjit number and a reference number from them.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from dataclasses import dataclass

import numpy as np

from common import first_call_s, interleaved_best
import mlp_step
import tf_reference


@dataclass(frozen=True)
class Config:
    quick: bool
    rounds: int          # interleaved timing rounds
    iters: int           # while loop iterations
    n: int               # chain length (compile latency)
    n_small: int         # the shorter chain (linearity)
    mlp_sizes: tuple
    mlp_batch: int
    rss_steps: int       # training steps run by each RSS subprocess
    with_tf: bool = False  # also measure TF 2.21 (graph and XLA) where it is importable


FULL = Config(False, 15, 1000, 5000, 1000, tuple(mlp_step.SIZES), mlp_step.BATCH, 20)
QUICK = Config(True, 2, 100, 200, 40, (64, 32, 32, 10), 16, 2)


def tf_module(cfg: Config):
    """TensorFlow when the run measures it, else None."""
    return tf_reference.load() if cfg.with_tf else None


def timed_with_tf(named: dict, tf_named: dict, rounds, batch_s=0.02) -> dict:
    """`interleaved_best` over the named callables, TF's (maybe none) among them."""
    named = {**named, **tf_named}
    return dict(zip(named, interleaved_best(list(named.values()), rounds=rounds,
                                            batch_s=batch_s)))


def warm_up():
    """Start XLA's client once, so no first call below pays for it."""
    import jax

    import flowjit as tf
    jax.jit(lambda a: a + 1.0)(np.float32(1.0)).block_until_ready()
    tf.function(lambda a: a + 1.0, jit_compile=True)(tf.constant(1.0))


def cached_call(cfg: Config) -> dict:
    """f(x) = x*2+1 on f32[4], already compiled: the per-call dispatch cost."""
    import jax

    import flowjit as tf
    x = np.arange(4, dtype=np.float32)
    fj_xla = tf.function(lambda x: x * 2.0 + 1.0, jit_compile=True)
    fj_exec = tf.function(lambda x: x * 2.0 + 1.0)
    jx = jax.jit(lambda x: x * 2.0 + 1.0)
    tx, jxx = tf.constant(x), jax.device_put(x)
    tf_fns = {}
    if tf_module(cfg):
        tf_fns = dict(zip(("tf_graph", "tf_xla"), tf_reference.cached_call(tf_module(cfg), x)))
    for out in (fj_xla(tx).numpy(), fj_exec(tx).numpy(), np.asarray(jx(jxx)),
                *(np.asarray(f()) for f in tf_fns.values())):
        np.testing.assert_allclose(out, x * 2.0 + 1.0)
    return timed_with_tf({"xla": lambda: fj_xla(tx), "executor": lambda: fj_exec(tx),
                          "jax": lambda: jx(jxx), "numpy": lambda: x * 2.0 + 1.0},
                         tf_fns, cfg.rounds)


def while_loop(cfg: Config) -> dict:
    """A `while_loop` of `cfg.iters` iterations of v*0.999+1 on f32[16], against a
    hand-written NumPy Python loop and jax.lax.while_loop."""
    import jax

    import flowjit as tf
    iters = cfg.iters

    def body(i, v):
        return i + 1, v * 0.999 + 1.0

    def loop(x):
        return tf.while_loop(lambda i, v: i < iters, body, [tf.constant(0), x])[1]

    def np_loop(v):
        i = 0
        while i < iters:
            i, v = i + 1, v * np.float32(0.999) + np.float32(1.0)
        return v

    @jax.jit
    def jx(x):
        return jax.lax.while_loop(lambda c: c[0] < iters, lambda c: body(*c), (0, x))[1]

    fj_xla, fj_exec = tf.function(loop, jit_compile=True), tf.function(loop)
    v = np.ones(16, np.float32)
    tv, jv = tf.constant(v), jax.device_put(v)
    want = np_loop(v)
    tf_fns = {}
    if tf_module(cfg):
        tf_fns = dict(zip(("tf_graph", "tf_xla"),
                          tf_reference.while_loop(tf_module(cfg), iters, v)))
    for out in (fj_xla(tv).numpy(), fj_exec(tv).numpy(), np.asarray(jx(jv)),
                *(f() for f in tf_fns.values())):
        np.testing.assert_allclose(out, want, rtol=1e-4)
    return timed_with_tf({"executor": lambda: fj_exec(tv).numpy(),
                          "xla": lambda: fj_xla(tv).numpy(), "jax": lambda: np.asarray(jx(jv)),
                          "numpy": lambda: np_loop(v)}, tf_fns, cfg.rounds, batch_s=0.05)


def mlp(cfg: Config) -> dict:
    """The MLP training step of `mlp_step.py` (GradientTape + SGD against jax.jit of
    value_and_grad + update): first calls, steady steps, XLA's device memory and the
    executor's peak host memory against the size of the tensors it must hold."""
    import jax

    import flowjit as tf
    params, x, y = mlp_step.init(sizes=cfg.mlp_sizes, batch=cfg.mlp_batch)
    tx, ty = tf.constant(x), tf.constant(y)
    jx, jy = jax.device_put(x), jax.device_put(y)
    out = {}
    fj_xla, vs_xla = mlp_step.flowjit_step(params, jit=True)
    out["xla_first"] = first_call_s(lambda: fj_xla(tx, ty).numpy())
    jstep = mlp_step.jax_step()
    jparams = [jax.device_put(p) for p in params]
    state = {}
    out["jax_first"] = first_call_s(
        lambda: state.update(p=jax.block_until_ready(jstep(jparams, jx, jy))[0]))
    fj_exec, vs_exec = mlp_step.flowjit_step(params, jit=False)
    out["executor_first"] = first_call_s(lambda: fj_exec(tx, ty).numpy())
    tf_fns, tf_vars = {}, []
    tfm = tf_module(cfg)
    if tfm:
        ttx, tty = tfm.constant(x), tfm.constant(y)
        for name, jit in (("tf_xla", True), ("tf_graph", False)):
            step, vs = tf_reference.mlp_step(tfm, params, jit, mlp_step.LR)
            out[name + "_first"] = first_call_s(lambda: step(ttx, tty).numpy())
            tf_fns[name] = lambda step=step: step(ttx, tty).numpy()
            tf_vars.append(vs)
    for vs in (vs_xla, vs_exec, *tf_vars):   # the same parameters after one step
        for a, c in zip(vs, state["p"]):
            np.testing.assert_allclose(a.numpy(), np.asarray(c), rtol=1e-4, atol=1e-5)

    def jax_once():
        state["p"], loss = jstep(state["p"], jx, jy)
        np.asarray(loss)

    out.update(timed_with_tf({"jax": jax_once, "xla": lambda: fj_xla(tx, ty).numpy(),
                              "executor": lambda: fj_exec(tx, ty).numpy()},
                             tf_fns, cfg.rounds, batch_s=0.03))

    out["xla_device_bytes"] = _device_bytes(fj_xla.compiler_ir(tx, ty).memory_analysis())
    jmem = jstep.lower(state["p"], jx, jy).compile().memory_analysis()
    out["jax_device_bytes"] = _device_bytes(
        {k: getattr(jmem, k) for k in dir(jmem) if k.endswith("_in_bytes")})
    out["executor_peak_bytes"] = _traced_peak(lambda: fj_exec(tx, ty))
    out["executor_live_bytes"] = live_bytes(
        fj_exec.get_concrete_function(tx, ty).optimized_module())
    return out


def _device_bytes(stats: dict) -> int:
    """What the executable holds on the device at its peak: arguments, outputs and XLA's
    temporaries, less the outputs that reuse donated argument buffers."""
    return (stats["argument_size_in_bytes"] + stats["output_size_in_bytes"]
            + stats["temp_size_in_bytes"] - stats["alias_size_in_bytes"])


def _traced_peak(fn) -> int:
    """Peak bytes allocated (NumPy buffers included) during one call of `fn`, above what was
    allocated when it started; a first call under tracing fills the caches."""
    tracemalloc.start()
    try:
        fn()
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def live_bytes(module) -> int:
    """The least memory a step of `module` needs for the tensors it makes: the peak, in
    program order, of the bytes of values made by the function body and still to be used
    (each freed after its last use; results live to the end; arguments are not counted,
    they exist before the call)."""
    from xdsl.dialects import func

    from flowjit.ir.dialect import from_xdsl_type
    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    ops = list(fn.body.block.ops)
    last_use = {}
    for i, op in enumerate(ops):
        for v in op.operands:
            last_use[v] = i
    held = peak = 0
    sizes = {}
    for i, op in enumerate(ops):
        for r in op.results:
            tt = from_xdsl_type(r.type)
            if tt is not None and getattr(tt, "shape", None) is not None \
                    and tt.dtype.name != "resource":
                sizes[r] = int(np.prod(tt.shape, dtype=np.int64)) * tt.dtype.np.itemsize
                held += sizes[r]
        peak = max(peak, held)
        for v in op.operands:
            if last_use[v] == i and not isinstance(op, func.ReturnOp):
                held -= sizes.pop(v, 0)
    return peak


def chain(cfg: Config) -> dict:
    """First calls of a chain of elementwise steps (x+1, tanh(x)*0.5; about 2.5 ops a
    step) at lengths `cfg.n` and `cfg.n_small`: flowjit under XLA by phase, jax.jit, and
    the executor. Keys for the short chain end in `_small`."""
    import jax
    import jax.numpy as jnp

    import flowjit as tf
    out = {}
    xs = np.ones(32, np.float32)
    for n, suffix in ((cfg.n_small, "_small"), (cfg.n, "")):
        def steps(x, tanh, n=n):
            for i in range(n):
                x = tanh(x) * 0.5 if i % 2 else x + 1.0
            return x

        fj_xla = tf.function(lambda x: steps(x, tf.tanh), jit_compile=True)
        fj_exec = tf.function(lambda x: steps(x, tf.tanh))
        jx = jax.jit(lambda x: steps(x, jnp.tanh))
        tx, jxx = tf.constant(xs), jax.device_put(xs)
        res = {}
        out["xla_first" + suffix] = first_call_s(lambda: res.update(xla=fj_xla(tx).numpy()))
        out["jax_first" + suffix] = first_call_s(lambda: res.update(jax=np.asarray(jx(jxx))))
        out["executor_first" + suffix] = first_call_s(
            lambda: res.update(executor=fj_exec(tx).numpy()))
        np.testing.assert_allclose(res["xla"], res["jax"], rtol=1e-5)
        np.testing.assert_allclose(res["executor"], res["jax"], rtol=1e-5)
        res_long = res
        phases = fj_xla.compiler_ir(tx).timings()
        ours = {k: phases[k] for k in ("trace", "import", "passes", "lowering")}
        out.update({k + suffix: v for k, v in ours.items()})
        out["phases" + suffix] = sum(ours.values())
        out["xla_compile" + suffix] = phases["xla_compile"]
        out["ops" + suffix] = len(fj_xla.get_concrete_function(tx).graph.nodes)
    if tf_module(cfg):   # TF's first calls at the long chain's length
        graph, xla = tf_reference.chain(tf_module(cfg), cfg.n, xs)
        for name, fn in (("tf_xla_first", xla), ("tf_graph_first", graph)):
            res = {}
            out[name] = first_call_s(lambda: res.update(tf=fn()))
            np.testing.assert_allclose(res["tf"], res_long["jax"], rtol=1e-5)
    return out


def rss(cfg: Config) -> dict:
    """Peak resident memory of a process that imports everything and runs `cfg.rss_steps`
    MLP training steps, one fresh process per framework (`rss_child.py`)."""
    child = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rss_child.py")
    args = [str(cfg.rss_steps), ",".join(map(str, cfg.mlp_sizes)), str(cfg.mlp_batch)]
    procs = {fw: subprocess.Popen([sys.executable, child, fw, *args], stdout=subprocess.PIPE,
                                  text=True)
             for fw in ("jax", "xla", "executor")}
    out = {}
    for fw, p in procs.items():
        stdout, _ = p.communicate()
        if p.returncode:
            raise RuntimeError(f"rss_child.py {fw} failed (exit {p.returncode})")
        got = json.loads(stdout)
        out.update({f"{fw}_{k}": v for k, v in got.items()})
        out[f"{fw}_step_rss_mib"] = (got["peak_rss_bytes"] - got["imports_rss_bytes"]) / 2**20
    return out


IMPORTS = ("flowjit", "jax", "numpy")


def import_time(cfg: Config) -> dict:
    """Seconds of `import M` in a fresh interpreter (best of a few, the modules alternating),
    for flowjit and for the references it is compared with."""
    code = "import time; t = time.perf_counter(); import {}; print(time.perf_counter() - t)"
    best = dict.fromkeys(IMPORTS, float("inf"))
    for _ in range(1 if cfg.quick else 5):
        for name in IMPORTS:
            out = subprocess.run([sys.executable, "-c", code.format(name)], check=True,
                                 capture_output=True, text=True).stdout
            best[name] = min(best[name], float(out))
    return best
