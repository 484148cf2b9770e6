"""`function`, `Function` (the polymorphic cache) and `ConcreteFunction` (one trace).

A call computes the arguments' trace type (`trace_type.py`) and looks it up; a miss traces the
Python function into a FuncGraph. A ConcreteFunction imports its graph into `df`, builds an
executor Plan once, and then each call is: collect the argument arrays and captured values,
run the plan, wrap the results into the traced output structure.
"""
from __future__ import annotations

import collections
import functools
import inspect
import itertools
import logging
import threading
import time
import weakref

import numpy as np

from ..ir import errors
from ..runtime import xla
from ..ir.registry import TT
from . import config, dispatch, func_graph, nest, sharded, trace_type, variables
from .autograph import features as autograph_features
from .specs import TensorSpec
from .tensor import Tensor

log = logging.getLogger("flowjit")

_MAX_TRACES = 64          # a Function keeps at most this many concrete functions (LRU)
_RETRACE_WINDOW = 5       # TF warns when the last 5 calls all traced
# Tracing, planning and compiling (cache misses only) hold one process-wide lock: the tracer's
# hooks are process-wide, and concurrent first calls of a signature must trace and compile
# once. Cache hits take no lock; variables have their own (runtime/resources.py).
_COMPILE_LOCK = threading.RLock()
_tracing_thread = None    # the thread that holds _COMPILE_LOCK to trace


def function(func=None, *, input_signature=None, autograph=True, jit_compile=None,
             reduce_retracing=False, experimental_implements=None,
             experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None,
             experimental_follow_type_hints=None, name=None, passes=None,
             donate_variables=None):
    """TF's `tf.function`, as a decorator with or without arguments."""
    if experimental_relax_shapes is not None:
        reduce_retracing = reduce_retracing or experimental_relax_shapes
    if experimental_compile is not None and jit_compile is None:
        jit_compile = experimental_compile

    def wrap(f):
        return Function(f, name=name or getattr(f, "__name__", "function"),
                        input_signature=input_signature, autograph=autograph,
                        jit_compile=jit_compile, reduce_retracing=reduce_retracing,
                        passes=passes, donate_variables=donate_variables,
                        autograph_options=experimental_autograph_options)
    return wrap if func is None else wrap(func)


class Function:
    """A polymorphic traced function: one ConcreteFunction per trace type."""

    def __init__(self, python_function, name, input_signature=None, autograph=True,
                 jit_compile=None, reduce_retracing=False, passes=None, donate_variables=None,
                 autograph_options=None):
        self._python_function = python_function
        self._name = name
        self._autograph = autograph
        self._autograph_options = autograph_options
        self._autograph_features = autograph_features.resolve(autograph_options)
        self._jit_compile = jit_compile
        self._reduce_retracing = reduce_retracing
        self._passes = passes
        self._donate_variables = donate_variables
        self._sig = inspect.signature(python_function)
        params = list(self._sig.parameters.values())
        self._arg_names = [p.name for p in params]
        self._simple = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                           for p in params)
        self._n_required = sum(1 for p in params if p.default is p.empty and p.kind in (
            p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
        self._input_signature = None
        if input_signature is not None:
            self._input_signature = tuple(input_signature)
            self._signature_key = trace_type.spec_key(self._input_signature)
        self._cache: collections.OrderedDict = collections.OrderedDict()
        self._traces: list = []            # (key, ConcreteFunction), newest last
        self._trace_count = 0
        self._consecutive_traces = 0
        self._last_retrace = None
        functools.update_wrapper(self, python_function, updated=())

    # --- calling ------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if config.RUN_EAGERLY or func_graph._STACK and func_graph._STACK[-1] is not None \
                and _tracing_thread == threading.get_ident():
            # Eager debugging, or a call from inside another trace: the body is traced
            # inline into the caller's graph (converted by AutoGraph in the latter case).
            if self._autograph and not config.RUN_EAGERLY:
                return self._traced_python()(*args, **kwargs)
            return self._python_function(*args, **kwargs)
        if self._input_signature is not None:
            flat = self._flat_for_signature(args, kwargs)
            key = self._signature_key
        else:
            if kwargs or not self._simple or len(args) != len(self._arg_names):
                args = self._bind(args, kwargs)
            if all([type(a) is Tensor for a in args]):   # the common case, keyed inline
                flat = args
                key = (tuple, tuple([(trace_type.TENSOR, a._dtype, a._value.shape)
                                     for a in args]))
            else:
                flat = []
                key = trace_type.key_and_flat(args, flat)
        cf = self._cache.get(key)
        if cf is None:
            with _COMPILE_LOCK:
                cf = self._cache.get(key) or self._lookup_or_trace(key, args)
            self._note_call(True)
        elif self._consecutive_traces:
            self._note_call(False)
        return cf._call_flat(flat)

    def _bind(self, args, kwargs) -> tuple:
        try:
            bound = self._sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self._name}(): {e}") from None
        bound.apply_defaults()
        return tuple(bound.arguments[n] if self._sig.parameters[n].kind not in (
            inspect.Parameter.VAR_KEYWORD,) else dict(bound.arguments[n])
            for n in self._arg_names if n in bound.arguments)

    def _traced_python(self):
        """The callable traced: the AutoGraph-converted function when `autograph`."""
        if not self._autograph:
            return self._python_function
        from .autograph.converter import for_tracing
        return for_tracing(self._python_function, self._autograph_features)

    def _call_python(self, args):
        """Call the Python function with the canonical (bound) argument tuple."""
        fn = self._traced_python()
        if self._simple or self._input_signature is not None:
            return fn(*args)  # a signature binds positionally (TF), `*args` included
        pos, kw = [], {}
        for p, v in zip(self._sig.parameters.values(), args):
            if p.kind is p.VAR_POSITIONAL:
                pos.extend(v)
            elif p.kind is p.VAR_KEYWORD:
                kw.update(v)
            elif p.kind is p.KEYWORD_ONLY:
                kw[p.name] = v
            else:
                pos.append(v)
        return fn(*pos, **kw)

    def _lookup_or_trace(self, key, args):
        for k, cf in reversed(self._traces):
            if trace_type.accepts(k, key):
                self._remember(key, cf)
                return cf
        trace_key = key
        if self._reduce_retracing:
            for k, _ in reversed(self._traces):
                r = trace_type.relax(k, key)
                if r is not None:
                    trace_key = r
                    break
        self._explain(key)
        cf = self._trace(args, trace_key)
        self._traces.append((trace_key, cf))
        if len(self._traces) > _MAX_TRACES:
            self._traces.pop(0)
        self._remember(key, cf)
        return cf

    def _remember(self, key, cf):
        self._cache[key] = cf
        if len(self._cache) > _MAX_TRACES:
            self._cache.popitem(last=False)

    def _note_call(self, traced: bool):
        if not traced:
            self._consecutive_traces = 0
            return
        self._consecutive_traces += 1
        if self._consecutive_traces >= _RETRACE_WINDOW and self._trace_count > 1:
            why = f" Last retrace: {self._last_retrace}." if self._last_retrace else ""
            log.warning(
                "%d out of the last %d calls to %s triggered tf.function retracing. Tracing is "
                "expensive; pass tensors (not Python scalars), use input_signature or "
                "reduce_retracing=True, or define the function outside the loop.%s",
                _RETRACE_WINDOW, _RETRACE_WINDOW, self._name, why)
            self._consecutive_traces = 0

    def _explain(self, key):
        if not self._traces:
            self._last_retrace = None
            return
        old = self._traces[-1][0]
        d = trace_type.first_difference(old, key)
        if d is None:
            self._last_retrace = None
            return
        path, a, b = d
        arg = path
        if path.startswith("["):
            idx, _, rest = path[1:].partition("]")
            try:
                arg = repr(self._arg_names[int(idx)]) + rest
            except (ValueError, IndexError):
                pass
        self._last_retrace = (f"argument {arg} changed from {trace_type.describe(a)} to "
                              f"{trace_type.describe(b)}")

    def explain_retrace(self) -> str:
        """Why the latest trace happened (which argument changed, old and new trace type)."""
        if self._trace_count == 0:
            return f"{self._name} has not been traced yet"
        if self._last_retrace is None:
            return f"{self._name} was traced {self._trace_count} time(s); the last trace was " \
                   f"the first for its input types"
        return f"{self._name} retraced: {self._last_retrace}"

    # --- input_signature ------------------------------------------------------------------
    def _flat_for_signature(self, args, kwargs):
        if kwargs:
            args = self._bind(args, kwargs)
        sig = self._input_signature
        if len(args) != len(sig):
            raise TypeError(f"{self._name}() takes {len(sig)} argument(s) under its "
                            f"input_signature, got {len(args)}")
        flat = []
        names = self._arg_names + [f"arg{i}" for i in range(len(self._arg_names), len(sig))]
        for name, spec, value in zip(names, sig, args):
            _match_spec(self._name, name, spec, value, flat)
        return flat

    # --- tracing ----------------------------------------------------------------------------
    def _trace(self, args, key):
        global _tracing_thread
        outer_thread, _tracing_thread = _tracing_thread, threading.get_ident()
        try:
            return self._trace_locked(args, key)
        finally:
            _tracing_thread = outer_thread

    def _trace_locked(self, args, key):
        t0 = time.perf_counter()
        graph, structure, created = self._trace_once(args, key, may_create=not self._trace_count)
        if created:
            # As TF: a trace that created Variables is redone with creation refused, so a body
            # that creates one on every call raises now, while one guarded by
            # `if self.v is None` gets a graph that reads the (lifted) variables.
            graph, structure, _ = self._trace_once(args, key, may_create=False)
        cf = ConcreteFunction(graph, structure, self, key, args)
        cf.timings["trace"] = time.perf_counter() - t0
        if config.LOG_COMPILES:
            log.warning("flowjit: traced %s in %.1f ms (%d nodes)", self._name,
                        cf.timings["trace"] * 1e3, len(graph.nodes))
        return cf

    def _trace_once(self, args, key, may_create):
        """Run the Python body once into a new FuncGraph. Returns the graph, the output
        structure, and how many Variables the body created."""
        graph = func_graph.FuncGraph(self._name)
        graph.jit_compile = bool(self._jit_compile)  # gradients of loops check it
        sym_args = _placeholders(graph, args, key, self._arg_names)
        creator = _VariableCreator(self._name, may_create)
        prev_create = variables._create_hook
        variables._create_hook = creator
        try:
            with func_graph.as_default(graph):
                out = self._call_python(sym_args)
                structure = _outputs(graph, out)
        finally:
            variables._create_hook = prev_create
        self._trace_count += 1
        return graph, structure, creator.created

    # --- public API -------------------------------------------------------------------------
    def get_concrete_function(self, *args, **kwargs) -> "ConcreteFunction":
        """The ConcreteFunction for these arguments (tensors or TensorSpecs), tracing if needed."""
        if self._input_signature is not None:
            if (args or kwargs) and not any(isinstance(a, TensorSpec) for a in
                                            nest.flatten((args, kwargs))):
                self._flat_for_signature(args, kwargs)  # values must fit the signature
            args = self._input_signature
        elif kwargs or not self._simple or len(args) != len(self._arg_names):
            args = self._bind(args, kwargs)
        key = trace_type.spec_key(args)
        cf = self._cache.get(key)
        if cf is None:
            with _COMPILE_LOCK:
                cf = self._cache.get(key) or self._lookup_or_trace(key, args)
        return cf

    def experimental_get_tracing_count(self) -> int:
        return self._trace_count

    def compile_count(self) -> int:
        """Backend compiles (executor plans or XLA executables) over all traces."""
        return sum(cf._compile_count for _, cf in self._traces)

    def pretty_printed_concrete_signatures(self, verbose=True) -> str:
        return "\n\n".join(cf.pretty_printed_signature(verbose) for _, cf in self._traces)

    def clear_cache(self):
        self._cache.clear()
        self._traces.clear()

    def experimental_get_compiler_ir(self, *args, **kwargs):
        """TF's API: `f.experimental_get_compiler_ir(*args)(stage="hlo")`."""
        return self.compiler_ir(*args, **kwargs)

    def compiler_ir(self, *args, **kwargs):
        """Every compiler stage for these arguments (see frontend/compiler_ir.py)."""
        from .compiler_ir import CompilerIR
        cf = self.get_concrete_function(*args, **kwargs)
        values = cf._concrete_values(args, kwargs) if args or kwargs or \
            self._input_signature is None else None
        return CompilerIR(cf, values)

    @property
    def python_function(self):
        return self._python_function

    @property
    def input_signature(self):
        return self._input_signature

    @property
    def function_spec(self):
        return self._sig

    def __get__(self, instance, owner):
        """Methods: one Function per instance (TF keys `self` by identity too)."""
        if instance is None:
            return self
        bound = _BOUND.get((id(self), id(instance)))
        if bound is None or bound[0]() is not instance:
            f = Function(functools.partial(self._python_function, instance), self._name,
                         self._input_signature, self._autograph, self._jit_compile,
                         self._reduce_retracing, self._passes, self._donate_variables,
                         self._autograph_options)
            bound = (weakref.ref(instance), f)
            _BOUND[(id(self), id(instance))] = bound
        return bound[1]

    def __repr__(self):
        return f"<flowjit.Function {self._name}>"


_BOUND: dict = {}


class _VariableCreator:
    """The Variable-creation hook of one trace: creation is lifted out of the graph (the
    initial value is computed eagerly), and refused unless the trace may create (TF's
    singleton-variable rule: only the first trace of a Function creates Variables)."""

    def __init__(self, fname, may_create):
        self._fname = fname
        self._may_create = may_create
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
                value = _evaluate_constant(value)
            return dispatch.convert_to_tensor(value, dtype=dtype)


class ConcreteFunction:
    """One trace: a FuncGraph, its captures and output structure, and its compiled form."""

    def __init__(self, graph, structure, function, key, args):
        self.graph = graph
        self._structure = structure
        self._function = function
        self._key = key
        self._name = function._name if function is not None else graph.name
        self._arg_names = function._arg_names if function is not None else []
        self._args_template = args
        self._captures = [p.attrs["capture"] for p in graph.inputs
                          if p.attrs.get("capture") is not None]
        self._capture_values = [c._handle if hasattr(c, "_handle") else c._value
                                for c in self._captures]
        self._num_args = len(graph.inputs) - len(self._captures)
        self._plan = None
        self._module = None
        self._optimized = None
        self._passes_spec = function._passes if function is not None else None
        self.last_pipeline_report = None
        self._compile_count = 0
        self.timings: dict = {}
        self._jit = bool(function._jit_compile) if function is not None else False
        self._donate = function._donate_variables is not False if function is not None \
            else True
        self._xla_cache: collections.OrderedDict = collections.OrderedDict()
        self._device_captures = None
        self._resizable = [i for i, c in enumerate(self._captures)
                           if hasattr(c, "_handle") and not c.shape.is_fully_defined()]
        self._out_dtypes = [n.out_types[i].dtype for n, i in graph.outputs]
        # Multi-device programs (frontend/dtensor.py, frontend/distribute.py) set a builder
        # of their executables from the lowered module: fn(cf, lowered, values, timings).
        self._executable_builder = None
        call = sharded.sharded_call(self, key)
        if call is not None:
            self._call_xla = call

    # --- lowering ---------------------------------------------------------------------------
    def dataflow_module(self):
        """The df module before passes (imported once)."""
        if self._module is None:
            from ..ir.importer import import_graph
            t0 = time.perf_counter()
            self._module = import_graph(self.graph, self._name)
            self.timings["import"] = time.perf_counter() - t0
        return self._module

    def optimized_module(self):
        """The df module after the pass pipeline (a copy; the dataflow module is kept)."""
        if self._optimized is None:
            module = self.dataflow_module().clone()
            self._optimized = self._optimize(module, self.timings)
        return self._optimized

    def pipeline_report(self, module=None):
        """Run the pipeline on a copy of `module` (default: the dataflow module) recording the
        IR after every pass: the `after:<pass>` stages and `pass_report()` read it."""
        from ..passes.pipeline import run_pipeline
        module = (module or self.dataflow_module()).clone()
        return run_pipeline(module, self._passes_spec, record_ir=True)

    def _build(self):
        from ..lowering.executor import build_plan
        module = self.optimized_module()
        t0 = time.perf_counter()
        self._plan = build_plan(module, self._name)
        self.timings["plan"] = time.perf_counter() - t0
        self._compile_count += 1
        if config.LOG_COMPILES:
            log.warning("flowjit: %s import %.1f ms, plan %.1f ms", self._name,
                        self.timings.get("import", 0) * 1e3, self.timings["plan"] * 1e3)
        if config.dump_dir():
            from .compiler_ir import CompilerIR, dump
            dump(CompilerIR(self), config.dump_dir(), repr(self._key), xla=False)

    # --- XLA ------------------------------------------------------------------------------
    def xla_specialization(self, values):
        """The compiled XLA executable for these argument values (host arrays, device
        buffers, ResourceHandles), compiling on a miss (one per concrete signature)."""
        n = self._num_args
        key = tuple(v.shape for v in values[:n]) + tuple(
            values[n + i].value.shape for i in self._resizable)
        spec = self._xla_cache.get(key)
        if spec is None:
            spec = self._compile_xla(values, key)
        return spec

    def _compile_xla(self, values, key):
        from ..ir.importer import import_graph
        from ..ir.registry import ResourceTT
        from ..ir.specialize import specialize
        from ..lowering.stablehlo import lower_module
        from ..runtime import xla
        timings = {"trace": self.timings.get("trace", 0.0)}
        t0 = time.perf_counter()
        types = []
        for p, v in zip(self.graph.inputs, values):
            tt = p.out_types[0]
            shape = tuple(getattr(v, "value", v).shape)
            types.append(ResourceTT.of(TT(tt.value.dtype, shape)) if isinstance(tt, ResourceTT)
                         else TT(tt.dtype, shape))
        graph = specialize(self.graph, types)
        module = import_graph(graph, self._name)
        t1 = time.perf_counter()
        timings["import"] = t1 - t0
        module = self._optimize(module, timings)
        t2 = time.perf_counter()
        build = self._executable_builder
        lowered = lower_module(module, self._name, donate=self._donate and build is None)
        timings["lowering"] = time.perf_counter() - t2
        exe = xla.build(lowered, timings) if build is None else \
            build(self, lowered, values, timings)
        exe.df_module = module
        exe.lowered = lowered
        self._compile_count += 1
        self._xla_cache[key] = exe
        if len(self._xla_cache) > _MAX_TRACES:
            self._xla_cache.popitem(last=False)
        if config.LOG_COMPILES:
            log.warning("flowjit: XLA compile of %s for %s: %s", self._name, key,
                        ", ".join(f"{k} {v * 1e3:.1f} ms" for k, v in timings.items()))
        if config.dump_dir():
            from .compiler_ir import CompilerIR, dump
            dump(CompilerIR(self, values), config.dump_dir(), repr(key), xla=True)
        return exe

    def _optimize(self, module, timings):
        """Run the pass pipeline (the function's `passes=` spec, else the default schedule)."""
        from ..passes.pipeline import run_pipeline
        t0 = time.perf_counter()
        self.last_pipeline_report = run_pipeline(module, self._passes_spec)
        timings["passes"] = time.perf_counter() - t0
        return module

    # --- calling ----------------------------------------------------------------------------
    def _call_flat(self, flat):
        if dispatch.tape_hook is not None:  # a GradientTape records: let it see the ops
            from .gradients.control_flow import call_under_tape
            out = call_under_tape(self, flat)
            if out is not None:
                return out
        if self._jit:
            return self._call_xla(flat)
        plan = self._plan
        if plan is None:
            with _COMPILE_LOCK:
                if self._plan is None:
                    self._build()
            plan = self._plan
        vals = [t._value for t in flat]
        vals += self._capture_values
        outs = plan.run(vals)
        wrapped = [Tensor._wrap(v, t.dtype) for v, t in zip(outs, plan.out_types)]
        return _rebuild(self._structure, wrapped)

    def _concrete_values(self, args, kwargs):
        """Raw argument values for XLA stages, or None when any argument is symbolic."""
        if self._function is not None and (kwargs or not self._function._simple or
                                           len(args) != len(self._arg_names)):
            args = self._function._bind(args, kwargs)
        flat = []
        try:
            trace_type.key_and_flat(tuple(args), flat)
        except TypeError:
            return None
        if len(flat) != self._num_args:
            return None
        return [t._value for t in flat] + self._capture_values

    def _call_xla(self, flat):
        vals = []
        for t in flat:
            v = t._value
            if type(v) is np.ndarray or isinstance(v, np.generic):
                v = t._value = xla.to_device(v)   # keep the device copy on the Tensor
            vals.append(v)
        key = tuple([v.shape for v in vals])
        caps = self._device_captures
        if caps is None:
            caps = self._device_captures = [c if hasattr(c, "value") else xla.to_device(c)
                                            for c in self._capture_values]
        if self._resizable:  # variables declared with None dims may change shape
            key += tuple([caps[i].value.shape for i in self._resizable])
        exe = self._xla_cache.get(key)
        vals += caps
        if exe is None:
            with _COMPILE_LOCK:
                exe = self._xla_cache.get(key) or self._compile_xla(vals, key)
        outs = exe(vals)
        return _rebuild(self._structure, [Tensor._wrap(v, t)
                                          for v, t in zip(outs, self._out_dtypes)])

    def __call__(self, *args, **kwargs):
        if self._function is not None and (kwargs or len(args) < len(self._arg_names)):
            args = self._bind_call(args, kwargs)
        flat = []
        key = trace_type.key_and_flat(tuple(args), flat)
        if not trace_type.accepts(self._key, key) and len(flat) == self._num_args:
            raise TypeError(f"ConcreteFunction {self._name} was traced for "
                            f"{trace_type.describe(self._key)}, called with "
                            f"{trace_type.describe(key)}")
        if len(flat) != self._num_args:
            raise TypeError(f"ConcreteFunction {self._name} takes {self._num_args} tensor "
                            f"argument(s), got {len(flat)}")
        return self._call_flat(flat)

    def _bind_call(self, args, kwargs) -> tuple:
        """The full argument tuple of a call: as TF, the Python (non-tensor) values given to
        `get_concrete_function` stay bound, so `cf(x)` works for `(a=TensorSpec, b=2)`."""
        fn = self._function
        try:
            given = fn._sig.bind_partial(*args, **kwargs).arguments
        except TypeError as e:
            raise TypeError(f"ConcreteFunction {self._name}: {e}") from None
        for name, value in zip(self._arg_names, self._args_template):
            if name not in given and _is_python_value(value):
                given[name] = value
        return fn._bind((), given)

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
        return _rebuild(self._structure, self.outputs)

    @property
    def structured_input_signature(self):
        """(positional specs, {keyword-only name: spec}); Python values stay values (TF)."""
        specs = _specs_of(self._key, self._arg_names)
        params = list(self._function._sig.parameters.values()) if self._function else []
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
        sig = self._function._sig if self._function else inspect.Signature(
            [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD)
             for n in self._arg_names])
        return function_type.build(sig, self._key, self._structure, self.outputs,
                                   self._captures)

    @property
    def captured_inputs(self):
        return list(self._captures)

    @property
    def variables(self):
        return [c for c in self._captures if hasattr(c, "_handle")]

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


# --- helpers --------------------------------------------------------------------------------
def _match_spec(fname, argname, spec, value, flat):
    """Check `value` against `spec` (nested) and collect its tensors, converting Python values
    to the spec's dtype as TF does."""
    if isinstance(spec, TensorSpec):
        if hasattr(value, "_as_tensor") and not isinstance(value, Tensor):
            value = value._as_tensor()
        try:
            t = dispatch.convert_to_tensor(value, dtype=spec.dtype)
        except (TypeError, ValueError):
            got = TensorSpec(value.shape, value.dtype) if isinstance(value, Tensor) else value
            raise _binding_error(fname, argname, got, spec) from None
        if not spec.shape.is_compatible_with(t.shape):
            raise _binding_error(fname, argname, TensorSpec(t.shape, t.dtype), spec)
        flat.append(t)
        return
    if isinstance(spec, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(spec):
            raise TypeError(f"{fname}(): argument '{argname}' must be a sequence of "
                            f"{len(spec)} matching {spec}, got {value!r}")
        for i, (s, v) in enumerate(zip(spec, value)):
            _match_spec(fname, f"{argname}[{i}]", s, v, flat)
        return
    if isinstance(spec, dict):
        if not isinstance(value, dict) or set(value) != set(spec):
            raise TypeError(f"{fname}(): argument '{argname}' must be a dict with keys "
                            f"{sorted(spec)}")
        for k in sorted(spec, key=repr):
            _match_spec(fname, f"{argname}[{k!r}]", spec[k], value[k], flat)
        return
    raise TypeError(f"{fname}(): input_signature entries must be TensorSpecs (or nests of "
                    f"them), got {spec!r}")


def _binding_error(fname, argname, got, spec) -> TypeError:
    """TF's error (class and leading text) for an argument its input_signature rejects."""
    return TypeError(f"Binding inputs to tf.function failed due to `Can not cast {got!r} to "
                     f"{spec!r}`: argument '{argname}' of {fname}() [at {errors.user_frame()}]")


def _placeholders(graph, args, key, names):
    """Symbolic arguments: each tensor leaf of the trace type becomes a placeholder."""
    def build(value, k, name):
        if k[0] == trace_type.TENSOR:
            return graph.placeholder(TT(k[1], k[2]), name=name)
        if trace_type._is_container(k):
            kind = k[0]
            if isinstance(kind, tuple):  # dict
                return {kk: build(value[kk] if isinstance(value, dict) else None, c,
                                  f"{name}_{kk}") for kk, c in zip(kind[1], k[1])}
            vals = list(value) if isinstance(value, (list, tuple)) else [None] * len(k[1])
            items = [build(v, c, f"{name}_{i}") for i, (v, c) in enumerate(zip(vals, k[1]))]
            if kind is list:
                return items
            if kind is tuple:
                return tuple(items)
            return kind(*items)
        if isinstance(value, TensorSpec):
            return graph.placeholder(TT(value.dtype, value.shape.as_tuple()), name=name)
        if k[0] == trace_type.USER:  # the body sees what the object's trace type gives
            return k[1].placeholder_value(None)
        return value
    return tuple(build(v, k, n) for v, k, n in zip(args, key[1], names + [
        f"arg{i}" for i in range(len(names), len(args))]))


def _outputs(graph, out):
    """The output structure: tensors become graph outputs (by index), the rest stays."""
    def walk(v):
        if hasattr(v, "_as_tensor") and not isinstance(v, Tensor):
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


def _rebuild(structure, outs):
    tag = structure[0]
    if tag == "out":
        return outs[structure[1]]
    if tag == "py":
        return structure[1]
    _, template, kind, items = structure
    return nest.rebuild(template, kind, [_rebuild(s, outs) for s in items])


def _is_python_value(value) -> bool:
    """True for an argument that holds no tensor or spec (get_concrete_function binds it)."""
    return not any(isinstance(v, (Tensor, TensorSpec, np.ndarray)) for v in nest.flatten(value))


def _ph_tensor(graph, node):
    return func_graph.GraphTensor(graph, node, 0, node.out_types[0])


def _specs_of(key, names):
    def spec(k, name):
        if k[0] == trace_type.TENSOR:
            from ..ir.shapes import TensorShape
            return TensorSpec(TensorShape.from_tuple(k[2]) if k[2] is not None
                              else TensorShape(None), k[1], name)
        if trace_type._is_container(k):
            kind = k[0]
            if isinstance(kind, tuple):
                return {kk: spec(c, f"{name}_{kk}") for kk, c in zip(kind[1], k[1])}
            items = [spec(c, f"{name}_{i}") for i, c in enumerate(k[1])]
            if kind is list:
                return items
            return tuple(items) if kind is tuple else kind(*items)
        return k[1] if isinstance(k[0], type) else k
    return tuple(spec(k, n) for k, n in zip(key[1], names + [
        f"arg{i}" for i in range(len(names), len(key[1]))]))


def _evaluate_constant(t):
    """Evaluate a symbolic tensor that depends on no placeholder (a Variable's initial value
    computed inside a trace), by running its nodes' kernels eagerly."""
    from ..runtime.kernels import KERNELS
    memo = {}

    def value(node, idx):
        if node not in memo:
            if node.op == "placeholder" or node.op in ("cond", "case", "while") or node.stateful:
                raise ValueError(
                    f"A Variable's initial value created inside a tf.function must not depend "
                    f"on function inputs or state (it needs {node.name}); create the "
                    f"Variable outside the function [at {errors.user_frame()}]")
            ins = [value(n, i) for n, i in node.inputs]
            r = KERNELS[node.op](*ins, **node.attrs)
            memo[node] = r if len(node.out_types) != 1 else (r,)
        return memo[node][idx]
    return Tensor._wrap(value(t._node, t._index), t._dtype)
