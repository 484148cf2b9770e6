"""`continue`, `break` and `return` become flag variables, so every block falls through.

A staged branch or loop body is a function traced once; it cannot jump. So:

- `continue` sets `continue_ = True` (reset at the top of each iteration) and the statements
  after it run under `if not continue_:`;
- `break` sets `break_ = True`, the rest of the body is guarded the same way, and the loop
  runs only while `not break_` (a `for` loop gets it as an extra test); a loop `else:` runs
  under `if not break_:`;
- `return x` sets `do_return = True; retval_ = x`, the rest is guarded by `not do_return`,
  loops that contain it also stop on `do_return`, and the function ends in
  `return ag__.ret(retval_)`.

When one branch of an `if` always exits, the statements that follow move into the other
branch instead of being guarded (fewer conds, and a `return x` / `return y` pair of branches
stays a single cond).
"""
from __future__ import annotations

import ast

from . import analysis as A
from .astutil import ag_call, assign, const, header_location, locate, name, not_

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


class _Exit:
    """One kind of jump being lowered: which statements, what replaces them, its flag."""

    def __init__(self, kind, flag, replace, into_loops):
        self.kind = kind
        self.flag = flag
        self.replace = replace
        self.into_loops = into_loops

    def contains(self, s) -> bool:
        if isinstance(s, _SCOPES) or (not self.into_loops and isinstance(s, A.LOOPS)):
            return False
        nodes = A.walk_scope(s) if self.into_loops else A.loop_level([s])
        return any(isinstance(n, self.kind) for n in nodes)

    def always(self, stmts) -> bool:
        """Every path through `stmts` reaches this jump (decided before rewriting)."""
        for s in stmts:
            if isinstance(s, self.kind):
                return True
            if isinstance(s, ast.If) and self.always(s.body) and self.always(s.orelse):
                return True
            if isinstance(s, (ast.With, ast.AsyncWith)) and self.always(s.body):
                return True
        return False


def _lower_block(stmts, ex: _Exit, moved_in=0):
    """(rewritten stmts, whether every path through them sets the flag). The last `moved_in`
    statements came from an enclosing block: as TF's, an `if` takes only the statements that
    follow it in its own block into its other branch, so a nested `if` whose one branch
    exits gets no other branch from an enclosing one (TF then refuses its one-sided return)."""
    out = []
    stmts = list(stmts)
    own_end = len(stmts) - moved_in
    i = 0
    while i < len(stmts):
        s = stmts[i]
        if isinstance(s, ex.kind):
            out.extend(locate(r, header_location(s)) for r in ex.replace(s))
            return out, True
        if not ex.contains(s):
            out.append(s)
            i += 1
            continue
        rest = stmts[i + 1:]
        own = len(rest) - (len(stmts) - own_end) if i < own_end else len(rest)
        done = False
        if isinstance(s, ast.If):
            b_all, o_all = ex.always(s.body), ex.always(s.orelse)
            b_moved = o_moved = 0
            if own and b_all and not o_all:
                s.orelse, rest, o_moved, own = s.orelse + rest[:own], rest[own:], own, 0
            elif own and o_all and not b_all:
                s.body, rest, b_moved, own = s.body + rest[:own], rest[own:], own, 0
            s.body, b_all = _lower_block(s.body, ex, b_moved)
            s.orelse, o_all = _lower_block(s.orelse, ex, o_moved)
            done = b_all and o_all
        elif isinstance(s, A.LOOPS):          # only `return` reaches into loops
            s.body, _ = _lower_block(s.body, ex)
            add_loop_test(s, not_(name(ex.flag)), "return")
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            s.body, done = _lower_block(s.body, ex)
        elif isinstance(s, ast.Try):
            s.body, _ = _lower_block(s.body, ex)
            for h in s.handlers:
                h.body, _ = _lower_block(h.body, ex)
            s.orelse, _ = _lower_block(s.orelse, ex)
            s.finalbody, _ = _lower_block(s.finalbody, ex)
        elif isinstance(s, ast.Match):
            for c in s.cases:
                c.body, _ = _lower_block(c.body, ex)
        out.append(s)
        if done:
            return out, True
        if rest:
            body, _ = _lower_block(rest, ex, len(rest) - own if own else 0)
            guard = ast.If(test=not_(name(ex.flag)), body=body, orelse=[])
            out.append(locate(guard, header_location(rest[0])))
        return out, False
    return out, False


def add_loop_test(loop, test, jump):
    """Make `loop` also stop when `test` is false (checked before each iteration); `jump`
    ("break" or "return") is the statement it implements, recorded for error messages."""
    loop._ag_jumps = (jump,) + getattr(loop, "_ag_jumps", ())
    if isinstance(loop, ast.While):
        loop.test = ast.BoolOp(op=ast.And(), values=[test, loop.test])
        locate(loop.test, header_location(loop))
    else:
        locate(test, header_location(loop))
        loop._ag_extra_tests = [test] + list(getattr(loop, "_ag_extra_tests", []))


# --- loops ----------------------------------------------------------------------------------
def lower_loops(stmts, namer):
    """Lower `continue`/`break` of every loop in `stmts` (this scope only), innermost first."""
    out = []
    for s in stmts:
        if isinstance(s, _SCOPES):
            out.append(s)
            continue
        for field in ("body", "orelse", "finalbody"):
            block = getattr(s, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                setattr(s, field, lower_loops(block, namer))
        for h in getattr(s, "handlers", []):
            h.body = lower_loops(h.body, namer)
        for c in getattr(s, "cases", []):
            c.body = lower_loops(c.body, namer)
        if isinstance(s, A.LOOPS):
            out.extend(_lower_loop(s, namer))
        else:
            out.append(s)
    return out


def _lower_loop(loop, namer):
    loc = header_location(loop)
    if any(isinstance(n, ast.Continue) for n in A.loop_level(loop.body)):
        flag = namer.new("continue_")
        ex = _Exit(ast.Continue, flag, lambda s: [assign(flag, const(True))], False)
        body, _ = _lower_block(loop.body, ex)
        loop.body = [locate(assign(flag, const(False)), loc)] + body
    pre, post = [], list(loop.orelse)
    if any(isinstance(n, ast.Break) for n in A.loop_level(loop.body)):
        flag = namer.new("break_")
        ex = _Exit(ast.Break, flag, lambda s: [assign(flag, const(True))], False)
        loop.body, _ = _lower_block(loop.body, ex)
        pre = [locate(assign(flag, const(False)), loc)]
        add_loop_test(loop, not_(name(flag)), "break")
        if post:
            post = [locate(ast.If(test=not_(name(flag)), body=post, orelse=[]), loc)]
    loop._ag_has_else = bool(loop.orelse)
    loop.orelse = []
    return pre + [loop] + post


# --- return ---------------------------------------------------------------------------------
def lower_return(func, namer) -> bool:
    """Lower the returns of `func` when any sits inside a compound statement."""
    nested = any(isinstance(n, ast.Return) for s in func.body if not isinstance(s, ast.Return)
                 for n in (A.walk_scope(s) if not isinstance(s, _SCOPES) else ()))
    if not nested:
        return False
    always = A.always_returns(func.body)
    do_return, retval = namer.new("do_return"), namer.new("retval_")

    def replace(s):
        # The value first: when evaluating it raises (into an `except`), no return happened.
        return [assign(retval, s.value if s.value is not None else const(None)),
                assign(do_return, const(True))]

    body, _ = _lower_block(func.body, _Exit(ast.Return, do_return, replace, True))
    loc = (func.lineno, func.col_offset, func.lineno, func.col_offset + 3)
    last = func.body[-1] if func.body else func
    end_loc = (last.end_lineno or last.lineno, last.col_offset, last.end_lineno or last.lineno,
               last.col_offset + 1)
    func.body = [locate(assign(do_return, const(False)), loc),
                 locate(assign(retval, ag_call("UndefinedReturnValue", const(always))), loc),
                 *body,
                 locate(ast.Return(value=ag_call("ret", name(retval))), end_loc)]
    return True
