"""The conversion proper: statements into calls of `ag__` runtime operators.

For each `if`/`while`/`for` the converter emits small functions over the enclosing variables:

    def if_body():                 # the branch, writing through `nonlocal`
        nonlocal y
        y = x * 2
    def else_body(): ...
    def get_state():               # the variables live after the statement
        return (y,)
    def set_state(vars_):
        nonlocal y
        (y,) = vars_
    ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state, ('y',))

A Python condition just calls one branch; a tensor one traces both and joins them in a `cond`
(operators.py). Variables the statement modifies that may not be bound yet are first bound
to `ag__.Undefined(name)`, so `nonlocal` always has a binding and `get_state` can report
"undefined in this branch". Loops are the same with `loop_body`/`loop_test` (`while`) or
`loop_body(itr)`/`extra_test` (`for`); the loop variables are the modified ones live at the
loop head, the others stay local to `loop_body`.

Then expressions: calls become `ag__.converted_call(f, args, kwargs)` (user functions are
converted on first call), `and`/`or`/`not` become lazy `ag__.and_/or_/not_`, `a if c else b`
becomes `ag__.if_exp`, and `assert` becomes `ag__.assert_stmt`.
"""
from __future__ import annotations

import ast

from . import analysis as A
from . import lint
from .astutil import (ag_call, assign, const, func_def, header_location, lambda_, locate, name,
                      tuple_)
from .jumps import lower_loops, lower_return

_SCOPE_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Calls that must run in the caller's own frame, or that can never need conversion.
_NO_WRAP = {"super", "locals", "globals", "vars", "eval", "exec", "dir", "isinstance",
            "issubclass", "hasattr", "getattr", "setattr", "id", "type", "callable"}
_LOOP_OPTIONS = ("shape_invariants", "maximum_iterations", "parallel_iterations",
                 "swap_memory")


class _Scope:
    """What is bound where, while converting one function or generated helper body."""

    def __init__(self, must, bound, glob, nonloc, local_names):
        self.must = set(must)        # names certainly bound here (maybe to Undefined)
        self.bound = set(bound)      # names assigned earlier here on some path
        self.glob = glob
        self.nonloc = nonloc
        self.local_names = local_names

    def child(self, extra=(), drop=()):
        return _Scope((self.must - set(drop)) | set(extra), (self.bound - set(drop)) | set(extra),
                      self.glob, self.nonloc, self.local_names)


class FunctionConverter:
    """Converts one user function (and, recursively, the functions defined inside it)."""

    def __init__(self, namer):
        self.namer = namer

    # --- entry ------------------------------------------------------------------------------
    def convert(self, func):
        if A.is_generator(func):
            func._ag_unconverted = True
            return func
        func.body = lower_loops(func.body, self.namer)
        lower_return(func, self.namer)
        glob, nonloc = A.declarations(func)
        params = {a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs}
        for a in (func.args.vararg, func.args.kwarg):
            if a is not None:
                params.add(a.arg)
        local_names = (params | A.assigned_names(func.body)) - glob - nonloc
        _rewrite_appends(func, local_names)
        always = A.nested_scope_reads(func) | glob | nonloc
        A.annotate_liveness(func, always)
        scope = _Scope(params, params, glob, nonloc, local_names)
        func.body = self.block(func.body, scope)
        return func

    # --- statements -----------------------------------------------------------------------
    def block(self, stmts, scope: _Scope):
        out = []
        for s in stmts:
            names = A.assigned_names(s)
            if isinstance(s, ast.If):
                out.extend(self.if_stmt(s, scope))
                scope.must |= names
            elif isinstance(s, A.LOOPS):
                out.extend(self.loop(s, scope))
            elif isinstance(s, _SCOPE_DEFS):
                FunctionConverter(self.namer).convert(s)
                out.append(s)
                scope.must |= names
            elif isinstance(s, (ast.With, ast.AsyncWith)):
                s.body = self.block(s.body, scope)
                out.append(s)
                scope.must |= names
            elif isinstance(s, ast.Try):
                s.body = self.block(s.body, scope.child())
                for h in s.handlers:
                    h.body = self.block(h.body, scope.child({h.name} if h.name else ()))
                s.orelse = self.block(s.orelse, scope.child())
                s.finalbody = self.block(s.finalbody, scope.child())
                out.append(s)
            elif isinstance(s, ast.Match):
                for c in s.cases:
                    c.body = self.block(c.body, scope.child())
                out.append(s)
            else:
                out.append(s)
                scope.must |= names
            scope.bound |= names
        return out

    def _guards(self, names, scope: _Scope, loc):
        """Bind each name that may be unbound: to Undefined, keeping a value it may have."""
        out = []
        for n in sorted(names):
            if n in scope.must:
                continue
            undefined = assign(n, ag_call("Undefined", const(n)))
            if n in scope.bound:
                out.append(ast.Try(body=[ast.Expr(value=name(n))],
                                   handlers=[ast.ExceptHandler(type=name("NameError"), name=None,
                                                               body=[undefined])],
                                   orelse=[], finalbody=[]))
            else:
                out.append(undefined)
            scope.must.add(n)
            scope.bound.add(n)
            self.namer.guarded.add(n)
        return [locate(g, loc) for g in out]

    def _decls(self, names, scope: _Scope):
        """`nonlocal`/`global` statements for a helper that assigns `names`."""
        out = []
        glob = sorted(n for n in names if n in scope.glob)
        nonloc = sorted(n for n in names if n not in scope.glob)
        if glob:
            out.append(ast.Global(names=glob))
        if nonloc:
            out.append(ast.Nonlocal(names=nonloc))
        return out

    def _state_helpers(self, state, scope):
        get_name, set_name = self.namer.new("get_state"), self.namer.new("set_state")
        get_fn = func_def(get_name, [], [ast.Return(value=tuple_([name(n) for n in state]))])
        if state:
            vars_ = self.namer.new("vars_")
            set_body = self._decls(state, scope) + [
                ast.Assign(targets=[tuple_([name(n, store=True) for n in state], store=True)],
                           value=name(vars_))]
        else:
            vars_ = self.namer.new("vars_")
            set_body = [ast.Pass()]
        set_fn = func_def(set_name, [vars_], set_body)
        return get_fn, set_fn, get_name, set_name

    def if_stmt(self, s, scope: _Scope):
        loc = header_location(s)
        modified = A.assigned_names(s.body + s.orelse) | \
            A.subscript_bases(s.body + s.orelse, scope.local_names)
        writable = modified - scope.nonloc - scope.glob
        live = s._ag_live_out
        # A staged `if` traces both branches: every variable a branch writes is carried, so
        # the other branch starts from the value before the `if` (`dead`: not joined after).
        deleted = A.deleted_names(s.body + s.orelse)
        state = sorted(n for n in writable if n in live or n not in deleted)
        dead = tuple(n for n in state if n not in live)
        sites = lint.sites(s.body + s.orelse, scope.local_names, scope.glob, scope.nonloc, False)
        guards = self._guards(writable, scope, loc)
        inner = scope.child(modified)
        body = self.block(s.body, inner)
        orelse = self.block(s.orelse, scope.child(modified))
        body_name, else_name = self.namer.new("if_body"), self.namer.new("else_body")
        decls = self._decls(modified, scope)
        body_fn = func_def(body_name, [], decls + body)
        else_fn = func_def(else_name, [], self._decls(modified, scope) + orelse)
        get_fn, set_fn, get_name, set_name = self._state_helpers(state, scope)
        args = [s.test, name(body_name), name(else_name), name(get_name), name(set_name),
                tuple_([const(n) for n in state])]
        opts = {"lint": sites} if sites else {}
        if dead:
            opts["dead"] = dead
        if opts:
            args.append(_opts(opts))
        call = ast.Expr(value=ag_call("if_stmt", *args))
        return guards + [locate(n, loc) for n in (body_fn, else_fn, get_fn, set_fn, call)]

    def loop(self, s, scope: _Scope):
        loc = header_location(s)
        is_for = isinstance(s, ast.For)
        targets = A.target_names(s.target) if is_for else set()
        # `while (v := f()) ...`: the test runs in its own helper, which must write `v` out.
        walrus = set() if is_for else {n.target.id for n in ast.walk(s.test)
                                       if isinstance(n, ast.NamedExpr)}
        modified = A.assigned_names(s.body) | targets | walrus | \
            A.subscript_bases(s.body, scope.local_names)
        writable = modified - scope.nonloc - scope.glob
        state = sorted(n for n in writable if n in s._ag_live_header or n in walrus)
        loop_locals = writable - set(state)
        accumulators = sorted({n._ag_list_append for st in s.body for n in A.walk_scope(st)
                               if getattr(n, "_ag_list_append", None)} & set(state))
        options = _take_loop_options(s)
        sites = lint.sites(s.body, scope.local_names, scope.glob, scope.nonloc, True)
        guards = self._guards(state, scope, loc)
        inner = scope.child(set(state) | targets, drop=loop_locals - set(state))
        body = self.block(s.body, inner)
        decl_names = set(state) | (modified & (scope.glob | scope.nonloc))
        body_name = self.namer.new("loop_body")
        opts = dict(options)
        if accumulators:
            opts["accumulators"] = tuple(accumulators)
        if walrus:
            opts["test_assigns"] = tuple(sorted(walrus))
        if sites:
            opts["lint"] = sites
        if getattr(s, "_ag_jumps", ()):
            opts["jumps"] = tuple(sorted(set(s._ag_jumps)))
        if getattr(s, "_ag_has_else", False):
            opts["has_else"] = True
        get_fn, set_fn, get_name, set_name = self._state_helpers(state, scope)
        names = tuple_([const(n) for n in state])
        if is_for:
            itr = self.namer.new("itr")
            bind = ast.Assign(targets=[s.target], value=name(itr))
            body_fn = func_def(body_name, [itr], self._decls(decl_names, scope) + [bind] + body)
            extra = getattr(s, "_ag_extra_tests", [])
            helpers = [body_fn, get_fn, set_fn]
            if extra:
                extra_name = self.namer.new("extra_test")
                test = extra[0] if len(extra) == 1 else ast.BoolOp(op=ast.And(), values=extra)
                helpers.insert(0, func_def(extra_name, [], [ast.Return(value=test)]))
                extra_arg = name(extra_name)
            else:
                extra_arg = const(None)
            call = ag_call("for_stmt", s.iter, extra_arg, name(body_name), name(get_name),
                           name(set_name), names, _opts(opts))
        else:
            test_name = self.namer.new("loop_test")
            test_fn = func_def(test_name, [], self._decls(walrus, scope) +
                               [ast.Return(value=s.test)])
            body_fn = func_def(body_name, [], self._decls(decl_names, scope) + body)
            helpers = [test_fn, body_fn, get_fn, set_fn]
            call = ag_call("while_stmt", name(test_name), name(body_name), name(get_name),
                           name(set_name), names, _opts(opts))
        scope.must |= set(state)
        scope.bound |= set(state)
        return guards + [locate(n, loc) for n in helpers + [ast.Expr(value=call)]]


def _opts(d):
    keys, values = [], []
    for k, v in d.items():
        keys.append(const(k))
        values.append(v if isinstance(v, ast.AST) else _literal(v))
    return ast.Dict(keys=keys, values=values)


def _literal(v):
    if isinstance(v, tuple):
        return tuple_([_literal(x) for x in v])
    return const(v)


def _take_loop_options(loop):
    """Remove a leading `tf.autograph.experimental.set_loop_options(...)` from the loop body;
    its keywords become the loop's options (evaluated before the loop, as in TF)."""
    for i, s in enumerate(loop.body):
        if getattr(s, "_ag_gen", False):
            continue
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
            f = s.value.func
            fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            if fname == "set_loop_options":
                del loop.body[i]
                if not loop.body:
                    loop.body.append(ast.Pass())
                return {k.arg: k.value for k in s.value.keywords if k.arg in _LOOP_OPTIONS}
        break
    return {}


def _rewrite_appends(func, local_names):
    """`l.append(x)` on a local name becomes `l = ag__.list_append(l, x)`: the list becomes an
    assigned (so loop-carried) variable, which a staged loop can turn into a tensor list."""
    class T(ast.NodeTransformer):
        def visit_Expr(self, node):
            c = node.value
            if (isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
                    and c.func.attr == "append" and isinstance(c.func.value, ast.Name)
                    and c.func.value.id in local_names and len(c.args) == 1
                    and not c.keywords and not isinstance(c.args[0], ast.Starred)):
                lst = c.func.value.id
                new = ast.Assign(targets=[name(lst, store=True)],
                                 value=ag_call("list_append", name(lst), c.args[0], const(lst)))
                new._ag_list_append = lst
                return ast.copy_location(locate(new, (node.lineno, node.col_offset,
                                                      node.end_lineno, node.end_col_offset)),
                                         node)
            return node

        def visit_FunctionDef(self, node):
            return node if node is not func else self.generic_visit(node)

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_Lambda(self, node):
            return node

        def visit_ClassDef(self, node):
            return node
    T().visit(func)


# --- expressions ----------------------------------------------------------------------------
class ExpressionConverter(ast.NodeTransformer):
    """Calls, boolean operators, conditional expressions and asserts (see module doc)."""

    def __init__(self, first_params: dict, has_class_cell: bool, maybe_undefined=()):
        self._first_params = first_params    # user FunctionDef -> its first parameter name
        self._stack: list = []
        self._has_class_cell = has_class_cell
        self._maybe_undefined = set(maybe_undefined)

    def visit_Name(self, node):
        # A user read of a variable that may hold Undefined: raise as Python would.
        if isinstance(node.ctx, ast.Load) and node.id in self._maybe_undefined and \
                not getattr(node, "_ag_gen", False):
            return ast.copy_location(ag_call("ld", node), node)
        return node

    def visit_FunctionDef(self, node):
        if getattr(node, "_ag_unconverted", False):
            return node
        pushed = node in self._first_params
        if pushed:
            self._stack.append(self._first_params[node])
        self.generic_visit(node)
        if pushed:
            self._stack.pop()
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if getattr(node, "_ag_gen", False):
            return node
        f = node.func
        if isinstance(f, ast.Name) and f.id == "super" and not node.args and \
                self._has_class_cell and self._stack and self._stack[-1]:
            node.args = [name("__class__"), name(self._stack[-1])]
            return node
        if isinstance(f, ast.Name) and f.id in _NO_WRAP:
            return node
        args = tuple_(node.args)
        if node.keywords:
            kw = ast.Dict(keys=[const(k.arg) if k.arg is not None else None
                                for k in node.keywords],
                          values=[k.value for k in node.keywords])
        else:
            kw = const(None)
        new = ag_call("converted_call", f, args, kw)
        return ast.copy_location(new, node)

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        op = "and_" if isinstance(node.op, ast.And) else "or_"
        values = node.values
        expr = values[-1]
        for v in reversed(values[:-1]):
            expr = ag_call(op, lambda_(v), lambda_(expr))
        return locate(ast.copy_location(expr, node), _loc(node))

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return locate(ast.copy_location(ag_call("not_", node.operand), node), _loc(node))
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        text = ast.unparse(node.test)
        new = ag_call("if_exp", node.test, lambda_(node.body), lambda_(node.orelse), const(text))
        return locate(ast.copy_location(new, node), _loc(node))

    def visit_Assert(self, node):
        self.generic_visit(node)
        msg = lambda_(node.msg) if node.msg is not None else const(None)
        new = ast.Expr(value=ag_call("assert_stmt", node.test, msg))
        return locate(ast.copy_location(new, node), _loc(node))


def _loc(node):
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
