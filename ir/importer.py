"""FuncGraph (plain `ir.graph.Graph`) -> `df` module, in one pass.

Built for speed (see the notes): ops are made with `Op.create(...)`, types come from a cache,
and no verification runs here (the pipeline verifies once at the end). Stateful nodes are
threaded by a `!df.token` in program order; a `df.cond`/`df.case`/`df.while` whose regions have
side effects takes the current token (captured by its regions) and returns the next.
"""
from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (FileLineColLoc, IntAttr, ModuleOp, NameLoc, StringAttr,
                                   UnknownLoc)
from xdsl.ir import Block, Region

from . import dtypes as D
from .dialect import (OP_CLASSES, TOKEN, CaseOp, CondOp, CreateTokenOp, WhileOp, YieldOp,
                      encode_attr, to_xdsl_type)
from .gc_pause import gc_paused
from .graph import Graph, Node

_MEMO_ELEMENTS = 16          # arrays up to this size are encoded once per distinct value
# Scalars whose equality is identity of encoding (not floats: 0.0 == -0.0; not tuples: (1,) ==
# (True,) but they encode to different element types).
_HASHABLE = (int, str, np.integer, np.bool_, D.DType)
_MISSING = object()


def location_parts(loc):
    """(label, file, line, column) of a location as the importer writes them (`NameLoc` of
    "<function>/<node>" around a `FileLineColLoc`; file, line and column None when the node
    has no source line); None for any other location."""
    if not isinstance(loc, NameLoc):
        return None
    child = loc.location
    if isinstance(child, FileLineColLoc):
        return loc.desc.data, child.filename.data, child.line.data, child.column.data
    return loc.desc.data, None, None, None


def describe_location(loc) -> str:
    """A location for an error text: `<function>/<node>, file:line`, the node alone when it
    has no source line."""
    parts = location_parts(loc)
    if parts is None:
        return "unknown location"
    label, file, line, _ = parts
    return f"{label}, {file}:{line}" if file else label


def _name_loc(desc: StringAttr, source) -> NameLoc:
    """`NameLoc(desc, source)` without its constraint checks: a NameLoc made by its
    constructor verifies its parameters (about 4.7 us, a node's most costly attribute, where
    this takes 0.6 us); the importer's are valid by construction (a StringAttr around a
    FileLineColLoc or UnknownLoc)."""
    loc = _new_attribute(NameLoc)
    _set_parameter(loc, "desc", desc)
    _set_parameter(loc, "location", source)
    return loc


_new_attribute = object.__new__
_set_parameter = object.__setattr__   # xDSL attributes are frozen dataclasses


def import_graph(graph: Graph, name: str | None = None) -> ModuleOp:
    """One `func.func @<name>` whose arguments are the graph's placeholders."""
    with gc_paused():
        return _import(graph, name)


def _import(graph: Graph, name: str | None) -> ModuleOp:
    fname = name or graph.name
    arg_types = [to_xdsl_type(p.out_types[0]) for p in graph.inputs]
    block = Block(arg_types=arg_types)
    env: dict = {}
    for p, arg in zip(graph.inputs, block.args):
        env[(p, 0)] = arg
    imp = _Importer(fname)
    imp.body(graph, block, env, token=None)
    outs = [env[o] for o in graph.outputs]
    block.add_op(func.ReturnOp(*outs))
    f = func.FuncOp(fname, (arg_types, [o.type for o in outs]), Region(block))
    return ModuleOp([f])


class _Importer:
    def __init__(self, fname: str):
        self.fname = fname
        self._sources: dict = {None: UnknownLoc()}   # node.location -> its source location
        self._attrs: dict = {}                       # encoded attribute values (see _attr)

    def location(self, node: Node):
        return _name_loc(StringAttr(f"{self.fname}/{node.name}"), self._source(node.location))

    def _source(self, where):
        """The `FileLineColLoc` of a "file:line" string, made once per distinct line."""
        loc = self._sources.get(where)
        if loc is None:
            file, _, line = where.rpartition(":")
            try:
                loc = FileLineColLoc(StringAttr(file), IntAttr(int(line)), IntAttr(0))
            except ValueError:
                loc = self._sources[None]
            self._sources[where] = loc
        return loc

    def _attr(self, value):
        """`encode_attr(value)`, made once per distinct value: traced graphs repeat the same
        constants and attributes on thousands of nodes, and xDSL verifies every attribute it
        builds. Arrays are keyed by dtype, shape and bytes (small ones only)."""
        if isinstance(value, np.ndarray):
            if value.size > _MEMO_ELEMENTS or value.dtype == object:
                return encode_attr(value)
            key = (value.dtype.str, value.shape, value.tobytes())
        elif isinstance(value, _HASHABLE):
            key = (type(value), value)
        else:
            return encode_attr(value)
        a = self._attrs.get(key, _MISSING)
        if a is _MISSING:
            a = self._attrs[key] = encode_attr(value)
        return a

    def body(self, graph: Graph, block: Block, env: dict, token):
        """Append the graph's nodes to `block`; returns the last token (or None)."""
        ops = []
        for node in graph.nodes:
            opname = node.op
            if opname == "placeholder":
                continue
            operands = [env[i] for i in node.inputs]
            loc = self.location(node)
            if opname in ("cond", "case", "while"):
                if node.stateful and token is None:
                    token = self._new_token(ops)
                op, token = getattr(self, "_" + opname)(node, operands, env,
                                                        token if node.stateful else None,
                                                        token)
                op.location = loc
            else:
                types = [to_xdsl_type(t) for t in node.out_types]
                if node.stateful:
                    if token is None:
                        token = self._new_token(ops)
                    operands.append(token)
                    types.append(TOKEN)
                attrs = {}
                for k, v in node.attrs.items():
                    a = self._attr(v)
                    if a is not None:
                        attrs[k] = a
                op = OP_CLASSES[opname].create(operands=operands, result_types=types,
                                               attributes=attrs, location=loc)
                if node.stateful:
                    token = op.results[-1]
            ops.append(op)
            for i, r in enumerate(op.results[:len(node.out_types)]):
                env[(node, i)] = r
        block.add_ops(ops)
        return token

    def _new_token(self, ops):
        op = CreateTokenOp.create(result_types=[TOKEN])
        ops.append(op)
        return op.results[0]

    def _region(self, graph: Graph, outer_operands, env, token):
        """A single-block region for a branch graph: its placeholders stand for the node's
        operands (`attrs["outer"]` indexes them), used from above; so is the token."""
        block = Block()
        inner = dict(env)
        for p in graph.inputs:
            inner[(p, 0)] = outer_operands[p.attrs["outer"]]
        tok_out = self.body(graph, block, inner, token)
        yields = [inner[o] for o in graph.outputs]
        if token is not None:
            yields.append(tok_out)
        block.add_op(YieldOp.create(operands=yields))
        return Region(block)

    def _result_types(self, node, token):
        types = [to_xdsl_type(t) for t in node.out_types]
        return types + [TOKEN] if token is not None else types

    def _cond(self, node, operands, env, token, cur):
        then_g, else_g = node.attrs["branches"]
        regions = [self._region(g, operands, env, token) for g in (then_g, else_g)]
        op = CondOp.create(operands=[operands[0]], result_types=self._result_types(node, token),
                           regions=regions)
        return op, op.results[-1] if token is not None else cur

    def _case(self, node, operands, env, token, cur):
        regions = [self._region(g, operands, env, token) for g in node.attrs["branches"]]
        op = CaseOp.create(operands=[operands[0]], result_types=self._result_types(node, token),
                           regions=regions)
        return op, op.results[-1] if token is not None else cur

    def _while(self, node, operands, env, token, cur):
        n = node.attrs["num_loop_vars"]
        inits = list(operands[:n]) + ([token] if token is not None else [])
        cond_g, body_g = node.attrs["cond_graph"], node.attrs["body_graph"]
        # The loop values' types are the node's (shape invariants may relax an init's shape).
        types = self._result_types(node, token)
        cond_r = self._while_region(cond_g, operands, env, types, token, is_cond=True)
        body_r = self._while_region(body_g, operands, env, types, token, is_cond=False)
        op = WhileOp.create(operands=inits, result_types=types, regions=[cond_r, body_r])
        return op, op.results[-1] if token is not None else cur

    def _while_region(self, graph, operands, env, types, token, is_cond):
        block = Block(arg_types=types)
        inner = dict(env)
        loop_ph = [p for p in graph.inputs if p.attrs.get("outer") is None]
        for p, a in zip(loop_ph, block.args):
            inner[(p, 0)] = a
        for p in graph.inputs:
            k = p.attrs.get("outer")
            if k is not None:
                inner[(p, 0)] = operands[k]
        tok_in = block.args[-1] if token is not None else None
        tok_out = self.body(graph, block, inner, tok_in)
        yields = [inner[o] for o in graph.outputs]
        if token is not None and not is_cond:
            yields.append(tok_out)
        block.add_op(YieldOp.create(operands=yields))
        return Region(block)
