"""Mutation testing of `flowjit-opt`: mutate the FileCheck inputs (tests/filecheck/*.mlir) and
check that every mutant gets either a `file:line:col: error:` diagnostic or output that parses
again, never a traceback, an internal error or a Python repr in a message.

    python -m flowjit.testing.opt_mutants --mutants 1000 --seed 0

Each mutant runs through the default pipeline and, for a second of them, `--lower-to stablehlo`.
"""
from __future__ import annotations

import argparse
import contextlib
import glob
import io
import json
import os
import re
import sys
import tempfile

import numpy as np

FILECHECK_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "tests", "filecheck")
_VALUE = re.compile(r"%[0-9A-Za-z_]+")
_TYPE = re.compile(r"tensor<[^<>]*>")
_LOCATED = re.compile(r":\d+:\d+: error: ")
_PY_REPR = re.compile(r"<[A-Za-z_][\w.]*(\[[^\]]*\])? [^>]*>| object at 0x")


def sources() -> list:
    """The FileCheck inputs without their RUN/CHECK comments."""
    out = []
    for path in sorted(glob.glob(os.path.join(FILECHECK_DIR, "*.mlir"))):
        with open(path, encoding="utf-8") as f:
            lines = [ln for ln in f.read().splitlines() if not ln.lstrip().startswith("//")]
        out.append((os.path.basename(path), lines))
    return out


def mutate(lines: list, rng) -> list:
    """One random edit: drop, duplicate or swap lines, rename a value, change a type, cut
    a character."""
    lines = list(lines)
    i = int(rng.integers(len(lines)))
    kind = int(rng.integers(6))
    if kind == 0:
        del lines[i]
    elif kind == 1:
        lines.insert(i, lines[i])
    elif kind == 2:
        j = int(rng.integers(len(lines)))
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == 3:
        values = _VALUE.findall("\n".join(lines))
        if values:
            lines[i] = _VALUE.sub(lambda m: str(rng.choice(values)) if rng.random() < 0.5
                                  else m.group(0), lines[i])
    elif kind == 4:
        new = str(rng.choice(["tensor<2xf32>", "tensor<i32>", "tensor<?x3xf32>",
                              "tensor<3xi1>", "tensor<f64>"]))
        lines[i] = _TYPE.sub(new, lines[i], count=1)
    elif lines[i]:
        k = int(rng.integers(len(lines[i])))
        lines[i] = lines[i][:k] + lines[i][k + 1:]
    return lines


def _run(argv, stdin_text=None) -> tuple:
    from ..frontend.tools.opt_cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        old_in = sys.stdin
        if stdin_text is not None:
            sys.stdin = io.StringIO(stdin_text)
        try:
            # main writes to the streams it finds at call time
            rc = main(argv)
        except BaseException as e:  # noqa: BLE001 - a traceback escaped
            return -1, "", f"Traceback: {type(e).__name__}: {e}"
        finally:
            sys.stdin = old_in
    return rc, out.getvalue(), err.getvalue()


def _messages(err: str) -> list:
    """The messages of `flowjit-opt`'s diagnostics, without the echoed input lines under
    them (the input's own text, `array<i64 4, -1>`, may look like a Python repr)."""
    return [ln.split(" error: ", 1)[1] if " error: " in ln else ln
            for ln in err.splitlines() if " error: " in ln or ln.startswith("note: ")]


def check(text: str, path: str, lower: bool) -> str:
    """'clean' (a located diagnostic, or output that parses again) or what went wrong."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    argv = [path, "--lower-to", "stablehlo"] if lower else [path]
    rc, out, err = _run(argv)
    if "Traceback" in err or "internal error" in err:
        return f"traceback: {err.strip()[:300]}"
    if any(_PY_REPR.search(m) for m in _messages(err)):
        return f"python repr: {err.strip()[:300]}"
    if rc != 0:
        return "clean" if _LOCATED.search(err) else f"unlocated: {err.strip()[:300]}"
    if lower:
        return "clean"
    rc, _, err = _run(["-"], stdin_text=out)
    return "clean" if rc == 0 else f"output does not re-parse: {err.strip()[:300]}"


def run(mutants: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    srcs = sources()
    counts, bad = {"mutants": 0, "clean": 0, "traceback": 0, "other": 0}, []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(mutants):
            name, lines = srcs[int(rng.integers(len(srcs)))]
            text = "\n".join(mutate(lines, rng)) + "\n"
            verdict = check(text, os.path.join(tmp, name), lower=bool(k % 2))
            counts["mutants"] += 1
            key = "clean" if verdict == "clean" else (
                "traceback" if verdict.startswith("traceback") else "other")
            counts[key] += 1
            if key != "clean":
                bad.append({"source": name, "verdict": verdict, "text": text})
    return {"counts": counts, "failures": bad}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m flowjit.testing.opt_mutants",
                                description=__doc__)
    p.add_argument("--mutants", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    result = run(args.mutants, args.seed)
    for f in result["failures"][:20]:
        print(f"--- {f['source']}: {f['verdict']}\n{f['text']}")
    print(json.dumps(result["counts"]))
    return 1 if result["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
