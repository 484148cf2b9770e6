"""Python side effects inside code that may be staged.

A staged branch or loop body runs once, while tracing: a Python side effect in it (a
`print` that is not converted, appending to a list that is not staged, writing a global or an
attribute) happens once at trace time instead of once per step at run time. The converter
collects such sites statically per `if`/`while`/`for` (`sites`); the runtime warns about them
only when that statement is actually staged (its condition or iterable is a tensor), once per
site and trace. Functions called from a staged region that AutoGraph does not convert are
checked too (`check_unconverted_call`): their bytecode shows `print` or global writes.
"""
from __future__ import annotations

import ast
import dis
import warnings

from . import analysis as A
from .trace_state import probing
from .errors import AutoGraphWarning

_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "add",
             "setdefault", "popitem", "discard", "sort", "reverse"}


def _root_name(expr):
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def sites(stmts, local_names: set, glob: set, nonloc: set, staged_appends: bool) -> tuple:
    """(kind, text, lineno) for each Python side effect in `stmts` that escapes them.

    An object is outside `stmts` when its root name is not (re)bound inside them. Appends to a
    local list name are staged (loops) or merged (conds), so they are not reported when
    `staged_appends`."""
    inner = A.assigned_names(stmts) | A.subscript_bases(stmts, local_names)
    out = []
    for s in stmts:
        for n in A.walk_scope(s):
            if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                if getattr(n, "_ag_list_append", None):
                    continue
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                for t in targets:
                    for leaf in ast.walk(t):
                        if isinstance(leaf, ast.Name) and isinstance(leaf.ctx, ast.Store):
                            if leaf.id in glob:
                                out.append(("global", leaf.id, n.lineno))
                            elif leaf.id in nonloc:
                                out.append(("nonlocal", leaf.id, n.lineno))
                    if isinstance(t, (ast.Attribute, ast.Subscript)):
                        root = _root_name(t)
                        if root is not None and (root not in inner or root in glob):
                            out.append(("setattr" if isinstance(t, ast.Attribute) else
                                        "setitem", ast.unparse(t), n.lineno))
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                    n.func.attr in _MUTATORS and not getattr(n, "_ag_gen", False):
                obj = n.func.value
                root = _root_name(obj)
                if root is None or root in inner and root not in glob:
                    continue
                if (staged_appends and n.func.attr == "append" and isinstance(obj, ast.Name)
                        and obj.id in local_names):
                    continue
                out.append(("append" if n.func.attr == "append" else "mutate",
                            f"{ast.unparse(obj)}.{n.func.attr}(...)", n.lineno))
    return tuple(sorted(set(out), key=lambda s: (s[2], s[1])))


_ADVICE = {
    "global": ("writes the global '{t}'", "use a tf.Variable for state that changes per step"),
    "nonlocal": ("writes the enclosing function's variable '{t}'",
                 "use a tf.Variable, or return the value"),
    "setattr": ("sets `{t}`", "return the value, or keep it in a tf.Variable"),
    "setitem": ("writes `{t}`", "return the value, or keep it in a tf.Variable"),
    "append": ("appends with `{t}` to a Python list that is not staged",
               "append to a local list variable (AutoGraph stages those as tensor lists) or "
               "use tf.TensorArray"),
    "mutate": ("calls `{t}` on a Python object from outside",
               "keep the values in local tensors and return them"),
    "print": ("calls {t}, which uses Python `print` and is not converted",
              "use tf.print, or let AutoGraph convert the function"),
    "callee_global": ("calls {t}, which writes a global and is not converted",
                      "use a tf.Variable"),
}


def warn(sites_, filename: str, construct: str, ctx):
    """Warn once per site and trace that these side effects run once, at trace time."""
    if ctx is None or probing():
        return
    for kind, text, lineno in sites_:
        key = (filename, lineno, kind, text)
        if key in ctx.warned:
            continue
        ctx.warned.add(key)
        what, advice = _ADVICE[kind]
        warnings.warn_explicit(
            f"AutoGraph: line {lineno} {what.format(t=text)} inside a {construct}. That "
            f"region is staged (its condition is a tensor), so this Python side effect runs "
            f"once while tracing, not every time the function runs; {advice}.",
            AutoGraphWarning, filename, lineno, registry={})


def check_unconverted_call(fn, ctx, construct: str):
    """A function AutoGraph does not convert, called inside a staged region: warn if its
    code uses Python `print` or writes a global (both would happen once, at trace time)."""
    code = getattr(fn, "__code__", None)
    if code is None or ctx is None or probing():
        return
    found = []
    if "print" in code.co_names:
        found.append("print")
    if any(i.opname == "STORE_GLOBAL" for i in dis.get_instructions(code)):
        found.append("callee_global")
    if not found:
        return
    import sys
    frame = sys._getframe(2)
    from .errors import is_user_file
    while frame is not None and not is_user_file(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return
    label = f"'{getattr(fn, '__qualname__', fn)}'"
    warn([(k, label, frame.f_lineno) for k in found], frame.f_code.co_filename, construct,
         ctx)
