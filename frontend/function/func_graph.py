"""Tracing: symbolic tensors and the FuncGraph they are recorded into.

While a FuncGraph is active in a thread, its context's `graph_hook` (context.py) records every
op instead of running it (with the registry's inference, so shapes and errors are known at the
user's line), Python values become `const` nodes, eager tensors used inside become captures
(placeholders bound at call time), and Variable reads/assigns become stateful resource ops.
Stateful nodes are chained in program order (automatic control dependencies).

Nested graphs (cond branches, loop bodies) capture values of enclosing graphs as placeholders
with `attrs["outer"]`: the control-flow builder turns those into operands of its node.
"""
from __future__ import annotations

import contextlib

from ...ir import errors
from ...ir.gc_pause import gc_paused
from ...ir.graph import Graph, Node
from ...ir.registry import OPS, TT, OpDef, ResourceTT
from ...ir.shapes import TensorShape
from ..eager import dispatch
from . import graph_view
from .context import context
from ..eager.tensor import Tensor


class GraphTensor(Tensor):
    """A symbolic tensor: the output `index` of `node` in `graph`; shape may hold None."""

    __slots__ = ("_graph", "_node", "_index", "_tt")

    def __init__(self, graph: "FuncGraph", node: Node, index: int, tt):
        self._value = None
        self._graph = graph
        self._node = node
        self._index = index
        self._tt = tt
        self._dtype = tt.dtype

    @property
    def shape(self) -> TensorShape:
        return TensorShape.from_tuple(self._tt.shape)

    @property
    def ndim(self):
        return None if self._tt.shape is None else len(self._tt.shape)

    def set_shape(self, shape):
        """TF refines the tensor's static shape in place (a py_function's unknown result, in
        a dataset's map): this tensor becomes the output of an `ensure_shape` of the
        merged shape, the identity that carries it."""
        shape = TensorShape(shape)
        if not shape.is_compatible_with(self.shape):
            raise ValueError(f"Tensor's shape {self.shape} is not compatible with supplied "
                             f"shape {shape}.")
        merged = self.shape.merge_with(shape)
        if merged.as_tuple() == self._tt.shape:
            return
        refined = dispatch.apply("ensure_shape", (self,), {"shape": merged.as_tuple()})
        self._node, self._index, self._tt = refined._node, refined._index, refined._tt

    @property
    def name(self) -> str:
        return f"{self._node.name}:{self._index}"

    @property
    def op(self) -> Node:
        return self._node

    @property
    def graph(self) -> "FuncGraph":
        return self._graph

    @property
    def numpy(self):
        # TF's symbolic tensors have no `numpy` at all: `hasattr(t, "numpy")` is how user code
        # tells eager from traced, and guides catch the AttributeError.
        raise AttributeError(f"'SymbolicTensor' object has no attribute 'numpy': {self.name} "
                             f"has no value until the function runs")

    def _host(self):
        self.numpy

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(f"Cannot convert a symbolic tf.Tensor ({self.name}) to a "
                                  f"numpy array while tracing")

    def __bool__(self):
        raise errors.OperatorNotAllowedInGraphError(
            f"Using a symbolic tf.Tensor ({self.name}) as a Python bool is not allowed while "
            f"tracing. Use tf.cond / tf.where, or let AutoGraph "
            f"convert the `if`/`while` (function(autograph=True)).")

    def __iter__(self):
        raise errors.OperatorNotAllowedInGraphError(
            f"Iterating over a symbolic tf.Tensor ({self.name}) is not allowed while tracing . "
            f"Use tf.while_loop, tf.unstack, or AutoGraph.")

    def __len__(self):
        raise TypeError(f"len is not well defined for a symbolic Tensor ({self.name}); use "
                        f"tf.shape(x)[0]")

    __format__ = object.__format__  # no value to format: str(), or TypeError for a spec

    def __int__(self):
        raise TypeError(f"int() of a symbolic tf.Tensor ({self.name}) is not allowed while "
                        f"tracing")

    __float__ = __int__
    __index__ = __int__

    def __repr__(self):
        shape = "<unknown>" if self._tt.shape is None else str(self.shape)
        return f"<tf.Tensor '{self.name}' shape={shape} dtype={self._dtype.name}>"

    def __str__(self):
        # TF's text for a symbolic tensor; an unknown rank leaves the shape out.
        shape = "" if self._tt.shape is None else f", shape={self.shape}"
        return f'Tensor("{self.name}"{shape}, dtype={self._dtype.name})'


class FuncGraph(Graph):
    """A Graph being traced, with its captures and tracing state."""

    def __init__(self, name: str, outer: "FuncGraph | None" = None):
        super().__init__(name)
        self.outer = outer
        self.captures: dict = {}          # id(outside object) -> (object, placeholder tensor)
        self.outer_captures: list = []    # nested graphs: the outside tensors, in order
        self.last_stateful: Node | None = None
        self.scopes: list[str] = []
        self.variables: list = []         # Variables read or written (by first use)

    # --- building -------------------------------------------------------------------------
    def add_op(self, opdef_or_name, inputs, attrs, out_types, stateful=None, name=None):
        stateful = opdef_or_name.stateful if stateful is None else stateful
        opname = opdef_or_name if isinstance(opdef_or_name, str) else opdef_or_name.name
        ctl = (self.last_stateful,) if stateful and self.last_stateful is not None else ()
        base = name or opname
        if self.scopes:
            base = "/".join(self.scopes) + "/" + base
        node = self.add_node(opname, [(t._node, t._index) for t in inputs], attrs, out_types,
                             name=base, control_inputs=ctl, location=errors.user_line(),
                             stateful=stateful)
        if stateful:
            self.last_stateful = node
        return tuple(GraphTensor(self, node, i, t) for i, t in enumerate(out_types))

    def placeholder(self, tt, name="arg", **attrs) -> GraphTensor:
        node = self.add_placeholder(tt, name=name)
        node.attrs.update(attrs)
        return GraphTensor(self, node, 0, tt)

    # --- inspection (TF's Graph API) ---------------------------------------------------------
    def tensor(self, node: Node, index: int) -> GraphTensor:
        """Output `index` of `node` as a symbolic tensor."""
        return GraphTensor(self, node, index, node.out_types[index])

    def get_operations(self) -> list:
        return [graph_view.Operation(self, n) for n in self.nodes]

    def as_graph_def(self) -> graph_view.GraphDef:
        return graph_view.graph_def(self)

    # --- captures -------------------------------------------------------------------------
    def capture(self, t):
        """The tensor to use in this graph for `t` (capturing it if it lives outside)."""
        if isinstance(t, GraphTensor):
            if t._graph is self:
                return t
            if not self._is_ancestor(t._graph):
                hook = context().foreign_capture
                substitute = hook(t) if hook is not None else None
                if substitute is None:
                    raise errors.InvalidArgumentError(
                        None, None, f"{t.name} belongs to another traced function and cannot "
                        f"be used here (did a tensor leak out of a tf.function?)")
                t = substitute
        key = id(t)
        hit = self.captures.get(key)
        if hit is not None:
            return hit[1]
        if self.outer is None:
            ph = self.placeholder(t._tt if isinstance(t, GraphTensor) else
                                  TT(t._dtype, tuple(t._value.shape)),
                                  name="capture", capture=t)
        else:
            ph = self.placeholder(t._tt if isinstance(t, GraphTensor) else
                                  TT(t._dtype, tuple(t._value.shape)),
                                  name="capture", outer=len(self.outer_captures))
            self.outer_captures.append(t)
        self.captures[key] = (t, ph)
        return ph

    def resource(self, var) -> GraphTensor:
        """The handle placeholder of a Variable in this graph."""
        key = id(var)
        hit = self.captures.get(key)
        if hit is not None:
            return hit[1]
        tt = ResourceTT.of(TT(var.dtype, var.shape.as_tuple()))
        if self.outer is None:
            ph = self.placeholder(tt, name=_var_name(var), capture=var)
        else:
            ph = self.placeholder(tt, name=_var_name(var), outer=len(self.outer_captures))
            self.outer_captures.append(var)
        self.captures[key] = (var, ph)
        self.variables.append(var)
        return ph

    def _is_ancestor(self, g) -> bool:
        o = self.outer
        while o is not None:
            if o is g:
                return True
            o = o.outer
        return False


def _var_name(var) -> str:
    return var.name.split(":")[0].replace("/", "_") or "var"


# --- the active graph ---------------------------------------------------------------------
# This thread's graphs being built (context.py): FuncGraphs, None for an init_scope.
_CTX = context()


def current() -> FuncGraph | None:
    stack = _CTX.graphs
    return stack[-1] if stack else None


def _set_hooks():
    ctx = _CTX
    on = bool(ctx.graphs) and ctx.graphs[-1] is not None
    ctx.graph_hook = _record if on else None
    ctx.read_hook = _read_variable if on else None
    ctx.assign_hook = _assign_variable if on else None


@contextlib.contextmanager
def _entered(graph):
    stack = _CTX.graphs
    stack.append(graph)
    _set_hooks()
    try:
        yield graph
    finally:
        stack.pop()
        _set_hooks()


@contextlib.contextmanager
def as_default(graph: FuncGraph):
    with _entered(graph), gc_paused():   # tracing allocates a node and tensors per op
        yield graph


def init_scope():
    """Leave every graph being traced: code inside runs eagerly (TF's `init_scope`)."""
    return _entered(None)


def _record(opdef: OpDef, inputs, attrs):
    g = _CTX.graphs[-1]
    ins = [g.capture(t) for t in inputs]
    out_types = dispatch.infer_cached(opdef, [t._tt for t in ins], attrs, building=True)
    outs = g.add_op(opdef, ins, attrs, out_types)
    return outs[0] if len(outs) == 1 else outs


def _read_variable(var):
    g = _CTX.graphs[-1]
    return _record(OPS["read_variable"], (g.resource(var),), {})


_UPDATE_OPS = {"assign": "assign_variable", "assign_add": "assign_add_variable",
               "assign_sub": "assign_sub_variable"}


def _assign_variable(var, method, value, read_value):
    g = _CTX.graphs[-1]
    try:
        value = dispatch.convert_to_tensor(value, dtype=var.dtype)
    except (TypeError, ValueError) as e:
        raise type(e)(f"{method} on variable '{var.name}' (dtype {var.dtype.name}): {e}") from None
    try:
        _record(OPS[_UPDATE_OPS[method]], (g.resource(var), value), {})
    except ValueError as e:
        raise ValueError(f"{method} on variable '{var.name}': {e}") from None
    return var if read_value else None



class name_scope:  # noqa: N801  (TF's name)
    """`with tf.name_scope("dense"):` prefixes the names of nodes traced inside and of the
    Variables created inside (eager ops have no names, as in TF 2); `name_scope("")` runs its
    block at the root scope, as TF's."""

    def __init__(self, name: str):
        if not isinstance(name, str) or "/" in name.strip("/"):
            raise ValueError(f"name_scope: invalid scope name {name!r}")
        self._name = name.strip("/")
        self._graph = None
        self._saved = None

    @property
    def name(self):
        return self._name

    def __enter__(self):
        self._graph = current()
        self._saved_variable_scopes = _CTX.name_scopes[:]
        _CTX.name_scopes[:] = (self._saved_variable_scopes + [self._name]
                                    if self._name else [])
        if self._graph is not None:
            self._saved = self._graph.scopes
            self._graph.scopes = self._saved + [self._name] if self._name else []
        return self._name + "/" if self._name else ""

    def __exit__(self, *exc):
        _CTX.name_scopes[:] = self._saved_variable_scopes
        if self._graph is not None:
            self._graph.scopes = self._saved
        return False
