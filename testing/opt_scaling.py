"""Large `flowjit-opt` inputs, to check that every stage costs time linear in the input size.

    python -m flowjit.testing.opt_scaling 10000 25000 100000

prints the seconds each shape of input takes (parse + verify + print, split-input-file,
verify-diagnostics, the SavedModel exporter, `tf.saved_model.load`) at each size. They are
CPU seconds of this process (`time.process_time`), so other work on a shared machine does not
skew the ratio between sizes.
"""
from __future__ import annotations

import sys
import time

_T = "tensor<4xf32>"


def chain(n: int) -> str:
    """One function of `n` ops, each using the one before."""
    body = [f"  %{i + 1} = df.neg %{i} : ({_T}) -> {_T}" for i in range(n)]
    return "\n".join([f"func.func @chain(%0: {_T}) -> {_T} {{", *body,
                      f"  func.return %{n} : {_T}", "}", ""])


def sibling_conds(n: int) -> str:
    """`n` conds side by side, each branch using values from above (outer values)."""
    lines = [f"func.func @conds(%x: {_T}, %p: tensor<i1>) -> {_T} {{"]
    for i in range(n):
        lines += [f"  %c{i} = df.cond %p : (tensor<i1>) -> {_T} {{",
                  f"    %t{i} = df.neg %x : ({_T}) -> {_T}", f"    df.yield %t{i} : {_T}",
                  "  } else {", f"    df.yield %x : {_T}", "  }"]
    return "\n".join(lines + [f"  func.return %c{n - 1} : {_T}", "}", ""])


def outer_values(n: int) -> str:
    """`n` values defined above one cond, each used inside its branch."""
    lines = [f"func.func @outer(%x: {_T}, %p: tensor<i1>) -> {_T} {{"]
    lines += [f"  %v{i} = df.neg %x : ({_T}) -> {_T}" for i in range(n)]
    lines.append(f"  %c = df.cond %p : (tensor<i1>) -> {_T} {{")
    lines += [f"    %u{i} = df.add %v{i}, %x : ({_T}, {_T}) -> {_T}" for i in range(n)]
    lines += [f"    df.yield %u{n - 1} : {_T}", "  } else {", f"    df.yield %x : {_T}", "  }",
              f"  func.return %c : {_T}", "}", ""]
    return "\n".join(lines)


def split_chunks(n: int) -> str:
    """`n` small functions separated by `// -----`."""
    one = f"func.func @f(%0: {_T}) -> {_T} {{\n  func.return %0 : {_T}\n}}\n"
    return "// -----\n".join([one] * n)


def expected_errors(n: int) -> str:
    """`n` ops, each under an `// expected-error@below` comment that the verifier meets."""
    lines = [f"func.func @bad(%0: {_T}) -> {_T} {{"]
    for i in range(n):
        lines += ["  // expected-error@below {{does not dominate this use}}",
                  f"  %a{i} = df.neg %b{i} : ({_T}) -> {_T}",
                  f"  %b{i} = df.neg %0 : ({_T}) -> {_T}"]
    return "\n".join(lines + [f"  func.return %0 : {_T}", "}", ""])


def time_opt(text: str, *argv) -> float:
    """Seconds `flowjit-opt` takes on `text` (read from stdin, output discarded)."""
    import contextlib
    import io

    from ..frontend.tools.opt_cli import main
    old = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            t0 = time.process_time()
            main(["-", *argv])
            return time.process_time() - t0
    finally:
        sys.stdin = old


def time_export(n: int) -> float:
    """Seconds the SavedModel exporter takes on `outer_values(n)`, parsed."""
    from ..ir.exporter import export_graph
    from ..ir.printing import parse_module
    module = parse_module(outer_values(n))
    t0 = time.process_time()
    export_graph(module)
    return time.process_time() - t0


def time_saved_model_load(n: int) -> float:
    """Seconds `tf.saved_model.load` takes on a saved function of `n` chained ops (saving it
    first: tracing, passes and lowering `n` ops are not timed)."""
    import shutil
    import tempfile

    import flowjit as tf

    @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)], autograph=False)
    def chained(x):
        for _ in range(n):      # sin: nothing the passes can fold away
            x = tf.sin(x)
        return x

    module = tf.Module()
    module.f = chained
    folder = tempfile.mkdtemp(prefix="opt_scaling_")
    try:
        tf.saved_model.save(module, folder)
        t0 = time.process_time()
        tf.saved_model.load(folder)
        return time.process_time() - t0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


CASES = {
    "chain (parse, verify, print)": lambda n: time_opt(chain(n)),
    "sibling conds (dominance)": lambda n: time_opt(sibling_conds(n // 4)),
    "split-input-file": lambda n: time_opt(split_chunks(n // 4), "--split-input-file"),
    "verify-diagnostics": lambda n: time_opt(expected_errors(n // 2), "--verify-diagnostics"),
    "exporter (outer values)": lambda n: time_export(n // 2),
    "saved_model.load (chain)": time_saved_model_load,
}


def main(argv=None) -> int:
    sizes = [int(a) for a in (sys.argv[1:] if argv is None else argv)] or [10000]
    for name, case in CASES.items():
        print(f"{name:32s}" + "".join(f"  {n:>7d} ops: {case(n):7.2f} s" for n in sizes),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
