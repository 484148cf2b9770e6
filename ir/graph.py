"""The plain-Python graph that tracing fills (TF's GraphDef, without protobufs).

A `Graph` holds `Node`s in creation order (always a valid topological order, since a node's
inputs exist before it). A node names a registry op (or one of the structural ops below),
its inputs as `(node, output_index)` pairs, its attributes, its result types and its control
inputs (the automatic control dependencies that keep stateful ops in program order).

Structural ops, not in the op registry:
- `placeholder`: a graph input (`attrs["index"]`; `attrs["capture"]` for captured values).
- `cond`: `attrs["branches"]` = (then_graph, else_graph); inputs = (pred, *captured values).
- `case`: `attrs["branches"]` = graphs; inputs = (index, *captured values).
- `while`: `attrs["cond_graph"]`, `attrs["body_graph"]`; inputs = (*loop vars, *captured).
A nested graph's placeholders for values from the enclosing graph carry `attrs["outer"]`, the
index of the node operand they stand for; a while body's loop values are the placeholders
without it. A function graph's captured Python-side values carry `attrs["capture"]`.
"""
from __future__ import annotations

from .registry import TT
from .shapes import format_shape


class Node:
    __slots__ = ("name", "op", "inputs", "attrs", "out_types", "control_inputs", "location",
                 "stateful", "__weakref__")

    def __init__(self, name, op, inputs, attrs, out_types, control_inputs=(), location=None,
                 stateful=False):
        self.name = name
        self.op = op
        self.inputs = tuple(inputs)          # ((Node, int), ...)
        self.attrs = attrs
        self.out_types = tuple(out_types)    # (TT, ...)
        self.control_inputs = tuple(control_inputs)
        self.location = location             # "file:line" of the user's code, if known
        self.stateful = stateful

    def __repr__(self):
        return f"<Node {self.name} = {self.op}>"


class Graph:
    """Nodes in program order, the graph's inputs (placeholders) and outputs."""

    def __init__(self, name: str = "graph"):
        self.name = name
        self.nodes: list[Node] = []
        self.inputs: list[Node] = []                 # placeholders, in argument order
        self.outputs: list[tuple[Node, int]] = []
        self._names: dict[str, int] = {}

    def unique_name(self, base: str) -> str:
        n = self._names.get(base)
        if n is None:
            self._names[base] = 1
            return base
        while f"{base}_{n}" in self._names:
            n += 1
        self._names[base] = n + 1
        name = f"{base}_{n}"
        self._names[name] = 1
        return name

    def add_node(self, op, inputs, attrs, out_types, name=None, control_inputs=(),
                 location=None, stateful=False) -> Node:
        node = Node(self.unique_name(name or op), op, inputs, attrs, out_types,
                    control_inputs, location, stateful)
        self.nodes.append(node)
        return node

    def add_placeholder(self, tt: TT, name="arg", capture=None) -> Node:
        node = self.add_node("placeholder", (), {"index": len(self.inputs), "capture": capture},
                             (tt,), name=name)
        self.inputs.append(node)
        return node

    @property
    def stateful(self) -> bool:
        """True if running the graph has side effects (so its caller must be ordered)."""
        return any(n.stateful for n in self.nodes)

    def to_text(self, indent: str = "") -> str:
        """A readable listing: one node per line, nested graphs indented (the `graph` stage)."""
        lines = [f"{indent}graph {self.name}("
                 + ", ".join(f"{n.name}: {_tt(n.out_types[0])}" for n in self.inputs) + ") {"]
        for n in self.nodes:
            if n.op == "placeholder":
                continue
            ins = ", ".join(_ref(i) for i in n.inputs)
            attrs = {k: v for k, v in n.attrs.items()
                     if not isinstance(v, (Graph, tuple)) or not _has_graph(v)}
            a = (" {" + ", ".join(f"{k}={_short(v)}" for k, v in attrs.items()) + "}") \
                if attrs else ""
            ctl = (" ^[" + ", ".join(c.name for c in n.control_inputs) + "]") \
                if n.control_inputs else ""
            outs = ", ".join(_tt(t) for t in n.out_types)
            loc = f"  # {n.location}" if n.location else ""
            lines.append(f"{indent}  {n.name} = {n.op}({ins}){a}{ctl} -> ({outs}){loc}")
            for k, v in n.attrs.items():
                for g in (v if isinstance(v, tuple) else (v,)):
                    if isinstance(g, Graph):
                        lines.append(f"{indent}    {k}:")
                        lines.append(g.to_text(indent + "    "))
        lines.append(f"{indent}  return " + ", ".join(_ref(o) for o in self.outputs))
        lines.append(f"{indent}}}")
        return "\n".join(lines)


def _has_graph(v) -> bool:
    return isinstance(v, Graph) or (isinstance(v, tuple) and any(isinstance(x, Graph) for x in v))


def _ref(inp) -> str:
    node, idx = inp
    return node.name if idx == 0 and len(node.out_types) == 1 else f"{node.name}:{idx}"


def _tt(t: TT) -> str:
    return f"{getattr(t.dtype, 'name', t.dtype)}{format_shape(t.shape)}"


def _short(v) -> str:
    r = repr(v)
    return r if len(r) <= 60 else r[:57] + "..."
