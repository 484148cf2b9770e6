"""`flowjit-opt`: parse, verify, transform and lower `df` MLIR, like mlir-opt / xdsl-opt.

    flowjit-opt in.mlir                               parse, verify, print
    flowjit-opt in.mlir -p "cse,dce"                  run passes (a pipeline spec)
    flowjit-opt in.mlir -p "constant-folding{max-size=10}" --print-ir-after-all
    flowjit-opt in.mlir --default-pipeline --time-passes
    flowjit-opt in.mlir --lower-to stablehlo          (or hlo, optimized-hlo; static shapes)
    flowjit-opt in.mlir --verify-diagnostics          check `// expected-error {{...}}` lines
    flowjit-opt in.mlir --load-plugin my_pass.py -p "default,my-pass"
    cat in.mlir | flowjit-opt - -o out.mlir

Every problem with the input (syntax, verification, an unknown pass or option, a failing
pass, a shape XLA cannot compile) is a diagnostic `file:line:col: error: message` followed by
the offending line and a caret, and exit status 1; never a Python traceback
(`--traceback` shows one for errors that are flowjit's own bugs).

`--verify-diagnostics` follows MLIR: a comment `// expected-error {{text}}` expects an error
whose message contains `text` on the comment's line (`@+N` / `@-N`: N lines below / above;
`@above` / `@below`: the nearest line that is not only such a comment; `@unknown`: an error
without a location). Exit status 0 iff every expected error occurred and no other did.
`--split-input-file` processes the `// -----`-separated parts of the file independently.

`--load-plugin FILE.py|PACKAGE_DIR|module` (repeatable) imports user code before anything is
parsed, so the ops, passes and lowering rules it registers are known; the `flowjit.plugins`
entry points of installed packages are loaded first (frontend/tools/plugins.py).
"""
from __future__ import annotations

import argparse
import bisect
import io
import re
import sys
import time
from dataclasses import dataclass, field

SPLIT_MARKER = re.compile(r"^// -----\s*$", re.M)
_COMMENT = re.compile(r"//[^\n]*")
PIPELINE_NAME = "<pass-pipeline>"
LOWER_TARGETS = ("stablehlo", "hlo", "optimized-hlo")


# --- diagnostics ------------------------------------------------------------------------------
@dataclass
class Diag:
    message: str
    line: int | None = None      # 1-based line in the input file (None: no location)
    col: int | None = None
    file: str | None = None      # None: the input file
    source: str | None = None    # the text `line` refers to, when not the input (pipelines)
    notes: list = field(default_factory=list)

    def format(self, filename: str, lines: list) -> str:
        where = self.file or filename
        if self.line is None:
            out = [f"{where}: error: {self.message}"]
        else:
            col = self.col or 1
            out = [f"{where}:{self.line}:{col}: error: {self.message}"]
            text = self.source if self.source is not None else (
                lines[self.line - 1] if 0 < self.line <= len(lines) else None)
            if text is not None:
                out.append(text)
                out.append(" " * (col - 1) + "^")
        out += [f"note: {n}" for n in self.notes]
        return "\n".join(out)


class _Failed(Exception):
    """Stops processing one input (or split chunk) after its diagnostics were collected."""


def _message(e: BaseException) -> str:
    return str(e).strip() or type(e).__name__


# --- parsing with op positions ------------------------------------------------------------
class LineIndex:
    """The offsets where a text's lines start, so an offset's (line, col) is a binary search:
    xDSL's own locations count the newlines from the start of the input, once per op."""

    def __init__(self, text: str, first_line: int = 1):
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.first_line = first_line   # the line of the input file that `text` starts on

    def line_col(self, offset: int) -> tuple:
        i = bisect.bisect_right(self.starts, offset) - 1
        return i + self.first_line, offset - self.starts[i] + 1


def _parser_class():
    from xdsl.parser import Parser

    class TrackingParser(Parser):
        """Remembers the offset where each op starts, so verifier errors can name the line."""

        def __init__(self, ctx, text, name):
            self.op_starts: dict = {}
            super().__init__(ctx, text, name)

        def parse_operation(self):
            start = self._current_token.span.start
            op = super().parse_operation()
            self.op_starts[op] = start
            return op

    return TrackingParser


def parse(text: str, name: str, first_line: int = 1):
    """-> (module, {op: (line, col)}); raises _Failed with a Diag for malformed input.
    `text` starts on line `first_line` of the file (a split chunk)."""
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.utils.exceptions import ParseError

    from ...ir import printing
    from ...ir.dialect import context
    printing._patch_parser()
    if not _COMMENT.sub("", text).strip():  # nothing but comments: an empty module
        return ModuleOp([]), {}
    index = LineIndex(text, first_line)
    parser = None
    try:
        parser = _parser_class()(context(), text, name)  # lexes the first token
        module = parser.parse_module()
    except ParseError as e:
        line, col = index.line_col(e.span.start)
        m = re.match(r"Operation (\S+) is not registered", e.msg)
        if m:  # xDSL points after the name; point at it
            at = text.rfind(m.group(1), 0, e.span.start + 1)
            if at >= 0:
                line, col = index.line_col(at)
        m = re.match(r"values used but not defined: \[%([^,\]]+)", e.msg)
        if m:  # xDSL reports these at the end of the input; point at the first use
            code = _COMMENT.sub(lambda c: " " * len(c.group()), text)
            use = re.search(r"%" + re.escape(m.group(1)) + r"(?![\w$.-])", code)
            if use:
                line, col = index.line_col(use.start())
        raise _Failed([Diag(e.msg, line, col)]) from None
    except Exception as e:  # noqa: BLE001 - an attribute or op builder rejected the text
        at = parser._current_token.span.start if parser is not None else 0
        raise _Failed([Diag(_message(e), *index.line_col(at))]) from None
    locs = {op: index.line_col(start) for op, start in parser.op_starts.items()}
    if module not in locs:  # implicit module: place it at its first op
        first = next(iter(module.body.block.ops), None)
        locs[module] = locs.get(first, (first_line, 1))
    return module, locs


# --- verification ---------------------------------------------------------------------------
def _op_message(op, e: BaseException) -> str:
    msg = _message(e)
    msg = msg.removeprefix("Operation does not verify: ")
    if not msg.startswith(op.name):
        msg = f"'{op.name}' op {msg}"
    return msg


def _op_text(op) -> str:
    from xdsl.printer import Printer
    out = io.StringIO()
    try:
        Printer(stream=out).print_op(op)
    except Exception:  # noqa: BLE001 - an op too broken to print
        return op.name
    text = out.getvalue().strip().splitlines()
    return text[0] + (" ..." if len(text) > 1 else "")


def _dominance(module, locs: dict) -> list:
    """MLIR's SSA dominance rule, which xDSL's verifier does not check: an operand is defined
    by an earlier op of its block or of an enclosing block, or is an enclosing block's
    argument. A Diag per violating use. One set of visible values, grown on entering a block
    and shrunk on leaving it (a copy per block would cost the values above it)."""
    diags = []
    visible: set = set()

    def walk(block):
        defined = list(block.args)
        visible.update(defined)
        for op in block.ops:
            for i, v in enumerate(op.operands):
                if v not in visible:
                    line, col = locs.get(op, (None, None))
                    diags.append(Diag(f"'{op.name}' op operand #{i} does not dominate this "
                                      f"use", line, col))
            for region in op.regions:
                for b in region.blocks:
                    walk(b)
            visible.update(op.results)
            defined.extend(op.results)
        visible.difference_update(defined)

    for region in module.regions:
        for b in region.blocks:
            walk(b)
    return diags


def verify(module, locs: dict) -> list:
    """Verify every op (each alone, so one broken op does not hide the next); a Diag per
    failing op, at its line when the op came from the input."""
    diags = _dominance(module, locs)
    if diags:
        return diags
    try:
        module.verify()
        return []
    except Exception:  # noqa: BLE001 - located below, op by op
        pass
    diags = []
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except Exception as e:  # noqa: BLE001 - verifiers may raise anything
            line, col = locs.get(op, (None, None))
            d = Diag(_op_message(op, e), line, col)
            if line is None:
                d.notes.append(f"the op (created by a pass): {_op_text(op)}")
            diags.append(d)
    if not diags:  # a structural error that only the whole-module verifier sees
        try:
            module.verify()
        except Exception as e:  # noqa: BLE001
            line, col = locs.get(module, (None, None))
            diags.append(Diag(_message(e), line, col))
    return diags


# --- pipelines ---------------------------------------------------------------------------------
def parse_pipeline_spec(spec: str):
    """-> list of pass instances; raises _Failed with a Diag located in the spec."""
    from xdsl.utils.arg_spec import parse_pipeline
    from xdsl.utils.exceptions import ArgSpecParseError

    from ...passes.pipeline import parse_spec
    try:
        names = [p.name for p in parse_pipeline(spec)]
    except ArgSpecParseError as e:
        text = str(e)
        m = re.search(r"pass-pipeline:(\d+):(\d+)", text)
        col = int(m.group(2)) if m else 1
        msg = [ln.strip() for ln in text.splitlines() if ln.strip()][-1]
        raise _Failed([Diag(f"bad pass pipeline: {msg}", 1, col, PIPELINE_NAME, spec)]) from None
    try:
        return parse_spec(spec)
    except ValueError as e:
        m = re.match(r"(?:unknown pass|pass) '([^']*)'", str(e))
        col = 1
        if m and m.group(1) in names:
            pos = re.search(r"(?:^|[,\s])(" + re.escape(m.group(1)) + r")(?=[{,\s]|$)", spec)
            col = pos.start(1) + 1 if pos else 1
        raise _Failed([Diag(str(e), 1, col, PIPELINE_NAME, spec)]) from None


class _PassPrinter:
    def __init__(self, args, stderr):
        self.args = args
        self.stderr = stderr

    def __call__(self, record, module):
        if self.args.print_ir_after_all:
            self.stderr.write(f"// -----// IR Dump After {record.name} //----- //\n")
            self.stderr.write(_print(module, self.args))
            self.stderr.flush()


def _print(module, args) -> str:
    from xdsl.printer import Printer
    out = io.StringIO()
    Printer(stream=out, print_debuginfo=not args.strip_debuginfo,
            print_generic_format=args.print_op_generic).print_op(module)
    return out.getvalue().replace(" loc(unknown)", "") + "\n"


def run_passes(module, locs, passes, args, stderr, timings: list):
    from xdsl.utils.exceptions import VerifyException

    from ...passes.pipeline import run_pipeline
    spec = None if args.default_pipeline else passes
    try:
        report = run_pipeline(module, spec, verify="none", verify_each=args.verify_each,
                              on_pass=_PassPrinter(args, stderr))
    except Exception as e:  # noqa: BLE001 - a pass failed; report it, located at the module
        name = getattr(e, "pass_name", None)
        line, col = locs.get(module, (None, None))
        if args.verify_each and isinstance(e, VerifyException):
            diags = verify(module, locs)   # --verify-each: the IR after `name` is invalid
            for d in diags:
                d.message += f" (after pass '{name}')"
            if diags:
                raise _Failed(diags) from None
        what = f"pass '{name}' failed" if name else "the pass pipeline failed"
        if isinstance(e, _internal_errors()) and args.traceback:
            raise
        msg = _message(e)
        d = Diag(f"{what}: {msg}", line, col)
        if isinstance(e, _internal_errors()):
            d.notes.append(f"{type(e).__name__} inside the pass: a bug in the pass "
                           f"(--traceback shows where)")
        raise _Failed([d]) from None
    for r in report.records:
        timings.append((r.name, r.seconds, f"{r.ops_before} -> {r.ops_after} ops"))
    diags = verify(module, locs)
    if diags:
        for d in diags:
            d.message += " (after the passes)"
        raise _Failed(diags)


def _internal_errors():
    return (AttributeError, TypeError, KeyError, IndexError, AssertionError, NameError,
            UnboundLocalError, ZeroDivisionError, RecursionError)


# --- lowering --------------------------------------------------------------------------------
def lower(module, locs, target: str, args) -> str:
    from xdsl.dialects import func
    from xdsl.dialects.builtin import TensorType, UnrankedTensorType

    from ...ir.dialect import ResourceType
    funcs = [op for op in module.ops if isinstance(op, func.FuncOp)]
    mline, mcol = locs.get(module, (None, None))
    if len(funcs) != 1:
        names = ", ".join("@" + f.sym_name.data for f in funcs) or "none"
        raise _Failed([Diag(f"--lower-to lowers exactly one func.func; this input has "
                            f"{len(funcs)} ({names}); split it with `// -----` and "
                            f"--split-input-file", mline, mcol)])
    fn = funcs[0]

    def dynamic(ty):
        if isinstance(ty, ResourceType):
            ty = ty.value_type
        if isinstance(ty, UnrankedTensorType):
            return True
        return isinstance(ty, TensorType) and any(d < 0 for d in ty.get_shape())

    diags = []
    fline, fcol = locs.get(fn, (mline, mcol))
    for i, a in enumerate(fn.body.block.args):
        if dynamic(a.type):
            diags.append(Diag(f"--lower-to {target} needs static shapes: argument #{i} of "
                              f"@{fn.sym_name.data} has type {a.type}", fline, fcol))
    for op in fn.walk():
        for r in op.results:
            if dynamic(r.type):
                line, col = locs.get(op, (None, None))
                d = Diag(f"--lower-to {target} needs static shapes: '{op.name}' produces "
                         f"{r.type}", line, col)
                if line is None:
                    d.notes.append(f"the op (created by a pass): {_op_text(op)}")
                diags.append(d)
                break
    if diags:
        diags[0].notes.append("XLA compiles static shapes only (flowjit specializes traced "
                              "functions per concrete input shape before lowering)")
        raise _Failed(diags)
    try:
        from ...lowering.stablehlo import lower_module
        lowered = lower_module(module, fn.sym_name.data)
        if target == "stablehlo":
            return lowered.module.operation.get_asm(
                enable_debug_info=not args.strip_debuginfo).rstrip("\n") + "\n"
        if target == "hlo":
            from ...runtime.jax_internals import hlo_text
            return hlo_text(lowered.module, metadata=not args.strip_debuginfo).rstrip("\n") \
                + "\n"
        from ...runtime import xla
        return xla.compile_module(lowered.module, lowered.host_callbacks).hlo_modules()[0].to_string().rstrip("\n") \
            + "\n"
    except Exception as e:  # noqa: BLE001 - no rule for an op, MLIR or XLA rejected it
        if args.traceback:
            raise
        raise _Failed([Diag(f"lowering to {target} failed: {_message(e)}", fline,
                            fcol)]) from None


# --- driver ------------------------------------------------------------------------------------
def process(text: str, filename: str, args, passes, stderr, timings: list,
            first_line: int = 1) -> str:
    """One input (or split chunk, starting on line `first_line` of the file) -> output text;
    raises _Failed."""
    t0 = time.perf_counter()
    module, locs = parse(text, filename, first_line)
    t1 = time.perf_counter()
    timings.append(("parse", t1 - t0, ""))
    diags = verify(module, locs)
    timings.append(("verify", time.perf_counter() - t1, ""))
    if diags:
        raise _Failed(diags)
    if passes or args.default_pipeline:
        run_passes(module, locs, passes, args, stderr, timings)
    t2 = time.perf_counter()
    if args.lower_to:
        out = lower(module, locs, args.lower_to, args)
        timings.append((f"lower to {args.lower_to}", time.perf_counter() - t2, ""))
    else:
        out = _print(module, args)
        timings.append(("print", time.perf_counter() - t2, ""))
    return out


def _chunks(text: str, split: bool):
    """(first line, text) of each part of the input, one at a time: a part is a slice of the
    input, numbered by where it starts in the file."""
    if not split:
        yield 1, text
        return
    start, line = 0, 1
    for m in SPLIT_MARKER.finditer(text):
        yield line, text[start:m.start()]
        line += text.count("\n", start, m.end())
        start = m.end()
    yield line, text[start:]


# `// expected-error@+1 {{message}}`
_EXPECT = re.compile(r"//\s*expected-(error|warning|note|remark)\s*"
                     r"(@(?:[+-]\d+|above|below|unknown))?\s*\{\{(.*?)\}\}")


@dataclass
class Expectation:
    kind: str
    line: int | None      # the line the diagnostic must be on (None: @unknown)
    message: str
    at: int               # the comment's own line
    col: int
    matched: bool = False


def expectations(lines: list) -> list:
    only_comment = [bool(re.match(r"^\s*//\s*expected-", ln)) for ln in lines]
    # the nearest line above / below each line that is not only an expectation comment
    above, below = [0] * (len(lines) + 2), [len(lines) + 1] * (len(lines) + 2)
    for i in range(1, len(lines) + 1):
        above[i] = above[i - 1] if i > 1 and only_comment[i - 2] else i - 1
    for i in range(len(lines), 0, -1):
        below[i] = below[i + 1] if i < len(lines) and only_comment[i] else i + 1
    out = []
    for i, ln in enumerate(lines, 1):
        if "expected-" not in ln:
            continue
        for m in _EXPECT.finditer(ln):
            kind, where, msg = m.group(1), m.group(2), m.group(3)
            if where is None:
                target = i
            elif where == "@unknown":
                target = None
            elif where in ("@above", "@below"):
                target = above[i] if where == "@above" else below[i]
            else:
                target = i + int(where[1:])
            out.append(Expectation(kind, target, msg, i, m.start() + 1))
    return out


def check_expectations(diags: list, expected: list, filename: str, lines: list, stderr) -> bool:
    ok = True
    errors_by_line: dict = {}
    for e in expected:
        if e.kind == "error":
            errors_by_line.setdefault(e.line, []).append(e)
    for d in diags:
        if d.file is not None:  # a bad pipeline is no diagnostic of the input
            stderr.write(d.format(filename, lines) + "\n")
            ok = False
            continue
        for e in errors_by_line.get(d.line, ()):
            if not e.matched and e.message in d.message:
                e.matched = True
                break
        else:
            stderr.write(Diag(f"unexpected error: {d.message}", d.line, d.col,
                              notes=d.notes).format(filename, lines) + "\n")
            ok = False
    for e in expected:
        if not e.matched:
            where = "at an unknown location" if e.line is None else f"on line {e.line}"
            stderr.write(Diag(f"expected {e.kind} \"{e.message}\" was not produced ({where})",
                              e.at, e.col).format(filename, lines) + "\n")
            ok = False
    return ok


def _time_report(timings: list, total: float) -> str:
    merged: dict = {}
    for name, secs, info in timings:
        t, n, infos = merged.get(name, (0.0, 0, []))
        merged[name] = (t + secs, n + 1, infos + ([info] if info else []))
    rows = []
    for name, (secs, n, infos) in merged.items():
        label = name + (f" (x{n})" if n > 1 else "")
        if infos:
            label += f"  [{infos[0].split(' -> ')[0]} -> {infos[-1].split(' -> ')[-1]}]"
        rows.append(f"  {secs:9.4f} ({100 * secs / total if total else 0:5.1f}%)  {label}")
    bar = "===" + "-" * 73 + "==="
    return "\n".join([
        bar, "                         ... Execution time report ...", bar,
        f"  Total Execution Time: {total:.4f} seconds", "",
        "  ----Wall Time----  ----Name----", *rows,
        f"  {total:9.4f} (100.0%)  Total", ""])


def _argparser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="flowjit-opt", description="Parse, verify, transform and lower df MLIR.",
        epilog="Passes: see --list-passes. Pipeline spec syntax: "
               "'cse,dce', 'constant-folding{max-size=10}'.")
    ap.add_argument("input", nargs="?", default="-", help="input file ('-' or none: stdin)")
    ap.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("-p", "--passes", default=None, metavar="SPEC",
                   help="pass pipeline to run, e.g. 'cse,dce' (none: parse, verify, print)")
    g.add_argument("--default-pipeline", action="store_true",
                   help="run the default schedule (tf.function's passes=None), to a fixpoint")
    ap.add_argument("--print-ir-after-all", action="store_true",
                    help="print the IR to stderr after every pass")
    ap.add_argument("--time-passes", action="store_true",
                    help="print a table of per-pass times to stderr")
    ap.add_argument("--lower-to", choices=LOWER_TARGETS,
                    help="after the passes, lower to StableHLO text, HLO, or XLA-optimized HLO")
    ap.add_argument("--verify-diagnostics", action="store_true",
                    help="check the errors against `// expected-error {{...}}` comments")
    ap.add_argument("--split-input-file", action="store_true",
                    help="process the `// -----`-separated parts of the input separately")
    ap.add_argument("--verify-each", action="store_true",
                    help="verify the whole module after every pass")
    ap.add_argument("--strip-debuginfo", action="store_true",
                    help="print no locations")
    ap.add_argument("--print-op-generic", action="store_true",
                    help="print ops in MLIR's generic form")
    ap.add_argument("--list-passes", action="store_true",
                    help="list the registered passes and their options, then exit")
    ap.add_argument("--load-plugin", action="append", default=[], metavar="PLUGIN",
                    help="import a .py file, package folder or module that registers ops, "
                         "passes or lowering rules (repeatable)")
    ap.add_argument("--traceback", action="store_true",
                    help="show Python tracebacks of internal errors (flowjit bugs)")
    return ap


def list_passes() -> str:
    from ...passes import PASSES
    from ...passes.pipeline import default_passes, pass_options
    default = set(default_passes())
    out = []
    for name in sorted(PASSES):
        cls = PASSES[name]
        doc = cls.__doc__ or ""
        if doc.startswith(cls.__name__ + "("):  # dataclass's generated signature
            doc = ""
        lines = (doc.strip() or sys.modules[cls.__module__].__doc__ or "").strip().splitlines()
        summary = lines[0] if lines else ""
        mark = "*" if name in default else " "
        out.append(f"{mark} {name}: {summary.strip()}")
        opts = pass_options(cls)
        if opts:
            out.append(f"      options: {opts}")
    out.append("(* = in the default pipeline)")
    return "\n".join(out) + "\n"


def _load_plugins(args, stderr) -> int | None:
    """Load the entry-point plugins and `--load-plugin`s; 1 after reporting a failure."""
    from .plugins import load_entry_point_plugins, load_plugin
    current = "from the flowjit.plugins entry points"
    try:
        load_entry_point_plugins()
        for spec in args.load_plugin:
            current = f"'{spec}'"
            load_plugin(spec)
    except Exception as e:  # noqa: BLE001 - user code may raise anything while importing
        if args.traceback:
            raise
        stderr.write(f"flowjit-opt: error: cannot load plugin {current}: "
                     f"{type(e).__name__}: {_message(e)}\n")
        return 1
    return None


def main(argv=None) -> int:
    stdout, stderr = sys.stdout, sys.stderr
    try:
        args = _argparser().parse_args(argv)
    except SystemExit as e:  # usage errors (2) and --help (0)
        return e.code if isinstance(e.code, int) else 1
    failed = _load_plugins(args, stderr)
    if failed is not None:
        return failed
    if args.list_passes:
        stdout.write(list_passes())
        return 0
    t_start = time.perf_counter()
    filename = "<stdin>" if args.input == "-" else args.input
    try:
        if args.input == "-":
            text = sys.stdin.read()
        else:
            with open(args.input, encoding="utf-8") as f:
                text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        stderr.write(f"flowjit-opt: error: cannot read '{filename}': "
                     f"{getattr(e, 'strerror', None) or e}\n")
        return 1
    lines = text.split("\n")   # numbered as the parser numbers them: by \n only

    passes = []
    diags: list = []
    outputs: list = []
    timings: list = []
    try:
        if args.passes:
            passes = parse_pipeline_spec(args.passes)
        for first_line, chunk in _chunks(text, args.split_input_file):
            try:
                outputs.append(process(chunk, filename, args, passes, stderr, timings,
                                       first_line))
            except _Failed as f:
                diags += f.args[0]
    except _Failed as f:  # a bad pipeline: nothing ran
        diags += f.args[0]
    except Exception as e:  # noqa: BLE001 - a flowjit bug; say so without a traceback
        if args.traceback:
            raise
        stderr.write(f"flowjit-opt: internal error: {type(e).__name__}: {_message(e)}\n"
                     f"(rerun with --traceback for the Python traceback)\n")
        return 1

    if args.verify_diagnostics:
        ok = check_expectations(diags, expectations(lines), filename, lines, stderr)
    else:
        for d in diags:
            stderr.write(d.format(filename, lines) + "\n")
        ok = not diags

    if outputs:
        result = "// -----\n".join(outputs)
        if args.output == "-":
            stdout.write(result)
            stdout.flush()
        else:
            try:
                with open(args.output, "w", encoding="utf-8") as f:
                    f.write(result)
            except OSError as e:
                stderr.write(f"flowjit-opt: error: cannot write '{args.output}': "
                             f"{e.strerror or e}\n")
                return 1
    if args.time_passes:
        stderr.write(_time_report(timings, time.perf_counter() - t_start))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
