"""Tracing: run a Function's Python body once, with symbolic arguments, into a FuncGraph.

`trace(function, args, key)` makes the placeholders of the trace type, installs the
Variable-creation hook (TF's singleton-variable rule), runs the (AutoGraph-converted) body
under the graph and records the output structure; the ConcreteFunction record wraps the result.
"""
from __future__ import annotations

import logging
import time

from ...ir import errors
from ...ir.registry import TT
from ...runtime import profiler
from ..eager import config, dispatch
from . import func_graph, trace_type
from .. import nest
from ..composite.base import CompositeKind
from .context import context
from .specs import TensorSpec
from .type_spec import NoneTensorSpec
from ..eager.tensor import Tensor

log = logging.getLogger("flowjit")

_CTX = context()


def trace(function, args, key):
    """A new ConcreteFunction of `function` for the trace type `key` (COMPILE_LOCK held)."""
    from .concrete_function import ConcreteFunction
    t0 = time.perf_counter()
    first = not function.experimental_get_tracing_count()
    with profiler.phase("trace"):
        graph, structure, created = _trace_once(function, args, key, may_create=first)
        if created:
            # As TF: a trace that created Variables is redone with creation refused, so a
            # body that creates one on every call raises now, while one guarded by
            # `if self.v is None` gets a graph that reads the (lifted) variables.
            graph, structure, _ = _trace_once(function, args, key, may_create=False)
    cf = ConcreteFunction(graph, structure, function, key, args)
    cf.timings["trace"] = time.perf_counter() - t0
    if config.LOG_COMPILES:
        log.warning("flowjit: traced %s in %.1f ms (%d nodes)", function.name,
                    cf.timings["trace"] * 1e3, len(graph.nodes))
    return cf


def _trace_once(function, args, key, may_create):
    """Run the Python body once into a new FuncGraph. Returns the graph, the output
    structure, and how many Variables the body created."""
    graph = func_graph.FuncGraph(function.name)
    graph.jit_compile = bool(function.jit_compile)  # gradients of loops check it
    sym_args = _placeholders(graph, args, key, function.arg_names)
    creator = _VariableCreator(function.name, may_create, _argument_values(graph, args))
    ctx = _CTX
    prev_create, ctx.create_hook = ctx.create_hook, creator
    try:
        with func_graph.as_default(graph):
            out = function.call_python(sym_args)
            structure = _outputs(graph, out)
    except Exception as e:   # the line in the body that failed, whatever raised there
        errors.noted(e, from_traceback=True)
        raise
    finally:
        ctx.create_hook = prev_create
    function.count_trace()
    return graph, structure, creator.created


class _VariableCreator:
    """The Variable-creation hook of one trace: creation is lifted out of the graph (the
    initial value is computed eagerly), and refused unless the trace may create (TF's
    singleton-variable rule: only the first trace of a Function creates Variables)."""

    def __init__(self, fname, may_create, arguments):
        self._fname = fname
        self._may_create = may_create
        self._arguments = arguments
        self.created = 0

    def __call__(self, initial_value, dtype):
        if not self._may_create:
            raise ValueError(
                f"tf.function only supports singleton tf.Variables created on the first call. "
                f"Make sure the tf.Variable is only created once or created outside "
                f"tf.function. ({self._fname} created one at {errors.user_frame()})")
        self.created += 1
        with func_graph.init_scope():
            value = initial_value() if callable(initial_value) else initial_value
            if isinstance(value, func_graph.GraphTensor):
                value = _evaluate_constant(value, self._arguments)
            return dispatch.convert_to_tensor(value, dtype=dtype)


def _placeholders(graph, args, key, names):
    """Symbolic arguments: each tensor leaf of the trace type becomes a placeholder."""
    def build(value, k, name):
        if k[0] == trace_type.TENSOR:
            return graph.placeholder(TT(k[1], k[2]), name=name)
        if trace_type.is_container(k):
            kind = k[0]
            if isinstance(kind, tuple):  # dict
                return {kk: build(value[kk] if isinstance(value, dict) else None, c,
                                  f"{name}_{kk}") for kk, c in zip(kind[1], k[1])}
            vals = list(value) if isinstance(value, (list, tuple)) else [None] * len(k[1])
            items = [build(v, c, f"{name}_{i}") for i, (v, c) in enumerate(zip(vals, k[1]))]
            if isinstance(kind, CompositeKind):
                return kind.rebuild(items)
            if kind is list:
                return items
            if kind is tuple:
                return tuple(items)
            return kind(*items)
        if isinstance(value, TensorSpec):
            return graph.placeholder(TT(value.dtype, value.shape.as_tuple()), name=name)
        if isinstance(value, NoneTensorSpec):
            return None
        if k[0] == trace_type.USER:  # the body sees what the object's trace type gives
            return k[1].placeholder_value(None)
        return value
    return tuple(build(v, k, n) for v, k, n in zip(args, key[1], names + [
        f"arg{i}" for i in range(len(names), len(args))]))


def _outputs(graph, out):
    """The output structure: tensors become graph outputs (by index), the rest stays."""
    def walk(v):
        if hasattr(v, "_as_tensor") and not isinstance(v, Tensor) and \
                not getattr(v, "_tf_composite", False):
            v = v._as_tensor()
        if isinstance(v, Tensor):
            t = graph.capture(v) if not (isinstance(v, func_graph.GraphTensor)
                                         and v._graph is graph) else v
            graph.outputs.append((t._node, t._index))
            return ("out", len(graph.outputs) - 1)
        kind = nest.kind_of(v)
        if kind != nest.LEAF:
            return ("nest", v, kind, [walk(x) for x in nest.children(v, kind)])
        if v is None:
            return ("py", v)
        try:  # as TF: Python values returned become Tensors (strings: tf.string Tensors)
            return walk(dispatch.convert_to_tensor(v))
        except (TypeError, ValueError):
            raise TypeError(
                f"To be compatible with tf.function, Python functions must return zero or more "
                f"Tensors or ExtensionTypes or None values; in compilation of {graph.name}, "
                f"found return value of type {type(v).__name__}, which is not a Tensor or "
                f"ExtensionType.") from None
    return walk(out)


def _argument_values(graph, args) -> dict:
    """Placeholder node -> the eager value the call passes for it (none when tracing from
    TensorSpecs or inside another trace)."""
    flat = []
    try:
        trace_type.key_and_flat(tuple(args), flat)
    except TypeError:  # TensorSpecs: nothing to evaluate with
        return {}
    if len(flat) != len(graph.inputs):
        return {}
    return {ph: t._value for ph, t in zip(graph.inputs, flat) if t._value is not None}


def _evaluate_constant(t, arguments):
    """Evaluate a symbolic tensor (a Variable's initial value computed inside a trace) by
    running its nodes' kernels eagerly on this call's `arguments` (TF's init_scope lifting:
    `tf.Variable(tf.zeros_like(x))` on a Function's first call)."""
    from ...ir.registry import OPS
    memo = {}

    def placeholder_value(node):
        cap = node.attrs.get("capture")
        if isinstance(cap, Tensor) and cap._value is not None:
            return cap._value
        return arguments.get(node)

    def value(node, idx):
        if node not in memo:
            given = placeholder_value(node) if node.op == "placeholder" else None
            if given is not None:
                memo[node] = (Tensor._wrap(given, node.out_types[0].dtype),)
                return memo[node][0]
            opdef = OPS.get(node.op)
            if opdef is None or node.op == "placeholder" or \
                    (node.stateful and opdef.family != "random"):
                raise ValueError(
                    f"A Variable's initial value created inside a tf.function must not depend "
                    f"on function state or on inputs traced without values (it needs "
                    f"{node.name}); create the Variable outside the function")
            ins = tuple(value(n, i) for n, i in node.inputs)
            r = dispatch.apply(node.op, ins, node.attrs)  # eagerly: random ops draw too
            memo[node] = tuple(r) if len(node.out_types) != 1 else (r,)
        return memo[node][idx]
    return value(t._node, t._index)
