"""`python -m bench --quick`: the one benchmark command prints one table and writes the same
rows as JSON (structure only: timings are never asserted)."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The rows of the project's benchmark table every run must report (quick sizes: chains of
# 200 and 40 steps).
EXPECTED = ["cached call x*2+1 f32[4], XLA", "cached call x*2+1 f32[4], executor",
            "while loop 100 iterations, executor", "while loop 100 iterations, XLA",
            "MLP 64-32-32-10 b16 SGD step, executor steady", "MLP step, XLA steady",
            "MLP step, XLA first call", "MLP step, XLA device memory",
            "MLP step, executor peak host memory", "MLP step, peak RSS, XLA",
            "MLP step, peak RSS, executor", "chain N=200, XLA first call",
            "chain N=200, trace+import+passes+lowering", "chain N=200, executor first call",
            "chain phases N=200 / N=40",
            "chain N=200, XLA first call in a second process (compilation cache)",
            "MLP step (functional), XLA first call in a second process (compilation cache)",
            "input pipeline slices->map->shuffle->batch->prefetch, per example",
            "input pipeline TextLine->split->padded_batch, per line",
            "input pipeline feeding an MLP's SGD steps, per example",
            "import flowjit, fresh process",
            "import flowjit / import jax"]
PHASES = ("trace", "import", "passes", "lowering", "xla_compile")


def test_quick_run_prints_one_table_and_json(tmp_path):
    out = tmp_path / "bench.json"
    env = {k: v for k, v in os.environ.items() if k != "FLOWJIT_CHECK_KERNELS"}
    proc = subprocess.run([sys.executable, "-m", "bench", "--quick", "--json", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(out.read_text())
    assert report["quick"] is True
    rows = report["rows"]
    assert [r["benchmark"] for r in rows] == EXPECTED
    lines = proc.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("benchmark"))
    assert lines[header].split()[:6] == ["benchmark", "flowjit", "reference", "ratio", "goal",
                                         "met"]
    body = lines[header + 2:]
    assert len(body) == len(rows)
    for line, r in zip(body, rows):
        assert line.startswith(r["benchmark"])
        assert r["met"] is None                      # a quick run judges no goal
        assert r["flowjit"] > 0
        if r["reference"] is not None:
            assert r["reference_value"] > 0
            assert abs(r["ratio"] - r["flowjit"] / r["reference_value"]) < 1e-9 * r["ratio"]
    chain = report["scenarios"]["chain"]
    assert all(chain[k] > 0 for k in PHASES)
    assert abs(chain["phases"] - sum(chain[k] for k in PHASES[:4])) < 1e-9


def test_script_entry_point_shows_usage():
    proc = subprocess.run([sys.executable, os.path.join("bench", "run.py"), "--help"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "--quick" in proc.stdout and "--json" in proc.stdout and "--with-tf" in proc.stdout
