"""A differential fuzzer: random programs over the op registry, run eagerly, on the graph
executor with and without passes, with unknown-dim signatures, and under XLA; every result
must match eager within the tolerance policy below.

    python -m flowjit.testing.fuzz --programs 1000 --seed 0

A program is a chain of 1-4 registry ops over 2 random tensors (shapes with 0- and 1-sized
dims that broadcast, float and integer dtypes, NaN/Inf/-0.0/large values), optionally inside
cond/switch_case/while, stored in a Variable, or differentiated (d sum(result) / d x0). Ops
join automatically: an op is usable when it has no required attribute and its inference
accepts the generated input types. Programs run in worker subprocesses, so an abort is
counted as a crash and the run goes on. A mismatch is shrunk (trailing ops dropped while it
still fails) and printed as a runnable repro.

Tolerance policy (`close`): integers and bools exact; floats within rtol = atol = TOL[dtype],
NaN where eager has NaN, infinities equal. XLA-caused differences are allowed explicitly:
subnormal results flushed to zero (|x| < finfo.tiny counts as 0), FMA contraction and
reciprocal rewrites (covered by TOL), float16/bfloat16 evaluated in float32 (their TOL is
their epsilon scale). A program whose eager run raises is only checked not to crash; under XLA
an UnimplementedError (a result shape known only at run time) is the documented limit.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import ml_dtypes
import numpy as np

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = [np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.float16), BF16,
          np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.int8)]
TOL = {np.dtype(np.float16): 1e-2, BF16: 5e-2, np.dtype(np.float32): 1e-4,
       np.dtype(np.float64): 1e-10}
SPECIAL = [np.nan, np.inf, -np.inf, -0.0, 1e30, -1e30]


# --- generation ------------------------------------------------------------------------------
_PLAIN = (bool, int, float, str, type(None))


def _default_attrs(name) -> dict:
    """Every attribute of the op at its declared default, passed explicitly as the public API
    does (an omitted attribute is not filled in by the graph backends)."""
    from ..ir.registry import OPS
    return {a.name: a.default for a in OPS[name].attrs.values()}


def usable_ops():
    """Registry ops the generator can call: stateless, 1-2 inputs, every attribute with a
    plain Python default (so the repro prints it)."""
    from ..ir.registry import OPS
    out = []
    for name, op in sorted(OPS.items()):
        if op.stateful or op.variadic or not 1 <= len(op.inputs) <= 2:
            continue
        if not all(isinstance(a.default, _PLAIN) or (isinstance(a.default, tuple) and all(
                isinstance(x, _PLAIN) for x in a.default)) for a in op.attrs.values()):
            continue
        out.append(name)
    return out


def _shape(rng, rank):
    return tuple(int(rng.choice([0, 1, 1, 2, 3])) for _ in range(rank))


def _values(rng, shape, dt):
    if dt.kind in "iu":
        return rng.integers(-5, 6, size=shape).astype(dt)
    v = rng.standard_normal(shape) * 3
    if v.size and rng.random() < 0.3:
        flat = v.reshape(-1)
        flat[rng.integers(0, flat.size)] = rng.choice(SPECIAL)
    return v.astype(dt)


def generate(seed: int) -> dict:
    """A program as plain data: input arrays (as lists), and the op chain."""
    from ..ir import dtypes as D
    from ..ir.registry import OPS, TT, infer_types
    rng = np.random.default_rng(seed)
    ops = usable_ops()
    dt = DTYPES[rng.integers(len(DTYPES))]
    rank = int(rng.integers(0, 4))
    a = _shape(rng, rank)
    b = tuple(d if rng.random() < 0.7 else 1 for d in a)[int(rng.integers(0, rank + 1)):]
    inputs = [a, b]
    types = [TT(D.from_numpy(dt), s) for s in inputs]
    chain = []
    for _ in range(int(rng.integers(1, 5))):
        for _ in range(30):   # find an op whose inference accepts these operands
            name = ops[rng.integers(len(ops))]
            n = len(OPS[name].inputs)
            args = [int(rng.integers(len(types))) for _ in range(n)]
            try:
                out = infer_types(OPS[name], [types[i] for i in args], _default_attrs(name))
            except Exception:  # noqa: BLE001 - not applicable to these types
                continue
            if len(out) != 1 or out[0].dtype.kind not in "fiub":
                continue
            chain.append((name, args))
            types.append(out[0])
            break
    last = chain[-1] if chain else None
    repeatable = last is not None and len(last[1]) == 1 and types[-1] == types[last[1][0]]
    wraps = ["none", "cond", "case"] + (["while"] if repeatable else [])
    return {"seed": seed, "dtype": dt.name, "shapes": inputs,
            "values": [_values(rng, s, dt).tolist() for s in inputs], "chain": chain,
            "wrap": str(rng.choice(wraps)), "k": int(rng.integers(0, 3)),
            "variable": bool(rng.random() < 0.3), "grad": bool(rng.random() < 0.5)}


def _program_lines(prog) -> list:
    code = ["def program(x0, x1):", "    v = [x0, x1]"]
    for name, args in prog["chain"]:
        ins = ", ".join(f"v[{i}]" for i in args)
        code.append(f"    v.append(apply({name!r}, ({ins},), {_default_attrs(name)!r}))")
    code += ["    " + ln for ln in _WRAP_SOURCE[prog["wrap"]](prog)]
    return code + ["    return v[-1]"]


def source(prog: dict) -> str:
    """The program as runnable Python (the repro printed for a mismatch)."""
    lines = ["import numpy as np, ml_dtypes", "import flowjit as tf",
             "from flowjit.frontend.dispatch import apply", ""] + _program_lines(prog)
    dt = prog["dtype"] if prog["dtype"] != "bfloat16" else "ml_dtypes.bfloat16"
    dt = dt if dt.startswith("ml_") else f"np.{dt}"
    for i, (v, s) in enumerate(zip(prog["values"], prog["shapes"])):
        lines.append(f"x{i} = tf.constant(np.array({v!r}, {dt}).reshape({tuple(s)}))")
    if prog.get("variable"):
        lines += ["var = tf.Variable(tf.zeros_like(program(x0, x1)))",
                  "def run(x0, x1):", "    var.assign(program(x0, x1))",
                  "    return var.read_value()"]
    elif prog.get("grad"):
        lines += ["def run(x0, x1):", "    with tf.GradientTape() as tape:",
                  "        tape.watch(x0)", "        y = program(x0, x1)",
                  "        s = tf.reduce_sum(tf.cast(y, tf.float32))",
                  "    return y, tape.gradient(s, x0)"]
    else:
        lines += ["run = program"]
    lines += ["print(run(x0, x1))", "print(tf.function(run)(x0, x1))",
              "print(tf.function(run, jit_compile=True)(x0, x1))"]
    return "\n".join(lines).replace("nan", "np.nan").replace("inf", "np.inf")


# Control flow around the chain's result; each entry is the code `source` prints for it.
_WRAP_SOURCE = {
    "none": lambda p: [],
    "cond": lambda p: ["pred = tf.reduce_sum(tf.cast(v[0], tf.float32)) > 0",
                       "v.append(tf.cond(pred, lambda: tf.identity(v[-1]), "
                       "lambda: tf.zeros_like(v[-1])))"],
    "case": lambda p: [f"v.append(tf.switch_case(tf.constant({p['k']}), "
                       "[lambda: tf.zeros_like(v[-1]), lambda: tf.identity(v[-1])]))"],
    "while": lambda p: [f"op, arg = {p['chain'][-1][0]!r}, v[{p['chain'][-1][1][0]}]",
                        f"attrs = {_default_attrs(p['chain'][-1][0])!r}",
                        f"v.append(tf.while_loop(lambda i, a: i < {p['k']}, "
                        "lambda i, a: (i + 1, apply(op, (a,), attrs)), [0, arg], "
                        f"maximum_iterations={p['k']})[1])"],
}


# --- running ----------------------------------------------------------------------------------
def _build(prog):
    """The program as a Python function of (x0, x1)."""
    import flowjit as tf
    from ..frontend.dispatch import apply
    env = {"tf": tf, "apply": apply}
    # the generated code itself, so a run is exactly the repro `source` prints
    exec("\n".join(_program_lines(prog)), env)  # noqa: S102
    return env["program"]


def _inputs(prog):
    import flowjit as tf
    dt = BF16 if prog["dtype"] == "bfloat16" else np.dtype(prog["dtype"])
    return [tf.constant(np.array(v, dtype=np.float64 if dt.kind == "f" else dt)
                        .astype(dt).reshape(s)) for v, s in zip(prog["values"], prog["shapes"])]


def close(actual, expected) -> bool:
    """The tolerance policy (see the module docstring)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return False
    dt = expected.dtype
    if dt.kind not in "f" and dt != BF16:
        return bool(np.array_equal(actual, expected))
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    tiny = float(ml_dtypes.finfo(dt).tiny)
    a[np.abs(a) < tiny], e[np.abs(e) < tiny] = 0.0, 0.0   # XLA flushes subnormals
    if not np.array_equal(np.isnan(a), np.isnan(e)):
        return False
    inf = np.isinf(e) | np.isinf(a)
    if not np.array_equal(a[inf], e[inf]):
        return False
    ok = ~np.isnan(e) & ~inf
    return bool(np.allclose(a[ok], e[ok], rtol=TOL[dt], atol=TOL[dt]))


def _with_variable(fn, var):
    """The program's result stored in a Variable and read back."""
    def stored(x0, x1):
        var.assign(fn(x0, x1))
        return var.read_value()
    return stored


def _with_gradient(fn):
    """The program's result and d sum(result) / d x0."""
    import flowjit as tf

    def grad(x0, x1):
        with tf.GradientTape() as tape:
            tape.watch(x0)
            y = fn(x0, x1)
            s = tf.reduce_sum(tf.cast(y, tf.float32))
        g = tape.gradient(s, x0)
        return y, (tf.zeros_like(x0) if g is None else g)
    return grad


def _numpy(out):
    return tuple(np.asarray(o.numpy()) for o in out) if isinstance(out, tuple) else \
        (np.asarray(out.numpy()),)


def run_program(prog) -> dict:
    """Eager result, then every mode against it. Returns {"status", "detail"}."""
    import flowjit as tf
    fn = _build(prog)
    xs = _inputs(prog)
    try:
        want = _numpy(fn(*xs))
    except Exception as e:  # noqa: BLE001 - eager refused the program; others just must not crash
        want, eager_error = None, type(e).__name__
    if want is not None and prog.get("variable"):
        fn = _with_variable(fn, tf.Variable(np.zeros_like(want[0])))
    elif want is not None and prog.get("grad") and xs[0].dtype.is_floating:
        fn = _with_gradient(fn)
        try:
            want = _numpy(fn(*xs))
        except Exception as e:  # noqa: BLE001 - e.g. an op without a gradient
            want, eager_error = None, type(e).__name__
    runners = {
        "executor": tf.function(fn),
        "executor_no_passes": tf.function(fn, passes=""),
        "unknown_dims": tf.function(fn, input_signature=[
            tf.TensorSpec([None] * len(x.shape), x.dtype) for x in xs]),
        "xla": tf.function(fn, jit_compile=True),
    }
    for mode, f in runners.items():
        try:
            got = _numpy(f(*xs))
        except Exception as e:  # noqa: BLE001
            if mode == "xla" and type(e).__name__ == "UnimplementedError":
                continue   # documented: XLA needs static shapes (where_indices, ...)
            if want is not None:
                return {"status": "mismatch", "detail": f"{mode}: raised {type(e).__name__}: "
                        f"{str(e)[:300]} (eager returned)"}
            continue
        if want is not None and not all(close(g, w) for g, w in zip(got, want)):
            return {"status": "mismatch", "detail": f"{mode}: {got!r} vs eager {want!r}"}
    return {"status": "ok" if want is not None else f"eager-error:{eager_error}", "detail": ""}


def shrink(prog) -> dict:
    """A smaller program that still fails: drop trailing ops while it keeps failing."""
    def fails(p):
        try:
            return run_program(p)["status"] == "mismatch"
        except Exception:  # noqa: BLE001
            return False
    while len(prog["chain"]) > 1 and fails({**prog, "chain": prog["chain"][:-1]}):
        prog = {**prog, "chain": prog["chain"][:-1]}
    return prog


def _worker(seeds):
    """Run programs, one JSON line each (flushed, so the parent knows where an abort hit)."""
    for seed in seeds:
        prog = generate(seed)
        print(json.dumps({"seed": seed, "start": True}), flush=True)
        res = run_program(prog)
        if res["status"] == "mismatch":
            res["repro"] = source(shrink(prog))
        print(json.dumps({"seed": seed, **res}), flush=True)


def run(programs: int, seed: int, chunk: int = 100, timeout: float = 900,
        progress: bool = False) -> dict:
    """Run `programs` programs (seeds seed..seed+programs-1) in worker subprocesses."""
    counts = {"programs": 0, "ok": 0, "mismatch": 0, "crash": 0, "eager_error": 0}
    failures = []
    todo = list(range(seed, seed + programs))
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    while todo:
        batch, todo = todo[:chunk], todo[chunk:]
        proc = subprocess.run([sys.executable, "-m", "flowjit.testing.fuzz", "--worker",
                               ",".join(map(str, batch))], capture_output=True, text=True,
                              env=env, timeout=timeout)
        done = set()
        for line in proc.stdout.splitlines():
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            if r.get("start"):
                continue
            if r["status"] == "mismatch":   # print as found: a long run may be cut short
                print(f"--- seed {r['seed']}: {r['detail']}\n{r.get('repro', '')}",
                      file=sys.stderr, flush=True)
            done.add(r["seed"])
            counts["programs"] += 1
            st = r["status"]
            counts["eager_error" if st.startswith("eager-error") else st] += 1
            if st == "mismatch":
                failures.append(r)
        lost = [s for s in batch if s not in done]
        if lost:   # the worker died at lost[0]: count it, resume after it
            counts["programs"] += 1
            counts["crash"] += 1
            failures.append({"seed": lost[0], "status": "crash",
                             "detail": proc.stderr[-500:]})
            todo = lost[1:] + todo
        if progress:
            print(json.dumps(counts), file=sys.stderr, flush=True)
    return {"counts": counts, "failures": failures}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m flowjit.testing.fuzz", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--programs", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        _worker([int(s) for s in args.worker.split(",")])
        return 0
    result = run(args.programs, args.seed, progress=True)   # mismatches print as found
    for f in result["failures"]:
        if f["status"] == "crash":
            print(f"--- seed {f['seed']}: crash: {f['detail']}")
    print(json.dumps(result["counts"]))
    c = result["counts"]
    return 1 if c["mismatch"] or c["crash"] else 0


if __name__ == "__main__":
    sys.exit(main())
