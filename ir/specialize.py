"""Shape specialization: a copy of a graph with concrete argument types, every node's types
re-inferred by the registry (the same inference tracing ran).

XLA needs static shapes, so a ConcreteFunction traced with `None` dims is specialized once per
concrete argument signature before lowering (one trace, N compiles). Shape values computed in
the graph (an op's attribute operands, see `registry.op`) fold to constants here; one that
depends on data, not on shapes, cannot be compiled and raises (TF's class and reason).
"""
from __future__ import annotations

from .errors import InvalidArgumentError, OpError, UnimplementedError
from .gc_pause import gc_paused
from .graph import Graph, Node
from .registry import OPS, InferenceError, ResourceTT, infer_types
from .shape_values import data_source, known_value


def specialize(graph: Graph, arg_types) -> Graph:
    """`graph` with its placeholders typed `arg_types` (in order) and everything re-inferred;
    `graph` itself when that would copy it unchanged (see `_already_specialized`)."""
    arg_types = list(arg_types)
    if _already_specialized(graph, arg_types):
        return graph
    with gc_paused():
        return _Specializer().graph(graph, arg_types)


def _already_specialized(graph: Graph, arg_types) -> bool:
    """True when the placeholders already have `arg_types`, every type in the graph (nested
    graphs included) is static and no shape value computed in the graph waits to be folded:
    re-inference would then reproduce every type, and nothing could fail."""
    return [p.out_types[0] for p in graph.inputs] == arg_types and _static(graph)


def _static(g: Graph) -> bool:
    for node in g.nodes:
        for t in node.out_types:
            shape = (t.value if isinstance(t, ResourceTT) else t).shape
            if shape is None or None in shape:
                return False
        opdef = OPS.get(node.op)
        if opdef is None:   # cond / case / while: their graphs too
            if not all(_static(sub) for sub in _nested_graphs(node)):
                return False
        elif opdef.tensor_attrs and len(node.inputs) > len(opdef.inputs):
            return False
    return True


def _nested_graphs(node: Node):
    for v in node.attrs.values():
        if isinstance(v, Graph):
            yield v
        elif isinstance(v, tuple):
            yield from (g for g in v if isinstance(g, Graph))


class _Specializer:
    def graph(self, g: Graph, arg_types) -> Graph:
        new = Graph(g.name)
        m: dict = {}
        for ph, tt in zip(g.inputs, arg_types):
            n = new.add_placeholder(tt, name=ph.name)
            n.attrs.update({k: v for k, v in ph.attrs.items() if k != "index"})
            m[ph] = n
        live = _live_nodes(g)
        for node in g.nodes:
            if node.op == "placeholder" or node not in live:
                continue
            ins = [(m[n], i) for n, i in node.inputs]
            in_types = [n.out_types[i] for n, i in ins]
            attrs = dict(node.attrs)
            if node.op in OPS:
                if len(ins) > len(OPS[node.op].inputs) and OPS[node.op].tensor_attrs:
                    ins = _fold_attr_operands(node, ins, attrs)
                try:
                    out_types = infer_types(OPS[node.op], in_types, attrs)
                except InferenceError as e:
                    cls = e.error_class if issubclass(e.error_class, OpError) else \
                        UnimplementedError
                    why = str(e) if str(e).startswith(node.op) else f"{node.op}: {e}"
                    raise cls(None, node.op, f"{why} [node {node.name} at "
                              f"{node.location}]") from None
            else:
                out_types = getattr(self, "_" + node.op)(node, in_types, attrs)
            nn = Node(node.name, node.op, ins, attrs, out_types,
                      tuple(m[c] for c in node.control_inputs if c in m), node.location,
                      node.stateful)
            new.nodes.append(nn)
            new._names[nn.name] = 1
            m[node] = nn
        new.outputs = [(m[n], i) for n, i in g.outputs]
        return new

    def _branch_graph(self, g, in_types):
        types = [in_types[p.attrs["outer"]] for p in g.inputs]
        return self.graph(g, types)

    def _branches(self, node, in_types, attrs):
        graphs = tuple(self._branch_graph(b, in_types) for b in node.attrs["branches"])
        attrs["branches"] = graphs
        outs = [[n.out_types[i] for n, i in b.outputs] for b in graphs]
        first = outs[0]
        for o in outs[1:]:
            if o != first:
                raise UnimplementedError(None, node.op, f"{node.name} ({node.location}): the "
                                         f"branches return different types {first} and {o}; "
                                         f"XLA needs one static type")
        return tuple(first)

    _cond = _branches
    _case = _branches

    def _while(self, node, in_types, attrs):
        n = node.attrs["num_loop_vars"]
        loop = list(in_types[:n])

        def types_for(g):
            return [loop[i] if p.attrs.get("outer") is None else in_types[p.attrs["outer"]]
                    for i, p in enumerate(g.inputs)]
        cond_g = self.graph(node.attrs["cond_graph"], types_for(node.attrs["cond_graph"]))
        body_g = self.graph(node.attrs["body_graph"], types_for(node.attrs["body_graph"]))
        body_out = [nd.out_types[i] for nd, i in body_g.outputs]
        if body_out != loop:
            raise UnimplementedError(None, "while", f"{node.name} ({node.location}): loop "
                                     f"values change type across iterations ({loop} -> "
                                     f"{body_out}); XLA needs a fixed shape per loop value")
        attrs["cond_graph"], attrs["body_graph"] = cond_g, body_g
        return tuple(loop)


def _live_nodes(g: Graph) -> set:
    """The nodes the outputs or a stateful node need. Only those are specialized: a dead
    node (the `tf.range` a staged loop iterates by its bounds) may hold a shape value that
    depends on data, which XLA could not fold, and would be pruned by the passes anyway."""
    todo = [n for n, _ in g.outputs] + [n for n in g.nodes if n.stateful]
    live = set()
    while todo:
        n = todo.pop()
        if n in live:
            continue
        live.add(n)
        todo.extend(src for src, _ in n.inputs)
        todo.extend(n.control_inputs)
    return live


def _fold_attr_operands(node, ins, attrs):
    """Write the values of `node`'s attribute operands into `attrs` (now that shapes are
    concrete) and return its inputs without them."""
    opdef = OPS[node.op]
    n = len(opdef.inputs)
    for name, (src, i) in zip(opdef.attr_operands(node.attrs), ins[n:]):
        value = known_value(src, i)
        if value is None:
            raise InvalidArgumentError(
                None, node.op, f"{node.op}: `{name}` of node {node.name} ({node.location}) "
                f"must be a compile-time constant. XLA compilation requires that operator "
                f"arguments that represent shapes or dimensions be evaluated to concrete values "
                f"at compile time; this one depends on the value computed by "
                f"{data_source(src, i)}, not only on shapes")
        attrs[name] = value
    return ins[:n]
