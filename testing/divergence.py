"""A divergence finder: where do a function's backends first disagree, and in which stage?

    from flowjit.testing.divergence import compare_backends
    print(compare_backends(f, x, y))          # f: a Python function or a flowjit Function
    python -m flowjit.testing.divergence dumped.mlir [--seed 0] [--passes SPEC]

One trace (a df module) is made to return every value its top-level ops compute, then run:
eagerly (the trace's graph replayed node by node through eager dispatch, the path an eager op
takes, and the Python function itself for the final results), on the graph executor without
passes (the reference for every value), on the executor after each pass of the pipeline in
turn, and under XLA after the whole pipeline. Each stage's values are compared with the reference's in
program order; the first value beyond its dtype's tolerance names the op that computed it
(its df name, node and source line) and the stage: the pass after which it changed, or XLA
with the op's lowering rule. Differences the fuzzer knows XLA makes (testing/fuzz.py: flushed
subnormals; rounding within the fuzzer's tolerance, from FMA contraction or reassociation)
are reported as known, not as the divergence. A function that assigns variables is refused:
each stage would see the state the previous one left.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field

import ml_dtypes
import numpy as np

from flowjit.testing.fuzz import TOL

# Divergence: beyond this many units of the dtype's epsilon (integers and bools: exact).
ULPS = 8


@dataclass
class Divergence:
    stage: str                  # "eager", "after:<pass>" or "xla"
    op: str                     # the df op that computed the value
    node: str                   # "<function>/<node>"
    where: str                  # "file:line" of the user's code, or ""
    expected: object
    actual: object
    known: str = ""             # the XLA difference class it belongs to, or ""
    rule: str = ""              # under XLA: the lowering rule of the op

    def __str__(self):
        stage = f"{self.stage} (lowering rule {self.rule})" if self.rule else self.stage
        at = f" at {self.where}" if self.where else ""
        kind = f"known XLA difference ({self.known})" if self.known else "diverges"
        return (f"{stage}: {self.op} ({self.node}){at} {kind}:\n  expected "
                f"{np.array2string(np.asarray(self.expected), threshold=8)}\n  got      "
                f"{np.array2string(np.asarray(self.actual), threshold=8)}")


@dataclass
class Report:
    stages: list                                  # the stages compared, in order
    first: Divergence | None = None               # the first unexplained divergence
    known: list = field(default_factory=list)     # known XLA differences seen

    def __str__(self):
        lines = [f"compared {len(self.stages)} stages: {', '.join(self.stages)}"]
        lines.append(str(self.first) if self.first else "no divergence beyond tolerance")
        lines += [str(k) for k in self.known]
        return "\n".join(lines)


def classify(actual, expected) -> str | None:
    """None when `actual` matches `expected` within ULPS; else "" for a divergence, or the
    name of the known XLA difference class that explains it."""
    a, e = np.asarray(actual), np.asarray(expected)
    if a.shape != e.shape or a.dtype != e.dtype:
        return ""
    if e.dtype.kind == "c":
        parts = [classify(a.real, e.real), classify(a.imag, e.imag)]
        return None if parts == [None, None] else min(p for p in parts if p is not None)
    if e.dtype.kind != "f" and e.dtype != np.dtype(ml_dtypes.bfloat16):
        return None if np.array_equal(a, e) else ""
    info = ml_dtypes.finfo(e.dtype)
    a64, e64 = a.astype(np.float64), e.astype(np.float64)
    tol = ULPS * float(info.eps)
    if _close(a64, e64, tol, 0.0):      # relative only: a flushed subnormal must show
        return None
    flushed_a, flushed_e = a64.copy(), e64.copy()
    tiny = float(info.tiny)
    flushed_a[np.abs(flushed_a) < tiny] = 0.0
    flushed_e[np.abs(flushed_e) < tiny] = 0.0
    if _close(flushed_a, flushed_e, tol, 0.0):
        return "subnormals flushed to zero"
    if _close(a64, e64, TOL[e.dtype], TOL[e.dtype]):
        return "rounding: FMA contraction or reassociation"
    return ""


def _close(a, e, rtol, atol) -> bool:
    if not np.array_equal(np.isnan(a), np.isnan(e)):
        return False
    finite = np.isfinite(a) & np.isfinite(e)
    if not np.array_equal(a[~finite & ~np.isnan(a)], e[~finite & ~np.isnan(e)]):
        return False
    return bool(np.allclose(a[finite], e[finite], rtol=rtol, atol=atol))


# --- the module that returns every value -------------------------------------------------
def expose_values(module):
    """Make the entry function also return every tensor its top-level ops compute; returns
    the ops, one per returned value (None for the function's own results)."""
    from xdsl.dialects.builtin import FunctionType

    from flowjit.ir.dialect import ResourceType, StringType, TokenType
    fn = _entry(module)
    block = fn.body.block
    ret = block.last_op
    values, owners = list(ret.operands), [None] * len(ret.operands)
    for op in block.ops:
        if op is ret:
            break
        for r in op.results:
            if not isinstance(r.type, (TokenType, ResourceType, StringType)):
                values.append(r)
                owners.append(op)
    ret.operands = values
    fn.properties["function_type"] = FunctionType.from_lists(
        [a.type for a in block.args], [v.type for v in values])
    return owners


def _entry(module):
    from xdsl.dialects import func
    return next(op for op in module.ops if isinstance(op, func.FuncOp))


def _describe(op):
    from flowjit.ir.importer import location_parts
    parts = location_parts(op.location)
    if parts is None:
        return "?", ""
    label, file, line, _ = parts
    return label, f"{file}:{line}" if file else ""


# --- the stages ----------------------------------------------------------------------------
def _executor(module, values):
    from flowjit.lowering.plan import build_plan
    return [np.asarray(v) for v in build_plan(module).run(list(values))]


def _xla(module, values):
    from flowjit.lowering.stablehlo import lower_module
    from flowjit.runtime import xla
    lowered = lower_module(module, "compare_backends", donate=False)
    loaded = xla.compile_module(lowered.module, lowered.host_callbacks)
    exe = xla.XlaExecutable(loaded, lowered.num_results, lowered.written_args, {},
                            lowered.host_inputs, host_callbacks=lowered.host_callbacks,
                            failures=lowered.failures)
    return [np.asarray(v) for v in exe.run(*[xla.to_device(np.asarray(v)) for v in values])]


def replay_eagerly(graph, values) -> dict:
    """Run a traced graph's nodes one by one through eager dispatch on the graph inputs'
    `values`; returns node name -> (its op, its outputs as NumPy arrays). A node eager cannot
    run alone (a control-flow op whose bodies are graphs, an op with no eager form) or a
    stateful one (a random op would draw other numbers) is left out, and so are its users."""
    from flowjit.frontend.eager import dispatch
    from flowjit.frontend.eager.tensor import Tensor
    from flowjit.ir.registry import OPS
    env = {node: (Tensor._wrap(np.asarray(v), node.out_types[0].dtype),)
           for node, v in zip(graph.inputs, values)}
    for node in graph.nodes:
        if node in env or node.stateful or node.op not in OPS or \
                any(n not in env for n, _ in node.inputs):
            continue
        try:
            out = dispatch.apply(node.op, [env[n][i] for n, i in node.inputs], dict(node.attrs))
        except Exception:     # noqa: BLE001 - an op that only runs inside a graph: left out
            continue
        env[node] = out if isinstance(out, tuple) else (out,)
    return {node.name: (node.op, [np.asarray(t.numpy()) for t in outs])
            for node, outs in env.items()}


def _eager_like(owners, reference, eager_values, function_name):
    """Eager's value in the place of each reference value: the replayed node's output when
    the df op is that node's own (same op, same result), else the reference (not compared)."""
    outs, index = [], {}
    for ref, op in zip(reference, owners):
        value = ref
        if op is not None:
            i = index[op] = index.get(op, -1) + 1
            label, _ = _describe(op)
            node_op, node_outs = eager_values.get(label.removeprefix(function_name + "/"),
                                                  (None, ()))
            if op.name == f"df.{node_op}" and i < len(node_outs):
                value = node_outs[i]
        outs.append(value)
    return outs


def _first(stage, outs, reference, owners, report, rule_of=None):
    """Record the first value of `outs` that diverges from `reference` (and known ones)."""
    for actual, expected, op in zip(outs, reference, owners):
        if op is None:
            continue
        kind = classify(actual, expected)
        if kind is None:
            continue
        node, where = _describe(op)
        found = Divergence(stage, op.name.removeprefix("df."), node, where, expected, actual,
                           kind, rule_of(op) if rule_of else "")
        if kind:
            report.known.append(found)
            continue
        report.first = found
        return True
    return False


def compare_module(module, values, passes=None, eager_outputs=None,
                   eager_values=None) -> Report:
    """Compare the stages of a df module on argument `values` (NumPy arrays); `eager_values`
    (graph node name -> (op, output arrays), from `replay_eagerly`) and `eager_outputs` (the
    Python function's results) are eager's."""
    from flowjit.ir.dialect import ResourceType
    from flowjit.lowering.stablehlo.core import ASSIGN_OPS, RULES, rule_name
    from flowjit.passes.pipeline import run_pipeline
    if any(op.name in ASSIGN_OPS for op in module.walk()):
        raise ValueError("compare_backends: the function assigns variables; each stage would "
                         "see the state the previous one left")
    if any(isinstance(a.type, ResourceType) for a in _entry(module).body.block.args):
        raise ValueError("compare_backends: the function reads variables; pass their values "
                         "as arguments")
    function_name = _entry(module).sym_name.data
    owners = expose_values(module)
    reference = _executor(module, values)
    report = Report(["executor"])
    n_results = owners.count(None)
    if eager_values is not None or eager_outputs is not None:
        report.stages.insert(0, "eager")
    if eager_values is not None:
        outs = _eager_like(owners, reference, eager_values, function_name)
        if _first("eager", outs, reference, owners, report):
            return report
    if eager_outputs is not None:
        for i, (got, want) in enumerate(zip(reference[:n_results], eager_outputs)):
            if classify(got, want) is not None:
                report.first = Divergence("eager", f"result {i}", "", "", want, got)
                return report
    rounds: dict = {}

    def after_pass(record, current):
        if report.first is not None:
            return
        rounds[record.name] = rounds.get(record.name, 0) + 1
        stage = f"after:{record.name}" + (f" (round {rounds[record.name]})"
                                          if rounds[record.name] > 1 else "")
        report.stages.append(stage)
        _first(stage, _executor(current, values), reference, owners, report)

    optimized = module.clone()
    run_pipeline(optimized, passes, on_pass=after_pass)
    if report.first is not None:
        return report
    report.stages.append("xla")
    _first("xla", _xla(optimized, values), reference, owners, report,
           lambda op: rule_name(RULES.get(op.name)))
    return report


def compare_backends(f, *args, **kwargs) -> Report:
    """Trace `f` (a Python function or a flowjit Function) for these arguments once and
    compare its values across eager, the executor with and without passes, and XLA."""
    import flowjit as tf
    from flowjit.frontend.function import trace_type
    from flowjit.ir.importer import import_graph
    fn = f if hasattr(f, "get_concrete_function") else tf.function(f)
    cf = fn.get_concrete_function(*args, **kwargs)
    flat = []
    trace_type.key_and_flat(tuple(fn.bind(args, kwargs)), flat)
    values = [np.asarray(t.numpy()) for t in flat] + [np.asarray(v) for v in cf.capture_values]
    eager = tf.nest.flatten(fn.python_function(*args, **kwargs))
    module = import_graph(cf.graph, cf.name)
    return compare_module(module, values, passes=fn.passes,
                          eager_outputs=[np.asarray(t) for t in eager],
                          eager_values=replay_eagerly(cf.graph, values))


def _random_inputs(module, seed: int) -> list:
    from flowjit.ir.dialect import from_xdsl_type
    rng = np.random.default_rng(seed)
    fn = _entry(module)
    values = []
    for a in fn.body.block.args:
        tt = from_xdsl_type(a.type)
        dt = tt.dtype.np
        shape = tuple(tt.shape)
        if dt.kind in "fc":
            values.append(rng.normal(size=shape).astype(dt))
        elif dt.kind == "b":
            values.append(rng.random(shape) < 0.5)
        else:
            values.append(rng.integers(0, 10, size=shape).astype(dt))
    return values


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m flowjit.testing.divergence",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("module", help="a df module (a `dataflow` dump of FLOWJIT_DUMP_TO)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random arguments")
    ap.add_argument("--passes", default=None, help="pipeline spec (default: the default one)")
    args = ap.parse_args(argv)
    from flowjit.ir.printing import parse_module
    with open(args.module) as f:
        module = parse_module(f.read())
    report = compare_module(module, _random_inputs(module, args.seed), passes=args.passes)
    print(report)
    return 1 if report.first else 0


if __name__ == "__main__":
    sys.exit(main())
