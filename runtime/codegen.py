"""A Plan as one generated Python function: straight-line code over local variables.

The interpreter (`executor.run_steps`) pays per step for a tuple unpack, a kind test and list
reads and writes of slots; a staged loop pays it on every iteration. Here each step becomes one
line (`s7 = k2(s3, s5, axis=1)`), regions become inline `if`/`while` blocks, and
- values are locals (`s<slot>`); constants and kernels are the function's globals, so a
  1000-iteration loop runs as a plain Python loop over NumPy calls;
- binary arithmetic and comparisons on 0-d numeric values use Python operators on NumPy
  scalars (~20 ns) instead of a ufunc call on 0-d values (~1 µs), while a ufunc call on an
  array reads a 0-d constant as a 0-d array (faster than a NumPy scalar); for NumPy operands an
  operator is the same ufunc, so the results are identical. Likewise a cast of a 0-d value
  that cannot overflow (an integer to a float) is the NumPy scalar type's constructor. Rank-0 arguments and variable
  reads are converted to NumPy scalars first (a device buffer would bring JAX's semantics);
- a value is `del`eted right after its last use (a liveness plan), so a large intermediate is
  freed as soon as it dies instead of when the call returns (scalars and arrays known to be
  small are left to the call's end); an elementwise ufunc whose
  operand dies there writes into that operand (`out=`) when the operand is a fresh array no
  other step saw (so no view of it exists) of the result's static shape and dtype;
- the body of a `df.while` reuses the loop's result variables as its arguments: no copies.

A failing line is mapped back to its step (the code object's line table), and the error is
the interpreter's: the op, its input shapes and dtypes and the user's line.
"""
from __future__ import annotations

import itertools
import keyword
import math

import numpy as np

from .steps import (CASE, COND, MANY, NONE, ONE, STEP_FAILURES, WHILE, locate_failure,
                    walk_steps)

# df op -> the Python operator that computes it on 0-d NumPy values exactly as its kernel does
SCALAR_OPERATORS = {
    "add": "+", "sub": "-", "mul": "*", "less": "<", "less_equal": "<=", "greater": ">",
    "greater_equal": ">=", "equal": "==", "not_equal": "!=",
}
_LITERAL_TYPES = (bool, int, str, type(None))
# Ops whose kernels return a new array they alone hold (besides ufuncs): candidates for `out=`
_FRESH = frozenset(("matmul", "fused_matmul"))
_SMALL_BYTES = 1 << 16   # values under 64 KiB are left to the end of the call
_MODULE = __name__  # generated frames report this module: flowjit's warning filters apply


def host_scalar(value):
    """A 0-d value as a NumPy scalar (device buffers copied to the host, 0-d arrays unwrapped)."""
    return value if isinstance(value, np.generic) else np.asarray(value)[()]


class GeneratedPlan:
    """The compiled function of a Plan and what maps its lines back to steps."""

    def __init__(self, plan):
        gen = _Generator(plan)
        source = gen.source()
        code = compile(source, f"<flowjit plan {id(plan):x}>", "exec")
        namespace = dict(gen.globals, __name__=_MODULE, _FAILURES=STEP_FAILURES,
                         _locate=self._locate)
        exec(code, namespace)  # noqa: S102 - our own generated source, no user text
        self.run = namespace["run"]
        self.globals = namespace
        self.steps_by_line = gen.steps_by_line
        self.names = gen.names
        self.source = source

    def _locate(self, error):
        """The located error for `error` raised in `run` (see `executor.locate_failure`):
        the failing line of the generated code (found in the traceback) names the step."""
        tb = error.__traceback__
        frame, line = None, None
        while tb is not None:
            if tb.tb_frame.f_code is self.run.__code__:
                frame, line = tb.tb_frame, tb.tb_lineno
            tb = tb.tb_next
        step = self.steps_by_line.get(line)
        if step is None:
            return None
        values = frame.f_locals

        def read(slot):
            name = self.names.get(slot, f"s{slot}")
            return values[name] if name in values else self.globals[name]
        return locate_failure(error, step, read)


class _Generator:
    def __init__(self, plan):
        self.plan = plan
        self.scalars = plan.scalar_slots
        self.uses = _use_counts(plan.steps)
        for s in plan.out_slots:
            self.uses[s] = self.uses.get(s, 0) + 1
        self.fresh: set = set()   # this block's slots holding arrays only their producer made
        self.lines: list[str] = []
        self.steps_by_line: dict = {}
        self.names: dict = {-1: "_"}    # slot -> variable name where it is not `s<slot>`
        self.globals: dict = {"_host_scalar": host_scalar, "_np": np}
        self._kernels: dict = {}        # id(fn) -> global name
        self._temp = itertools.count()
        # 0-d constants as 0-d arrays, for ufunc calls: NumPy takes a 0-d array operand in
        # two thirds of the time it takes a NumPy scalar (whose type it converts on every
        # call), and the result is the same (both are strongly typed under NEP 50)
        self.array_constants: dict = {}
        for slot, value in plan.constants.items():
            if slot in self.scalars:
                if isinstance(value, np.ndarray):
                    self.array_constants[slot] = self._global("c", value)
                value = host_scalar(value)
            self.globals[f"s{slot}"] = value

    # --- emitting -------------------------------------------------------------------------
    def source(self) -> str:
        plan = self.plan
        self._emit(0, "def run(args):")
        self._emit(1, "try:")
        depth = 2
        # NumPy warns when integer scalar arithmetic wraps, where the ufunc on arrays wraps
        # silently (as TF does): a plan with such operators runs under errstate(over="ignore").
        if any(self._operator(step) in ("+", "-", "*") and
               self.scalars[step.ins[0]].kind in "iu" for step in walk_steps(plan.steps)):
            self._emit(depth, 'with _np.errstate(over="ignore"):')
            depth += 1
        if plan.arg_slots:
            self._emit(depth, f"{self._names(plan.arg_slots)}, = args")
        for s in plan.arg_slots:
            if s in self.scalars:
                self._emit(depth, f"{self.name(s)} = _host_scalar({self.name(s)})")
        self._block(plan.steps, plan.out_slots, depth)
        self._emit(depth, f"return [{self._names(plan.out_slots)}]")
        self._emit(1, "except _FAILURES as e:")
        self._emit(2, "located = _locate(e)")
        self._emit(2, "if located is None:")
        self._emit(3, "raise")
        self._emit(2, "raise located from None")
        return "\n".join(self.lines) + "\n"

    def _emit(self, depth, text, step=None):
        self.lines.append("    " * depth + text)
        if step is not None:
            self.steps_by_line[len(self.lines)] = step

    def name(self, slot) -> str:
        return self.names.get(slot, f"s{slot}")

    def _names(self, slots) -> str:
        return ", ".join(self.name(s) for s in slots)

    def _global(self, prefix, value) -> str:
        name = f"{prefix}{len(self.globals)}"
        self.globals[name] = value
        return name

    def _kernel(self, fn) -> str:
        name = self._kernels.get(id(fn))
        if name is None:
            name = self._kernels[id(fn)] = self._global("k", fn)
        return name

    def _block(self, steps, yields, depth, outs=()):
        """Emit `steps`, then `outs = yields` (a region's results). A value defined here is
        deleted right after its last use in this block (a use inside a nested region counts
        at the region's step); one yielded, after the assignment."""
        defined = set()
        outer_fresh, self.fresh = self.fresh, set()   # a loop body must not overwrite values
        last = _last_uses(steps)                      # from above: they serve every iteration
        for s in yields:
            last[s] = len(steps)
        dying: dict = {}   # step index -> slots whose last use it is
        for s, at in last.items():
            dying.setdefault(at, []).append(s)
        for i, step in enumerate(steps):
            self._step(step, depth)
            made = _defined(step)
            defined.update(made)
            self._delete(depth, [s for s in made if s not in last] +
                         [s for s in dying.get(i, ()) if s in defined])
        if outs:
            self._emit(depth, f"{self._names(outs)}, = {self._names(yields)},")
            self._delete(depth, [s for s in yields if s in defined])
        elif not steps:
            self._emit(depth, "pass")
        self.fresh = outer_fresh

    def _delete(self, depth, slots):
        """`del` the dead values worth freeing early: not scalars, not arrays known to be small
        (a `del` line costs Python's compiler about as much as the step it follows)."""
        arrays = self.plan.array_slots
        dead = [s for s in dict.fromkeys(slots) if s not in self.scalars and (
            s not in arrays or arrays[s][0].itemsize * math.prod(arrays[s][1]) >= _SMALL_BYTES)]
        if dead:
            self._emit(depth, f"del {self._names(dead)}")

    def _step(self, step, depth):
        kind, ins, outs, attrs = step.kind, step.ins, step.outs, step.attrs
        if kind in (ONE, MANY, NONE):
            self._emit(depth, self._call(step), step)
        elif kind == COND:
            self._emit(depth, f"if {self.name(ins[0])}:", step)
            self._block(*attrs[0], outs=outs, depth=depth + 1)
            self._emit(depth, "else:")
            self._block(*attrs[1], outs=outs, depth=depth + 1)
        elif kind == CASE:
            index = f"_i{next(self._temp)}"
            self._emit(depth, f"{index} = int({self.name(ins[0])})", step)
            for b, branch in enumerate(attrs[:-1]):   # out of range runs the last branch
                self._emit(depth, f"{'if' if b == 0 else 'elif'} {index} == {b}:")
                self._block(*branch, outs=outs, depth=depth + 1)
            if len(attrs) > 1:
                self._emit(depth, "else:")
            self._block(*attrs[-1], outs=outs, depth=depth + (len(attrs) > 1))
        else:
            self._while(step, depth)

    def _operator(self, step):
        """The Python operator that runs `step` on its NumPy scalars, or None."""
        kind, ins, attrs = step.kind, step.ins, step.attrs
        if kind == ONE and not attrs and len(ins) == 2 and ins[0] in self.scalars \
                and ins[1] in self.scalars:
            return SCALAR_OPERATORS.get(step.label.op)
        return None

    def _scalar_cast(self, step):
        """The NumPy scalar type that computes the cast `step` on a 0-d value exactly as the
        kernel does, without its checks: integers and bools into a float, a float into one as
        wide or wider (nothing overflows or needs TF's rules for out-of-range floats; the
        scalar slots hold no half or complex values); None for any other step."""
        if step.kind != ONE or step.label.op != "cast" or step.ins[0] not in self.scalars \
                or step.outs not in self.scalars:
            return None
        source, target = self.scalars[step.ins[0]], step.attrs["dtype"].np
        if target.kind == "f" and (source.kind in "iub" or target.itemsize >= source.itemsize):
            return self._global("t", target.type)
        return None

    def _call(self, step) -> str:
        kind, fn, ins, outs, attrs, label = step
        op = self._operator(step)
        if op is not None:
            return f"{self.name(outs)} = {self.name(ins[0])} {op} {self.name(ins[1])}"
        cast = self._scalar_cast(step)
        if cast is not None:
            return f"{self.name(outs)} = {cast}({self.name(ins[0])})"
        if isinstance(fn, np.ufunc):
            args = [self.array_constants.get(s) or self.name(s) for s in ins]
        else:
            args = [self.name(s) for s in ins]
        other = {}
        for key, value in (attrs or {}).items():
            if not key.isidentifier() or keyword.iskeyword(key):
                other[key] = value
            elif _is_literal(value):
                args.append(f"{key}={value!r}")
            else:
                args.append(f"{key}={self._global('a', value)}")
        if other:
            args.append(f"**{self._global('a', other)}")
        if kind == ONE and isinstance(fn, np.ufunc) and fn.nin == 2 and not attrs:
            reused = self._reusable(ins, outs)
            if reused is not None:
                args.append(f"out={self.name(reused)}")
        call = f"{self._kernel(fn)}({', '.join(args)})"
        if kind == ONE and (label.op in _FRESH or isinstance(fn, np.ufunc)):
            self.fresh.add(outs)
        if kind == NONE:
            return call
        if kind == MANY:
            return f"{self._names(outs)}, = {call}"
        if label.op == "read_variable" and outs in self.scalars:
            return f"{self.name(outs)} = _host_scalar({call})"
        return f"{self.name(outs)} = {call}"

    def _reusable(self, ins, out):
        """The operand whose buffer can take the result of the ufunc step `ins -> out`."""
        want = self.plan.array_slots.get(out)
        if want is None or not want[1]:
            return None   # a ufunc of 0-d operands returns a NumPy scalar: no buffer to reuse
        for s in ins:
            if s in self.fresh and self.uses.get(s) == 1 and \
                    self.plan.array_slots.get(s) == want is not None:
                return s
        return None

    def _while(self, step, depth):
        ins, outs = step.ins, step.outs
        cond_steps, cond_args, cond_yield, body_steps, body_args, body_yields = step.attrs
        for args in (cond_args, body_args):   # the loop's state lives in its result variables
            for a, o in zip(args, outs):
                self.names[a] = self.name(o)
        if outs:
            self._emit(depth, f"{self._names(outs)}, = {self._names(ins)},", step)
        self._emit(depth, "while True:", step)
        self._block(cond_steps, (cond_yield,), depth + 1)
        self._emit(depth + 1, f"if not {self.name(cond_yield)}:", step)
        self._emit(depth + 2, "break")
        self._block(body_steps, body_yields, depth + 1, outs=outs)


def _is_literal(value) -> bool:
    """A value whose repr is itself (no float: NaN and inf have none)."""
    if type(value) is tuple:
        return all(_is_literal(v) for v in value)
    return type(value) in _LITERAL_TYPES


def _defined(step):
    kind, outs = step.kind, step.outs
    if kind == ONE:
        return (outs,)
    return outs if kind != NONE else ()


def _uses(step):
    """Slots a step reads, including those its regions read from above."""
    kind, ins, attrs = step.kind, step.ins, step.attrs
    used = set(ins)
    if kind in (COND, CASE):
        for steps, yields in attrs:
            used.update(yields)
            for s in steps:
                used.update(_uses(s))
    elif kind == WHILE:
        used.add(attrs.cond_yield)
        used.update(attrs.body_yields)
        for s in itertools.chain(attrs.cond_steps, attrs.body_steps):
            used.update(_uses(s))
    return used


def _use_counts(steps) -> dict:
    """slot -> how many times a step reads it (regions and yields included)."""
    counts: dict = {}
    for step in walk_steps(steps):
        kind, attrs = step.kind, step.attrs
        read = list(step.ins)
        if kind in (COND, CASE):
            read += [y for _, yields in attrs for y in yields]
        elif kind == WHILE:
            read += [attrs.cond_yield, *attrs.body_yields]
        for s in read:
            counts[s] = counts.get(s, 0) + 1
    return counts


def _last_uses(steps) -> dict:
    last = {}
    for i, step in enumerate(steps):
        for s in _uses(step):
            last[s] = i
    return last
