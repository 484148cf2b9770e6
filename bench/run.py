"""Every benchmark in one run: flowjit (XLA and graph executor) against jax.jit and NumPy.

    python -m bench [--quick] [--with-tf] [--json FILE]      (from the repository root)
    python bench/run.py [--quick] [--with-tf] [--json FILE]

Prints one table: each row a flowjit number, the reference it is compared with (measured in
the same run, the frameworks interleaved), their ratio, the project's goal and whether it
is met. `--json FILE` also writes the rows and every scenario's raw numbers (seconds, bytes).
`--quick` is a smoke run on small sizes; its numbers are not judged against the goals.
`--with-tf` also measures TF 2.21 (its graph and its XLA functions, `tf_reference.py`) in the
same interleaved batches, when `tensorflow` is importable (TF is no dependency of flowjit:
use a Python that has both); the TF column shows its number and flowjit's ratio to it.

A row is one entry of ROWS: a label (formatted with the Config's fields), the scenario that
measures it (a function of the Config returning named numbers; one run serves all its
rows), the names of the flowjit number and of the reference number, and the goal.
Nothing is set in the environment: the graph executor chooses its own BLAS threads
(runtime/blas.py), so the rows show what a user gets by default.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import input_pipeline  # noqa: E402
import scenarios as sc  # noqa: E402
import warm_start  # noqa: E402
from common import table  # noqa: E402


@dataclass(frozen=True)
class Row:
    label: str              # formatted with the Config's fields
    scenario: object        # Config -> {name: number}
    ours: str               # the flowjit number's name
    ref: str | None         # the reference number's name; None: `ours` meets `goal` alone
    ref_name: str           # what the reference is
    goal: float | None      # the most `ours / ref` (or `ours`, with no ref) may be; None: shown
    unit: str = "s"         # "s", "B" or "" (a plain number)
    note: str = ""          # formatted with the scenario's numbers
    tf: str = ""            # the name of TF 2.21's number (measured with --with-tf)


PHASES = "trace {trace:.2f} + import {import:.2f} + passes {passes:.2f} + lowering " \
         "{lowering:.2f} s; XLA compile {xla_compile:.2f} s; {ops} nodes"

RSS_NOTE = "process peak, imports included; the steps added {{{fw}_step_rss_mib:.1f}} MiB " \
           "(jax.jit: {{jax_step_rss_mib:.1f}} MiB)"

ROWS = [
    Row("cached call x*2+1 f32[4], XLA", sc.cached_call, "xla", "jax", "jax.jit", 1.0,
        tf="tf_xla"),
    Row("cached call x*2+1 f32[4], executor", sc.cached_call, "executor", "jax", "jax.jit",
        0.8, tf="tf_graph"),
    Row("while loop {iters} iterations, executor", sc.while_loop, "executor", "numpy",
        "NumPy Python loop", 1.0, tf="tf_graph"),
    Row("while loop {iters} iterations, XLA", sc.while_loop, "xla", "jax", "jax.jit", 1.2,
        tf="tf_xla"),
    Row("MLP {mlp_sizes} b{mlp_batch} SGD step, executor steady", sc.mlp, "executor", "jax",
        "jax.jit", 1.2, tf="tf_graph"),
    Row("MLP step, XLA steady", sc.mlp, "xla", "jax", "jax.jit", 1.0, tf="tf_xla"),
    Row("MLP step, XLA first call", sc.mlp, "xla_first", "jax_first", "jax.jit", 1.0,
        tf="tf_xla_first"),
    Row("MLP step, XLA device memory", sc.mlp, "xla_device_bytes", "jax_device_bytes",
        "jax.jit", 1.1, unit="B", note="arguments + outputs + temporaries - aliased"),
    Row("MLP step, executor peak host memory", sc.mlp, "executor_peak_bytes",
        "executor_live_bytes", "live tensors", 2.0, unit="B",
        note="tracemalloc peak during a step; reference: liveness over the df module"),
    Row("MLP step, peak RSS, XLA", sc.rss, "xla_peak_rss_bytes", "jax_peak_rss_bytes",
        "jax.jit", None, unit="B", note=RSS_NOTE.format(fw="xla")),
    Row("MLP step, peak RSS, executor", sc.rss, "executor_peak_rss_bytes",
        "jax_peak_rss_bytes", "jax.jit", None, unit="B", note=RSS_NOTE.format(fw="executor")),
    Row("chain N={n}, XLA first call", sc.chain, "xla_first", "jax_first", "jax.jit", 1.2,
        note=PHASES, tf="tf_xla_first"),
    Row("chain N={n}, trace+import+passes+lowering", sc.chain, "phases", None, "", 1.0,
        note=PHASES),
    Row("chain N={n}, executor first call", sc.chain, "executor_first", None, "", 1.5,
        tf="tf_graph_first"),
    Row("chain phases N={n} / N={n_small}", sc.chain, "phases", "phases_small",
        "N={n_small}", 5.5, unit=""),
    Row("chain N={n}, XLA first call in a second process (compilation cache)",
        warm_start.scenario, "chain_warm", "chain_cold", "cold first call", 0.1),
    Row("MLP step (functional), XLA first call in a second process (compilation cache)",
        warm_start.scenario, "mlp_warm", "mlp_cold", "cold first call", 0.2),
    Row("input pipeline slices->map->shuffle->batch->prefetch, per example",
        input_pipeline.input_pipelines, "map", None, "", None,
        note="{map_eps:,.0f} examples/s (TF {tf_map_eps:,.0f})", tf="tf_map"),
    Row("input pipeline TextLine->split->padded_batch, per line",
        input_pipeline.input_pipelines, "text", None, "", None,
        note="{text_eps:,.0f} lines/s (TF {tf_text_eps:,.0f})", tf="tf_text"),
    Row("input pipeline feeding an MLP's SGD steps, per example",
        input_pipeline.input_pipelines, "train", None, "", None,
        note="{train_eps:,.0f} examples/s, the step idle {train_idle:.1%} of the epoch "
             "waiting for data (TF {tf_train_eps:,.0f}, idle {tf_train_idle:.1%})",
        tf="tf_train"),
    Row("import flowjit, fresh process", sc.import_time, "flowjit", None, "", 1.0,
        note="import jax {jax:.2f} s, import numpy {numpy:.2f} s (jax loads on the first "
             "XLA compile)"),
    Row("import flowjit / import jax", sc.import_time, "flowjit", "jax", "import jax", None),
]


def run(cfg: sc.Config, rows=ROWS) -> dict:
    """Measure every scenario the rows need (each once, in row order) and judge the rows."""
    sc.warm_up()
    results: dict = {}
    out = []
    labels = {k: ("-".join(map(str, v)) if isinstance(v, tuple) else v)
              for k, v in vars(cfg).items()}
    for row in rows:
        name = row.scenario.__name__
        if name not in results:
            results[name] = row.scenario(cfg)
        got = results[name]
        ours = got[row.ours]
        ref = got[row.ref] if row.ref else None
        value = ours / ref if ref else ours
        met = None if cfg.quick or row.goal is None else bool(value <= row.goal)
        out.append({"benchmark": row.label.format(**labels), "flowjit": ours,
                    "reference": row.ref_name.format(**labels) or None, "reference_value": ref,
                    "ratio": value if ref else None, "goal": row.goal,
                    "goal_kind": "ratio" if row.ref else row.unit, "met": met,
                    "unit": row.unit, "note": row.note.format(**got),
                    "tf": row.tf and got.get(row.tf), "tf_kind": row.tf})
    return {"quick": cfg.quick, "config": labels, "rows": out, "scenarios": results}


def _fmt(value, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "s":
        for scale, name in ((1, "s"), (1e-3, "ms"), (1e-6, "us")):
            if value >= scale or scale == 1e-6:
                return f"{value / scale:.3g} {name}"
    if unit == "B":
        return f"{value / 2**20:.1f} MiB" if value >= 2**20 else f"{value / 2**10:.1f} KiB"
    return f"{value:.3g}"


def format_table(report: dict) -> str:
    rows = []
    for r in report["rows"]:
        if r["goal"] is None:
            goal = "-"
        elif r["goal_kind"] == "ratio":
            goal = f"<= {r['goal']:g}x"
        else:
            goal = f"<= {_fmt(r['goal'], r['unit'])}"
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.2f}x"
        met = {True: "yes", False: "NO", None: "-"}[r["met"]]
        ref = f"{r['reference']} {_fmt(r['reference_value'], r['unit'])}" \
            if r["reference"] else "-"
        rows.append([r["benchmark"], _fmt(r["flowjit"], r["unit"]), ref, ratio, goal, met,
                     _tf_cell(r), r["note"]])
    head = "quick smoke run: small sizes, goals not judged\n" if report["quick"] else ""
    return head + table(rows, ["benchmark", "flowjit", "reference", "ratio", "goal", "met",
                               "TF 2.21 (flowjit / TF)", "note"])


def _tf_cell(r) -> str:
    if not r["tf"]:
        return "-"
    mode = "XLA" if "xla" in r["tf_kind"] else "graph"
    return f"TF {mode} {_fmt(r['tf'], 's')} ({r['flowjit'] / r['tf']:.3g}x)"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, a smoke run")
    ap.add_argument("--with-tf", action="store_true",
                    help="also measure TF 2.21 (graph and XLA) when tensorflow is importable")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = ap.parse_args(argv)
    cfg = sc.QUICK if args.quick else sc.FULL
    if args.with_tf:
        if sc.tf_reference.load() is None:
            print("--with-tf: tensorflow is not importable here; measuring without it")
        else:
            cfg = dataclasses.replace(cfg, with_tf=True)
    report = run(cfg)
    print(format_table(report))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
