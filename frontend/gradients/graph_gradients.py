"""tf.gradients and tf.hessians: symbolic differentiation of the graph a tf.function is
tracing. The nodes between `xs` and `ys` are walked backwards with the same registry gradient
functions the tape uses; each node stands in for the tape's recorded op."""
from __future__ import annotations

from ...ir.registry import OPS
from .. import nest
from ..eager import dispatch
from ..export import tf_export
from ..function import func_graph
from ..ops import array as A
from . import GRADIENTS
from .tape import UnconnectedGradients, _Entry, _sum


def _key(t):
    return (id(t._node), t._index)


def _entry(graph, node):
    """The node as the `op` a gradient function takes; trailing operands that carry
    attribute values computed in the graph (shape values) are not its inputs."""
    opdef = OPS[node.op]
    inputs = node.inputs if opdef.variadic else node.inputs[:len(opdef.inputs)]
    return _Entry(opdef, tuple(graph.tensor(n, i) for n, i in inputs),
                  tuple(graph.tensor(node, i) for i in range(len(node.out_types))),
                  node.attrs)


@tf_export("AggregationMethod")
class AggregationMethod:
    """How `tf.gradients` adds the gradients reaching one tensor: every method sums them
    (the choice only told TF's graph in which order and memory)."""
    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


_AGGREGATION_METHODS = (AggregationMethod.ADD_N, AggregationMethod.EXPERIMENTAL_TREE,
                        AggregationMethod.EXPERIMENTAL_ACCUMULATE_N)


def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False,
              aggregation_method=None, stop_gradients=None,
              unconnected_gradients=UnconnectedGradients.NONE):
    """d(sum of ys, weighted by grad_ys)/d(x) for each of xs, in a tf.function (TF raises
    eagerly, as here). None for an x that no y depends on (zeros with
    unconnected_gradients="zero")."""
    graph = func_graph.current()
    if graph is None:
        raise RuntimeError("tf.gradients is not supported when eager execution is enabled. "
                           "Use tf.GradientTape instead.")
    if aggregation_method is not None and aggregation_method not in _AGGREGATION_METHODS:
        raise ValueError(f"Invalid `aggregation_method` specified {aggregation_method}. "
                         f"Accepted values are {list(_AGGREGATION_METHODS)}.")
    unconnected = UnconnectedGradients(unconnected_gradients)
    ys = [dispatch.convert_to_tensor(y) for y in nest.flatten(ys)]
    xs = [dispatch.convert_to_tensor(x) for x in nest.flatten(xs)]
    grad_ys = [None] * len(ys) if grad_ys is None else list(nest.flatten(grad_ys))
    if len(grad_ys) != len(ys):
        raise ValueError(f"Passed {len(grad_ys)} grad_ys for {len(ys)} ys")
    stopped = {_key(t) for t in nest.flatten(stop_gradients or [])}
    # forward: the nodes that depend on an x (through no stopped tensor)
    reach = {_key(x) for x in xs}
    relevant = []
    for node in graph.nodes:
        if not any((id(n), i) in reach and (id(n), i) not in stopped for n, i in node.inputs):
            continue
        opdef = OPS.get(node.op)
        if opdef is None or not opdef.differentiable:
            continue
        relevant.append(node)
        reach.update((id(node), i) for i in range(len(node.out_types)))
    pending: dict = {}
    for y, g in zip(ys, grad_ys):
        if _key(y) in reach and y.dtype.is_floating:
            g = A.ones_like(y) if g is None else dispatch.convert_to_tensor(g, dtype=y.dtype)
            pending.setdefault(_key(y), []).append(g)
    x_keys = {_key(x) for x in xs}
    results: dict = {}
    for node in reversed(relevant):
        out_grads = [pending.pop((id(node), i), None) for i in range(len(node.out_types))]
        if not any(out_grads):
            continue
        out_grads = [None if gl is None else _sum(gl) for gl in out_grads]
        for i, g in enumerate(out_grads):
            if g is not None and (id(node), i) in x_keys:
                results[(id(node), i)] = g
        fn = GRADIENTS.get(node.op)
        if fn is None:
            raise LookupError(f"No gradient defined for operation '{node.name}' (op type: "
                              f"{node.op})")
        entry = _entry(graph, node)
        in_grads = fn(entry, *out_grads)
        in_grads = in_grads if isinstance(in_grads, (list, tuple)) else [in_grads]
        for t, g in zip(entry.inputs, in_grads):
            k = _key(t)
            if g is not None and k in reach and k not in stopped and t.dtype.is_floating:
                pending.setdefault(k, []).append(g)
    out = []
    for x in xs:
        k = _key(x)
        g = results.get(k)
        if g is None and pending.get(k):
            g = _sum(pending[k])
        if g is None and unconnected is UnconnectedGradients.ZERO:
            g = A.zeros_like(x)
        out.append(g)
    return out


def hessians(ys, xs, gate_gradients=False, aggregation_method=None, name="hessians"):
    """The Hessian of sum(ys) with respect to each x: shape x.shape + x.shape (each x's
    shape must be known while tracing)."""
    xs = [dispatch.convert_to_tensor(x) for x in nest.flatten(xs)]
    out = []
    for x, g in zip(xs, gradients(ys, xs)):
        shape = x.shape.as_list() if x.shape.rank is not None else None
        if shape is None or None in shape:
            raise ValueError(f"Cannot compute Hessian because the shape of {x.name} is not "
                             f"fully known: {x.shape}")
        if g is None:
            out.append(None)
            continue
        flat = A.reshape(g, [-1])
        rows = []
        for j in range(int(flat.shape[0])):
            (row,) = gradients(flat[j], [x], unconnected_gradients="zero")
            rows.append(row)
        out.append(A.reshape(A.stack(rows), shape + shape))
    return out
