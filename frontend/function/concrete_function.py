"""`ConcreteFunction`: the record of one trace — its FuncGraph, captures, output structure,
trace type — and TF's introspection of it.

What is compiled from it and how it is called belong to its `Program` (program.py, TF's
AtomicFunction), run by the backend chosen for it (backends.py); binding arguments and
wrapping results live in `function_call.py`.
"""
from __future__ import annotations

import inspect
import itertools

from ...ir import dtypes as D
from ...ir import errors
from ..composite.base import CompositeKind
from . import backends, compilation, func_graph, function_call, trace_type
from .program import Program
from .specs import TensorSpec


class ConcreteFunction:
    """One trace: a FuncGraph, its captures and output structure (the record other modules
    read), and the Program that compiles and runs it."""

    def __init__(self, graph, structure, function, key, args, arg_names=(), jit_compile=False):
        """`arg_names`, `jit_compile`: a restored trace's (`function` None); a trace of a
        Function takes them from it."""
        self.graph = graph
        self.structure = structure          # the outputs' nesting ("out", i) / ("py", v) / ...
        self.function = function            # the Function traced (None: a restored trace)
        self.trace_key = key
        self._name = function.name if function is not None else graph.name
        self.arg_names = function.arg_names if function is not None else list(arg_names)
        self.args_template = args
        self.captures = [p.attrs["capture"] for p in graph.inputs
                         if p.attrs.get("capture") is not None]
        self.capture_values = [c._handle if hasattr(c, "_handle") else c._value
                               for c in self.captures]
        self.num_args = len(graph.inputs) - len(self.captures)
        self.passes_spec = function.passes if function is not None else None
        self.jit_compile = bool(function.jit_compile if function is not None else jit_compile)
        self.donate_variables = function.donate_variables is not False \
            if function is not None else True
        self.timings: dict = {}
        # variables declared with `None` dims: their shapes are part of an executable's key
        self.resizable = [i for i, c in enumerate(self.captures)
                          if hasattr(c, "_handle") and not c.shape.is_fully_defined()]
        self.static_shapes = not self.resizable and all(
            p.out_types[0].shape is not None and None not in p.out_types[0].shape
            for p in graph.inputs[:self.num_args])
        self.out_dtypes = [n.out_types[i].dtype for n, i in graph.outputs]
        self.single_output_dtype = self.out_dtypes[0] if structure == ("out", 0) else None
        self.program = Program(self, backends.select(self))

    # --- compiled forms ---------------------------------------------------------------------
    def dataflow_module(self):
        """The df module before passes (imported once)."""
        return compilation.dataflow_module(self.program)

    def optimized_module(self):
        """The df module after the pass pipeline."""
        return compilation.optimized_module(self.program)

    def pipeline_report(self, module=None):
        """The pipeline run on a copy of `module`, recording the IR after every pass."""
        return compilation.pipeline_report(self.program, module)

    @property
    def last_pipeline_report(self):
        return self.program.last_pipeline_report

    def xla_specialization(self, values):
        """The XLA executable for these argument values (host arrays, device buffers,
        ResourceHandles), compiling on a miss (one per concrete signature)."""
        return self.program.xla_executable(values)

    # --- calling ----------------------------------------------------------------------------
    def call_flat(self, flat):
        """Run on the flat tensor arguments (captures are added by the call)."""
        return function_call.call_flat(self, flat)

    def concrete_values(self, args, kwargs):
        """Raw argument values for XLA stages, or None when any argument is symbolic."""
        return function_call.concrete_values(self, args, kwargs)

    def __call__(self, *args, **kwargs):
        if self.function is not None and (kwargs or len(args) < len(self.arg_names)):
            args = function_call.bind_call(self, args, kwargs)
        flat = []
        key = trace_type.key_and_flat(tuple(args), flat)
        if not trace_type.accepts(self.trace_key, key) and len(flat) == self.num_args:
            self._check_dtypes(flat)  # TF runs tensors of any shape, refuses other dtypes
            if not trace_type.accepts(trace_type.without_shapes(self.trace_key),
                                      trace_type.without_shapes(key)):
                raise TypeError(f"ConcreteFunction {self._name} was traced for "
                                f"{trace_type.describe(self.trace_key)}, called with "
                                f"{trace_type.describe(key)}")
        if len(flat) != self.num_args:
            raise TypeError(f"ConcreteFunction {self._name} takes {self.num_args} tensor "
                            f"argument(s), got {len(flat)}")
        return function_call.call_flat(self, flat)

    def _check_dtypes(self, flat):
        for i, (t, ph) in enumerate(zip(flat, self.graph.inputs)):
            want = ph.out_types[0].dtype
            if t.dtype is not want:
                raise errors.InvalidArgumentError(
                    None, self._name, f"cannot compute __inference_{self._name} as input "
                    f"#{i}(zero-based) was expected to be a {D.runtime_name(want)} tensor but "
                    f"is a {D.runtime_name(t.dtype)} tensor")

    # --- introspection --------------------------------------------------------------------
    @property
    def inputs(self):
        return [_ph_tensor(self.graph, p) for p in self.graph.inputs]

    @property
    def outputs(self):
        return [func_graph.GraphTensor(self.graph, n, i, n.out_types[i])
                for n, i in self.graph.outputs]

    @property
    def structured_outputs(self):
        return function_call.rebuild(self.structure, self.outputs)

    @property
    def structured_input_signature(self):
        """(positional specs, {keyword-only name: spec}); Python values stay values (TF)."""
        specs = specs_of(self.trace_key, self.arg_names)
        params = list(self.function.function_spec.parameters.values()) if self.function else []
        args, kw = [], {}
        for p, s in itertools.zip_longest(params, specs):
            kind = None if p is None else p.kind
            if kind is inspect.Parameter.VAR_POSITIONAL:
                args.extend(s)
            elif kind is inspect.Parameter.VAR_KEYWORD:
                kw.update(s)
            elif kind is inspect.Parameter.KEYWORD_ONLY:
                kw[p.name] = s
            elif s is not None:
                args.append(s)
        return tuple(args), kw

    @property
    def function_type(self):
        """TF's FunctionType: parameters annotated with trace types, output, captures."""
        from . import function_type
        sig = self.function.function_spec if self.function else inspect.Signature(
            [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD)
             for n in self.arg_names])
        return function_type.build(sig, self.trace_key, self.structure, self.outputs,
                                   self.captures)

    @property
    def captured_inputs(self):
        return list(self.captures)

    @property
    def variables(self):
        return [c for c in self.captures if hasattr(c, "_handle")]

    @property
    def trainable_variables(self):
        return [v for v in self.variables if v.trainable]

    @property
    def name(self):
        return self._name

    def pretty_printed_signature(self, verbose=True) -> str:
        return self.function_type.pretty_printed()

    def __str__(self):
        return f"ConcreteFunction {self.pretty_printed_signature()}"

    def __repr__(self):
        return f"<ConcreteFunction {self.function_type} at 0x{id(self):X}>"


def _ph_tensor(graph, node):
    return func_graph.GraphTensor(graph, node, 0, node.out_types[0])


def specs_of(key, names):
    """TensorSpecs (nested as the arguments) of a trace type; Python values stay values."""
    def spec(k, name):
        if k[0] == trace_type.TENSOR:
            from ...ir.shapes import TensorShape
            return TensorSpec(TensorShape.from_tuple(k[2]) if k[2] is not None
                              else TensorShape(None), k[1], name)
        if trace_type.is_container(k):
            kind = k[0]
            if isinstance(kind, CompositeKind):
                return kind.spec
            if isinstance(kind, tuple):
                return {kk: spec(c, f"{name}_{kk}") for kk, c in zip(kind[1], k[1])}
            items = [spec(c, f"{name}_{i}") for i, c in enumerate(k[1])]
            if kind is list:
                return items
            return tuple(items) if kind is tuple else kind(*items)
        if k[0] == trace_type.LITERAL:
            return trace_type.literal_value(k)
        return k[1] if isinstance(k[0], type) else k
    return tuple(spec(k, n) for k, n in zip(key[1], names + [
        f"arg{i}" for i in range(len(names), len(key[1]))]))
