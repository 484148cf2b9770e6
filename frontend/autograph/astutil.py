"""Small AST builders shared by the conversion passes.

Every node the converter creates is marked `_ag_gen = True` (the call-conversion pass leaves
those calls alone) and gets the source location of the user statement it stands for, so the
compiled code reports the user's own lines.
"""
from __future__ import annotations

import ast

AG = "ag__"


class Namer:
    """Fresh names that collide with nothing the user's function mentions."""

    def __init__(self, func):
        self.used = {n.id for n in ast.walk(func) if isinstance(n, ast.Name)}
        self.used |= {n.arg for n in ast.walk(func) if isinstance(n, ast.arg)}
        self.used |= {n.name for n in ast.walk(func)
                      if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        self.generated: set = set()
        self.guarded: set = set()      # names that may hold `Undefined` somewhere

    def new(self, base: str) -> str:
        name, i = base, 0
        while name in self.used:
            i += 1
            name = f"{base}_{i}"
        self.used.add(name)
        self.generated.add(name)
        return name


def header_location(node):
    """(lineno, col, end_lineno, end_col) of a compound statement's first line."""
    end = node.col_offset + 1
    for part in ("test", "iter", "value"):
        e = getattr(node, part, None)
        if isinstance(e, ast.AST) and getattr(e, "end_lineno", None) == node.lineno:
            end = e.end_col_offset
            break
    else:
        if getattr(node, "end_lineno", None) == node.lineno:
            end = node.end_col_offset
    return node.lineno, node.col_offset, node.lineno, end


def locate(tree, loc):
    """Give `loc` to every node of `tree` that has no location yet; mark them generated."""
    lineno, col, end_lineno, end_col = loc
    for n in ast.walk(tree):
        if "lineno" in n._attributes and getattr(n, "lineno", None) is None:
            n.lineno, n.col_offset, n.end_lineno, n.end_col_offset = \
                lineno, col, end_lineno, end_col
            n._ag_gen = True
    return tree


def name(id_, store=False):
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def ag_attr(attr):
    n = ast.Attribute(value=name(AG), attr=attr, ctx=ast.Load())
    n._ag_gen = True
    return n


def ag_call(attr, *args, keywords=()):
    c = ast.Call(func=ag_attr(attr), args=list(args), keywords=list(keywords))
    c._ag_gen = True
    return c


def const(v):
    return ast.Constant(value=v)


def assign(target: str, value):
    return ast.Assign(targets=[name(target, store=True)], value=value)


def not_(expr):
    return ast.UnaryOp(op=ast.Not(), operand=expr)


def and_(*exprs):
    exprs = [e for e in exprs if e is not None]
    if not exprs:
        return None
    return exprs[0] if len(exprs) == 1 else ast.BoolOp(op=ast.And(), values=exprs)


def func_def(fname, params, body):
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    fn = ast.FunctionDef(name=fname, args=args, body=body or [ast.Pass()],
                         decorator_list=[], returns=None)
    if "type_params" in ast.FunctionDef._fields:
        fn.type_params = []
    return fn


def lambda_(body):
    args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])
    lam = ast.Lambda(args=args, body=body)
    lam._ag_gen = True
    return lam


def tuple_(elts, store=False):
    return ast.Tuple(elts=list(elts), ctx=ast.Store() if store else ast.Load())
