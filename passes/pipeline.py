"""The pass pipeline (Grappler's MetaOptimizer): a default schedule iterated to a fixpoint,
configured by TF's optimizer options or a pipeline spec such as `"cse,dce"`,
`"constant-folding{max-size=1024},dce"` or `"default,my-pass"` (the default schedule, then
`my-pass`), with a per-pass report.
"""
from __future__ import annotations

import dataclasses
import difflib
import os
import time
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.ir import ErasedSSAValue
from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError

from ..ir.gc_pause import gc_paused
from ..ir.walk import preorder
from . import DEFAULT_NAME, PASSES, PLACEMENTS, get_pass

# Grappler's order: shapes first, then folding and simplification, dedup, fusion, loops,
# control dependencies, and dead code removal last.
DEFAULT_SCHEDULE = ("shape-inference", "inline", "constant-folding", "arithmetic", "cse",
                    "remapper", "loop-invariant-code-motion", "layout", "dependency", "dce")
MAX_ITERATIONS = 3

# TF's `config.optimizer.set_experimental_options` keys -> the passes they switch.
TF_OPTIONS = {
    "layout_optimizer": ("layout",),
    "constant_folding": ("constant-folding",),
    "shape_optimization": ("shape-inference",),
    "remapping": ("remapper",),
    "arithmetic_optimization": ("arithmetic", "cse"),
    "dependency_optimization": ("dependency",),
    "loop_optimization": ("loop-invariant-code-motion",),
    "function_optimization": ("inline",),
    "debug_stripper": ("debug-stripper",),
    "disable_model_pruning": (),
    "scoped_allocator_optimization": (),
    "pin_to_host_optimization": (),
    "implementation_selector": (),
    "auto_mixed_precision": (),
    "disable_meta_optimizer": (),
    "min_graph_nodes": (),
}
OFF_BY_DEFAULT = {"debug-stripper"}

_options: dict = {}


def set_experimental_options(options: dict):
    """Validate and store TF's optimizer options (unknown keys raise, listing valid ones)."""
    bad = sorted(set(options) - set(TF_OPTIONS))
    if bad:
        raise ValueError(f"unknown optimizer option(s) {bad}; valid options: "
                         f"{', '.join(sorted(TF_OPTIONS))}")
    _options.update(options)


def get_experimental_options() -> dict:
    return dict(_options)


def schedule() -> list:
    """DEFAULT_SCHEDULE with the user passes registered with `after=`/`before=` in place
    (in registration order, so a pass may be placed relative to an earlier user pass)."""
    order = list(DEFAULT_SCHEDULE)
    for name, (where, anchor) in PLACEMENTS.items():
        order.insert(order.index(anchor) + (where == "after"), name)
    return order


def default_passes() -> list:
    """The default schedule after TF's options (registered passes only)."""
    if _options.get("disable_meta_optimizer"):
        return []
    on = [p for p in schedule() if p in PASSES and p not in OFF_BY_DEFAULT]
    for key, value in _options.items():
        for p in TF_OPTIONS[key]:
            if value is False and p in on:
                on.remove(p)
            elif value is True and p not in on and p in PASSES:
                on.insert(len(on) - 1, p)
    if _options.get("disable_model_pruning") and "dce" in on:
        on.remove("dce")
    return on


def parse_spec(spec: str) -> list:
    """A pipeline spec -> pass instances. Unknown names, unknown options and options of the
    wrong type raise ValueError (xDSL's spec syntax errors too: they are BaseExceptions)."""
    try:
        specs = list(parse_pipeline(spec))
    except ArgSpecParseError as e:
        raise ValueError(str(e).rstrip()) from None
    out = []
    for p in specs:
        if p.name == DEFAULT_NAME:
            if p.parameters:
                raise ValueError(f"'{DEFAULT_NAME}' (the default schedule) takes no options")
            out.append(DefaultSchedule())
            continue
        cls = PASSES.get(p.name)
        if cls is None:
            get_pass(p.name)  # raises, listing the registered passes
        try:
            out.append(cls.from_spec(p))
        except (ValueError, TypeError) as e:
            raise ValueError(f"pass '{p.name}': {e}; its options: "
                             f"{pass_options(cls) or 'none'}") from None
    return out


@dataclass(frozen=True)
class DefaultSchedule(ModulePass):
    """The spec element `default`: the default schedule, iterated to a fixpoint as
    `function(passes=None)` runs it, as one step of a longer pipeline."""
    name = DEFAULT_NAME

    def apply(self, ctx, module) -> None:
        run_pipeline(module, None, verify="none")


def pass_options(cls) -> str:
    """`max-size: int = 1000000, ...` for a pass class (for error messages and --help)."""
    out = []
    for f in dataclasses.fields(cls) if dataclasses.is_dataclass(cls) else ():
        if f.name == "name" or not f.init:
            continue
        ty = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
        default = f.default if f.default is not dataclasses.MISSING else None
        out.append(f"{f.name.replace('_', '-')}: {ty} = {default!r}")
    return ", ".join(out)


@dataclass
class PassRecord:
    name: str
    seconds: float
    ops_before: int
    ops_after: int
    iteration: int
    changed: bool = True
    ir_after: str | None = None
    diff: str | None = None

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("name", "seconds", "ops_before", "ops_after",
                                               "iteration", "changed", "diff")}


@dataclass
class PipelineReport:
    records: list = field(default_factory=list)

    def after(self, name: str) -> str:
        for r in reversed(self.records):
            if r.name == name and r.ir_after is not None:
                return r.ir_after
        raise ValueError(f"pass '{name}' did not run; ran: "
                         f"{', '.join(dict.fromkeys(r.name for r in self.records))}")

    def table(self) -> str:
        return pass_table(r.as_dict() for r in self.records)


def pass_table(records) -> str:
    """Pass records (`PassRecord.as_dict()`s) as a table: pass, round, ms, ops before/after,
    changed (as the pass reported it)."""
    rows = [("pass", "round", "ms", "ops before", "ops after", "changed")]
    rows += [(r["name"], str(r["iteration"]), f"{r['seconds'] * 1e3:.2f}", str(r["ops_before"]),
              str(r["ops_after"]), "yes" if r["changed"] else "no") for r in records]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                       for i, (c, w) in enumerate(zip(row, widths))).rstrip()
             for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


def count_ops(module) -> int:
    """The number of ops in `module` (itself included), nested regions too."""
    return 1 + _count_block_ops(module.regions)


def _count_block_ops(regions) -> int:
    # Follows xDSL's op list links directly: a generator walk costs about 5x more, and the
    # pipeline counts after every pass.
    n = 0
    for region in regions:
        for block in region.blocks:
            op = block._first_op
            while op is not None:
                n += 1
                if op.regions:
                    n += _count_block_ops(op.regions)
                op = op._next_op
    return n


def _all_ops(module) -> list:
    return preorder(module.regions, [module])


# --- verification of what the passes changed ------------------------------------------------
# A full `verify()` re-runs every op's type inference: about 30-70 us per op, more than
# the whole default schedule on an unchanged graph. The pipeline's input is valid (imported
# from a traced graph, or verified by flowjit-opt), so only ops a pass created or changed can
# be invalid: new ops, ops whose operand list, block, attributes or result types changed,
# users of a value whose type changed, and df region ops (their verifiers look inside).
# (A func.func is re-verified only when its signature or block arguments changed: its
# IsolatedFromAbove check walks the whole body.)

def _fingerprint(op):
    fp = (op.parent, tuple(op.attributes.values()), tuple(op.properties.values()),
          tuple([r.type for r in op.results]))
    if op.regions:
        fp += tuple([a.type for r in op.regions for b in r.blocks for a in b.args]),
    return fp


def snapshot(module) -> dict:
    """id(op) -> (op, operand tuple, operand types, fingerprint) for `verify_changed`. xDSL
    builds a new operand tuple on every operand update, so identity tells whether operands
    may have changed; only their types matter to a verifier (cse/dce replacements keep them)."""
    return {id(op): (op, op._operands, tuple([v.type for v in op._operands]), _fingerprint(op))
            for op in _all_ops(module)}


def changed_ops(module, snap: dict) -> list:
    """Ops of `module` that are new or changed since `snap` (see above), in walk order."""
    out = []
    retyped = []
    for op in _all_ops(module):
        old = snap.get(id(op))
        if old is None or old[0] is not op or isinstance(op, _DF_REGION_OPS):
            out.append(op)
            continue
        fp = _fingerprint(op)
        if old[3] != fp:
            out.append(op)
            if old[3][3] != fp[3]:
                retyped.append(op)
        elif old[1] is not op._operands and (
                old[2] != tuple([v.type for v in op._operands]) or
                any(isinstance(v, ErasedSSAValue) for v in op._operands)):
            out.append(op)
    if retyped:
        seen = {id(o) for o in out}
        for op in retyped:
            for r in op.results:
                for use in r.uses:
                    user = use.operation
                    if id(user) not in seen:
                        seen.add(id(user))
                        out.append(user)
    return out


def verify_changed(module, snap: dict) -> int:
    """Verify the ops `changed_ops` finds (each alone: nested ops are found separately).
    Returns how many were verified."""
    ops = changed_ops(module, snap)
    for op in ops:
        op.verify(verify_nested_ops=False)
    return len(ops)


def _df_region_ops():
    from ..ir.dialect import CaseOp, CondOp, WhileOp
    return CondOp, CaseOp, WhileOp


_DF_REGION_OPS = _df_region_ops()


def run_pipeline(module, spec=None, *, record_ir: bool = False, verify_each: bool | None = None,
                 verify: str = "changed", on_pass=None):
    """Run the pipeline on `module` in place; returns a PipelineReport.

    `spec` None runs the default schedule to a fixpoint (at most MAX_ITERATIONS rounds): a
    round runs again only when a pass reported a change (`apply` returned True or None),
    and in it only the passes that have not yet seen the module as it is now unchanged;
    a spec string or list of passes runs once, in order.
    `verify`: after the last pass, "changed" verifies the ops the passes created or changed
    (the input is assumed valid), "full" the whole module, "none" nothing.
    FLOWJIT_VERIFY_EACH_PASS=1 (or `verify_each=True`) verifies the whole module after every
    pass instead. `on_pass(record, module)` is called after each pass (flowjit-opt prints the
    IR there). An exception from a pass gets a note naming the pass, and `pass_name`."""
    from ..ir.printing import print_module
    if verify_each is None:
        verify_each = os.environ.get("FLOWJIT_VERIFY_EACH_PASS") == "1"
    if verify not in ("changed", "full", "none"):
        raise ValueError(f"verify must be 'changed', 'full' or 'none', not {verify!r}")
    if spec is None:
        passes = [get_pass(n) for n in default_passes()]
        rounds = MAX_ITERATIONS
    else:
        passes = parse_spec(spec) if isinstance(spec, str) else list(spec)
        rounds = 1
    ctx = Context()
    report = PipelineReport()
    before_text = print_module(module) if record_ir else None
    with gc_paused():  # xDSL allocates many small objects; up to 30% faster without collections
        snap = snapshot(module) if verify == "changed" and not verify_each and passes else None
        n1 = count_ops(module)
        changes = 0          # how many pass runs changed the module so far
        clean_at: dict = {}  # pass index -> `changes` when it last ran and changed nothing
        for it in range(rounds):
            changed = False
            for i, p in enumerate(passes):
                if clean_at.get(i) == changes:
                    continue   # it saw this very module and left it alone: a fixpoint for it
                n0 = n1
                t0 = time.perf_counter()
                try:
                    did = p.apply(ctx, module)
                except BaseException as e:
                    _note_pass(e, p.name)
                    raise
                dt = time.perf_counter() - t0
                # A pass that does not say (returns None, as xDSL's ModulePass.apply does)
                # may have changed anything: as MLIR assumes of a pass that preserves nothing.
                did = did is not False
                n1 = count_ops(module) if did else n0
                rec = PassRecord(p.name, dt, n0, n1, it, changed=did)
                if record_ir:
                    text = print_module(module)
                    rec.ir_after = text
                    if text != before_text:
                        rec.diff = "".join(difflib.unified_diff(
                            before_text.splitlines(True), text.splitlines(True),
                            f"before {p.name}", f"after {p.name}", n=2))
                    before_text = text
                report.records.append(rec)
                if did:
                    changed = True
                    changes += 1
                else:
                    clean_at[i] = changes
                if verify_each:
                    _verify_after(module, p.name)
                if on_pass is not None:
                    on_pass(rec, module)
            if spec is not None or not changed:
                break
        if passes and not verify_each:
            if verify == "full":
                module.verify()
            elif verify == "changed":
                verify_changed(module, snap)
    return report


def _verify_after(module, name: str) -> None:
    """Verify the whole module after the pass `name`; invalid IR raises a VerifyException
    that names the pass and carries the verifier's message."""
    from xdsl.utils.exceptions import VerifyException
    try:
        module.verify()
    except VerifyException as e:
        err = VerifyException(f"the IR after pass '{name}' does not verify: {e}")
        err.pass_name = name
        raise err from e


def _note_pass(e: BaseException, name: str) -> None:
    if getattr(e, "pass_name", None) is None:
        try:
            e.pass_name = name
        except AttributeError:
            pass
        if hasattr(e, "add_note"):
            e.add_note(f"flowjit: in pass '{name}'")
