"""`df` module -> plain `ir.graph.Graph`: the inverse of `importer.py`.

A saved function is stored as df text; loading parses it and rebuilds the graph form, which
the graph executor, XLA specialization and GradientTape replay all start from. Tokens vanish
(a node is stateful when its df op took one, and program order is kept); values a region uses
from above become operands of its `cond`/`case`/`while` node, the nested graph's placeholders
carrying `attrs["outer"]` as tracing makes them; a node's name and source line come back from
its `loc("<function>/<node>"("file":line:0))`.
"""
from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from .dialect import CaseOp, CondOp, CreateTokenOp, DfOp, TokenType, WhileOp, YieldOp, \
    from_xdsl_type
from .graph import Graph
from .importer import location_parts


def export_graph(module: ModuleOp, name: str | None = None, new_graph=Graph) -> Graph:
    """The graph of the module's function `name` (default: its first). `new_graph(name)`
    makes each graph (the caller's Graph subclass)."""
    fns = [op for op in module.ops if isinstance(op, func.FuncOp)]
    fn = next((f for f in fns if f.sym_name.data == name), fns[0] if fns else None)
    if fn is None:
        raise ValueError("df module has no func.func")
    fname = fn.sym_name.data
    graph = new_graph(fname)
    builder = _Builder(graph, fname, new_graph, None, None)
    block = fn.body.block
    for i, arg in enumerate(block.args):
        node = graph.add_placeholder(from_xdsl_type(arg.type), name=f"arg{i}")
        builder.env[arg] = (node, 0)
    graph.outputs = builder.body(block)
    return graph


def _real(values):
    return [v for v in values if not isinstance(v.type, TokenType)]


class _Operands:
    """An enclosing node's operand list, which values from above are appended to (shared by
    the node's regions), with each value's first position at hand."""

    def __init__(self, values):
        self.values = list(values)
        self.position: dict = {}
        for i, v in enumerate(self.values):
            self.position.setdefault(v, i)

    def index(self, value) -> int:
        pos = self.position.get(value)
        if pos is None:
            pos = self.position[value] = len(self.values)
            self.values.append(value)
        return pos


class _Builder:
    """Fills one graph from one block. `operands` (an `_Operands`) is the enclosing node's,
    which values from above join."""

    def __init__(self, graph, fname, new_graph, parent, operands):
        self.graph = graph
        self.fname = fname
        self.new_graph = new_graph
        self.parent = parent
        self.operands = operands
        self.env: dict = {}

    def ref(self, value):
        hit = self.env.get(value)
        if hit is None:
            if self.parent is None:
                raise ValueError(f"df: {value} is used before it is defined")
            pos = self.operands.index(value)
            node = self.graph.add_placeholder(from_xdsl_type(value.type), name="outer")
            node.attrs["outer"] = pos
            hit = self.env[value] = (node, 0)
        return hit

    def body(self, block) -> list:
        """Add the block's ops; returns the terminator's values as graph outputs."""
        for op in block.ops:
            if isinstance(op, (func.ReturnOp, YieldOp)):
                return [self.ref(v) for v in _real(op.operands)]
            if isinstance(op, CreateTokenOp):
                continue
            stateful = any(isinstance(r.type, TokenType) for r in op.results)
            name, location = self._name_and_location(op)
            if isinstance(op, DfOp):
                opname, attrs = op.opdef.name, op.python_attrs()   # absent ones as None
                inputs = [self.ref(v) for v in _real(op.operands)]
            else:
                opname, inputs, attrs = self._structural(op)
            node = self.graph.add_node(opname, inputs, attrs,
                                       [from_xdsl_type(r.type) for r in _real(op.results)],
                                       name=name, location=location, stateful=stateful)
            for i, r in enumerate(_real(op.results)):
                self.env[r] = (node, i)
        return []

    def _nested(self, region, operands, label):
        g = self.new_graph(f"{self.graph.name}/{label}")
        b = _Builder(g, self.fname, self.new_graph, self, operands)
        for i, arg in enumerate(_real(region.block.args)):
            b.env[arg] = (g.add_placeholder(from_xdsl_type(arg.type), name=f"loop_var_{i}"), 0)
        g.outputs = b.body(region.block)
        return g

    def _structural(self, op):
        if isinstance(op, (CondOp, CaseOp)):
            operands = _Operands([op.operands[0]])
            regions = [op.then_region, op.else_region] if isinstance(op, CondOp) \
                else list(op.branches)
            graphs = tuple(self._nested(r, operands, f"branch_{i}")
                           for i, r in enumerate(regions))
            return ("cond" if isinstance(op, CondOp) else "case",
                    [self.ref(v) for v in operands.values], {"branches": graphs})
        if isinstance(op, WhileOp):
            operands = _Operands(_real(op.inits))
            n = len(operands.values)
            cg = self._nested(op.cond_region, operands, "cond")
            bg = self._nested(op.body_region, operands, "body")
            return ("while", [self.ref(v) for v in operands.values],
                    {"cond_graph": cg, "body_graph": bg, "num_loop_vars": n})
        raise ValueError(f"df: cannot export op {op.name}")

    def _name_and_location(self, op):
        parts = location_parts(op.location)
        if parts is None:
            return None, None
        label, file, line, _ = parts
        return label.removeprefix(self.fname + "/"), f"{file}:{line}" if file else None
