"""Static facts about a function's AST that the control-flow conversion needs.

- which names a block binds (`assigned_names`) and reads (`read_names`), within one scope;
- liveness: each statement gets `_ag_live_out` (names whose current value may be read later),
  loops also `_ag_live_header` (names live where the loop decides to run another iteration).

Only names matter: attributes and subscripts are mutations of objects, not of variables.
Over-approximating liveness is safe (a dead variable carried through a loop costs a loop
value); under-approximating would drop a value that is read later, so when in doubt a name is
live. Names read inside nested functions and lambdas are live everywhere, since those run at
unknown times.
"""
from __future__ import annotations

import ast

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
LOOPS = (ast.While, ast.For)


def _targets(node, out: set):
    """Names bound by an assignment target (tuples, starred; not attributes/subscripts)."""
    if isinstance(node, ast.Name):
        out.add(node.id)
    elif isinstance(node, (ast.Tuple, ast.List)):
        for e in node.elts:
            _targets(e, out)
    elif isinstance(node, ast.Starred):
        _targets(node.value, out)


def target_names(node) -> set:
    out: set = set()
    _targets(node, out)
    return out


class _Binder(ast.NodeVisitor):
    def __init__(self):
        self.names: set = set()

    def visit_Name(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.names.add(node.id)

    def visit_FunctionDef(self, node):
        self.names.add(node.name)
        for d in node.decorator_list:
            self.visit(d)
        self.visit(node.args)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_arguments(self, node):
        for d in node.defaults + [d for d in node.kw_defaults if d is not None]:
            self.visit(d)

    def visit_ClassDef(self, node):
        self.names.add(node.name)
        for d in node.decorator_list + node.bases:
            self.visit(d)

    def visit_Lambda(self, node):
        self.visit(node.args)

    def _comp(self, node):
        for g in node.generators:   # only the first iterable is evaluated in this scope
            self.visit(g.iter)
            break

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comp

    def visit_Import(self, node):
        for a in node.names:
            self.names.add((a.asname or a.name).split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_ExceptHandler(self, node):
        if node.name:
            self.names.add(node.name)
        self.generic_visit(node)

    def visit_MatchAs(self, node):
        if node.name:
            self.names.add(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node):
        if node.name:
            self.names.add(node.name)

    def visit_MatchMapping(self, node):
        if node.rest:
            self.names.add(node.rest)
        self.generic_visit(node)


def assigned_names(nodes) -> set:
    """Names bound in this scope by `nodes` (a node or a list), nested scopes excluded."""
    b = _Binder()
    for n in (nodes if isinstance(nodes, list) else [nodes]):
        b.visit(n)
    return b.names


def deleted_names(stmts) -> set:
    """Names `del`eted by `stmts` (this scope)."""
    return {n.id for s in stmts for n in walk_scope(s)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Del)}


def subscript_bases(stmts, local_names) -> set:
    """Local names whose items `stmts` assign (`d[k] = v`, `d[i][j] += v`, `del d[k]`): the
    container changes, so a staged region carries it like a reassigned variable."""
    out = set()
    for s in stmts:
        for n in walk_scope(s):
            if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                targets = n.targets if isinstance(n, (ast.Assign, ast.Delete)) else [n.target]
                for t in targets:
                    for leaf in ast.walk(t):
                        if isinstance(leaf, ast.Subscript) and isinstance(leaf.ctx,
                                                                          (ast.Store, ast.Del)):
                            root = leaf.value
                            while isinstance(root, ast.Subscript):
                                root = root.value
                            if isinstance(root, ast.Name) and root.id in local_names:
                                out.add(root.id)
    return out


class _Reader(ast.NodeVisitor):
    def __init__(self):
        self.names: set = set()

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            self.names.add(node.id)


def read_names(nodes) -> set:
    """Every name loaded anywhere in `nodes`, nested lambdas and comprehensions included."""
    r = _Reader()
    for n in (nodes if isinstance(nodes, list) else [nodes]):
        if n is not None:
            r.visit(n)
    return r.names


def nested_scope_reads(func) -> set:
    """Names read inside functions, lambdas and classes nested in `func`."""
    out: set = set()
    for node in ast.walk(func):
        if node is not func and isinstance(node, _SCOPES):
            out |= read_names(node)
    return out


def declarations(func) -> tuple:
    """(global names, nonlocal names) declared directly in `func`'s scope."""
    glob, nonloc = set(), set()

    def walk(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Global):
                glob.update(child.names)
            elif isinstance(child, ast.Nonlocal):
                nonloc.update(child.names)
            elif not isinstance(child, _SCOPES):
                walk(child)
    walk(func)
    return glob, nonloc


def walk_scope(node):
    """ast.walk that does not enter nested functions, lambdas or classes."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        for c in ast.iter_child_nodes(n):
            if not isinstance(c, _SCOPES):
                todo.append(c)


# --- liveness ------------------------------------------------------------------------------
def annotate_liveness(func, always: set):
    """Set `_ag_live_out` on every statement of `func` (and `_ag_live_header` on loops)."""
    _block(func.body, set(always), frozenset(always))


def _block(stmts, out: set, always) -> set:
    live = set(out)
    for s in reversed(stmts):
        live = _stmt(s, live, always) | always
    return live


def _expr_uses(*exprs) -> set:
    return read_names([e for e in exprs if e is not None])


def _stmt(s, out: set, always) -> set:
    s._ag_live_out = set(out)
    if isinstance(s, ast.If):
        return _expr_uses(s.test) | _block(s.body, out, always) | _block(s.orelse, out, always)
    if isinstance(s, ast.While):
        else_in = _block(s.orelse, out, always)
        header = out | else_in | _expr_uses(s.test)
        for _ in range(50):
            body_in = _block(s.body, header | out, always)
            new = header | body_in
            if new == header:
                break
            header = new
        s._ag_live_header = set(header)
        return header
    if isinstance(s, ast.For):
        else_in = _block(s.orelse, out, always)
        tnames = target_names(s.target)
        # Extra tests (`not break_`) added by jumps.py are read before every iteration.
        header = out | else_in | read_names(list(getattr(s, "_ag_extra_tests", [])))
        for _ in range(50):
            body_in = _block(s.body, header | out, always)
            new = header | (body_in - tnames) | _expr_uses(s.target) - tnames
            if new == header:
                break
            header = new
        s._ag_live_header = set(header)
        return header | _expr_uses(s.iter)
    if isinstance(s, (ast.With, ast.AsyncWith)):
        bound: set = set()
        for item in s.items:
            if item.optional_vars is not None:
                _targets(item.optional_vars, bound)
        return _expr_uses(*[i.context_expr for i in s.items]) | \
            (_block(s.body, out, always) - bound)
    if isinstance(s, (ast.Try, getattr(ast, "TryStar", ast.Try))):
        fin = _block(s.finalbody, out, always)
        els = _block(s.orelse, fin, always)
        handlers: set = set()
        for h in s.handlers:
            handlers |= _expr_uses(h.type) | (_block(h.body, fin, always) - {h.name})
        return _block(s.body, els | handlers, always) | handlers
    if isinstance(s, ast.Match):
        live = _expr_uses(s.subject)
        for c in s.cases:
            live |= _expr_uses(c.guard) | _block(c.body, out, always)
        return live | out
    if isinstance(s, (ast.Return, ast.Raise)):
        return _expr_uses(*[c for c in ast.iter_child_nodes(s)])
    if isinstance(s, (ast.Break, ast.Continue, ast.Pass, ast.Global, ast.Nonlocal)):
        return set(out)
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        outer_exprs = list(s.decorator_list)
        if isinstance(s, ast.ClassDef):
            outer_exprs += s.bases + [k.value for k in s.keywords]
        else:
            outer_exprs += s.args.defaults + [d for d in s.args.kw_defaults if d is not None]
        return (out - {s.name}) | _expr_uses(*outer_exprs)
    if isinstance(s, (ast.Assign, ast.AnnAssign)):
        targets = s.targets if isinstance(s, ast.Assign) else [s.target]
        bound: set = set()
        for t in targets:
            _targets(t, bound)
        # `a[i] = v` and `a.b = v` read `a` (and `i`).
        reads = set()
        for t in targets:
            reads |= read_names(t)
        return (out - bound) | reads | _expr_uses(s.value)
    if isinstance(s, ast.AugAssign):
        return out | read_names(s.target) | target_names(s.target) | _expr_uses(s.value)
    if isinstance(s, ast.Delete):
        return (out - assigned_names(s)) | read_names(s)
    if isinstance(s, (ast.Import, ast.ImportFrom)):
        return out - assigned_names(s)
    return out | read_names(s)


# --- whole-function facts -----------------------------------------------------------------
def always_returns(stmts) -> bool:
    """True when every path through `stmts` ends in `return` or `raise`."""
    for s in stmts:
        if isinstance(s, (ast.Return, ast.Raise)):
            return True
        if isinstance(s, ast.If) and always_returns(s.body) and always_returns(s.orelse):
            return True
        if isinstance(s, (ast.With, ast.AsyncWith)) and always_returns(s.body):
            return True
        if isinstance(s, ast.Try) and (always_returns(s.finalbody) or (
                always_returns(s.body) and all(always_returns(h.body) for h in s.handlers))):
            return True
        if isinstance(s, ast.While) and isinstance(s.test, ast.Constant) and s.test.value \
                and not any(isinstance(n, ast.Break) for n in _loop_level(s.body)):
            return True
    return False


def _loop_level(stmts):
    """Nodes of `stmts` outside nested loops and scopes (where break/continue bind)."""
    todo = list(stmts)
    while todo:
        n = todo.pop()
        yield n
        for c in ast.iter_child_nodes(n):
            if not isinstance(c, _SCOPES + LOOPS):
                todo.append(c)


def loop_level(stmts):
    return _loop_level(stmts)


def is_generator(func) -> bool:
    return any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await))
               for n in walk_scope(func) if n is not func) or \
        isinstance(func, ast.AsyncFunctionDef)
