"""TF's graph inspection surface over a traced graph: `graph.get_operations()` (Operations with
`name`, `type`, `inputs`, `outputs`, `control_inputs`) and `graph.as_graph_def()` (a GraphDef
listing: `node` entries with `name`, `op`, `input`, `attr`). Op types are flowjit's registry
names (`add`, `matmul`), not TF's kernel names (`AddV2`, `MatMul`)."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..export import tf_export


@tf_export("Operation")
class Operation:
    """A read-only view of one node of a FuncGraph, as TF's `tf.Operation`."""

    __slots__ = ("graph", "_node")

    def __init__(self, graph, node):
        self.graph = graph
        self._node = node

    @property
    def name(self) -> str:
        return self._node.name

    @property
    def type(self) -> str:
        return self._node.op

    @property
    def inputs(self) -> list:
        return [self.graph.tensor(n, i) for n, i in self._node.inputs]

    @property
    def outputs(self) -> list:
        node = self._node
        return [self.graph.tensor(node, i) for i in range(len(node.out_types))]

    @property
    def control_inputs(self) -> list:
        return [Operation(self.graph, n) for n in self._node.control_inputs]

    @property
    def node_def(self) -> "NodeDef":
        return node_def(self._node)

    def __repr__(self):
        return f"<tf.Operation '{self.name}' type={self.type}>"


@dataclass
class NodeDef:
    name: str
    op: str
    input: list = field(default_factory=list)   # "node", "node:1", "^control"
    attr: dict = field(default_factory=dict)


@dataclass
class GraphDef:
    node: list = field(default_factory=list)

    def __str__(self):
        return "\n".join(f"{n.name} = {n.op}({', '.join(n.input)})" for n in self.node)


def node_def(node) -> NodeDef:
    inputs = [n.name if i == 0 else f"{n.name}:{i}" for n, i in node.inputs]
    inputs += [f"^{c.name}" for c in node.control_inputs]
    attrs = {k: v for k, v in node.attrs.items() if k not in ("index", "capture")}
    return NodeDef(node.name, node.op, inputs, attrs)


def graph_def(graph) -> GraphDef:
    return GraphDef([node_def(n) for n in graph.nodes])
