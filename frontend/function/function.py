"""`function` and `Function`: the polymorphic cache and the decision to trace.

A call computes the arguments' trace type (`trace_type.py`) and looks it up; a miss (or a
retrace) traces the Python function (`tracing.py`) into a `ConcreteFunction`
(`concrete_function.py`), which compiles on its first call (`compilation.py`) and runs
(`function_call.py`).
"""
from __future__ import annotations

import collections
import functools
import inspect
import logging
import weakref

from . import compiler_ir, retracing, trace_type, tracing, warm_start
from ..eager import config
from .. import nest, summary
from ..autograph import converter as autograph_converter, features as autograph_features
from .concrete_function import ConcreteFunction
from .function_call import call_flat, match_spec
from .specs import TensorSpec
from ..eager.tensor import Tensor
from .context import COMPILE_LOCK, context

log = logging.getLogger("flowjit")
_CTX = context()

_MAX_TRACES = 64          # a Function keeps at most this many concrete functions (LRU)
__all__ = ["function", "Function", "ConcreteFunction"]


def function(func=None, *, input_signature=None, autograph=True, jit_compile=None,
             reduce_retracing=False, experimental_implements=None,
             experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None,
             experimental_follow_type_hints=None, name=None, passes=None,
             donate_variables=None, strict_retracing=None):
    """TF's `tf.function`, as a decorator with or without arguments. Extensions: `passes`,
    `donate_variables`, and `strict_retracing` (raise `RetracingError` instead of tracing a
    second time; None follows `config.experimental.set_strict_retracing`)."""
    if experimental_relax_shapes is not None:
        reduce_retracing = reduce_retracing or experimental_relax_shapes
    if experimental_compile is not None and jit_compile is None:
        jit_compile = experimental_compile

    def wrap(f):
        return Function(f, name=name or getattr(f, "__name__", "function"),
                        input_signature=input_signature, autograph=autograph,
                        jit_compile=jit_compile, reduce_retracing=reduce_retracing,
                        passes=passes, donate_variables=donate_variables,
                        autograph_options=experimental_autograph_options,
                        strict_retracing=strict_retracing)
    return wrap if func is None else wrap(func)


class Function:
    """A polymorphic traced function: one ConcreteFunction per trace type."""

    def __init__(self, python_function, name, input_signature=None, autograph=True,
                 jit_compile=None, reduce_retracing=False, passes=None, donate_variables=None,
                 autograph_options=None, strict_retracing=None):
        self._python_function = python_function
        self._name = name
        self._autograph = autograph
        self._autograph_options = autograph_options
        self._autograph_features = autograph_features.resolve(autograph_options)
        self._jit_compile = jit_compile
        self._reduce_retracing = reduce_retracing
        self._passes = passes
        self._donate_variables = donate_variables
        self._strict_retracing = strict_retracing
        self._call_stats = retracing.stats_for(python_function)
        self._sig = inspect.signature(python_function)
        params = list(self._sig.parameters.values())
        self._arg_names = [p.name for p in params]
        self._simple = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                           for p in params)
        # a call with this many positional arguments binds them as given (-1: never)
        self._positional_arity = len(params) if self._simple else -1
        self._n_required = sum(1 for p in params if p.default is p.empty and p.kind in (
            p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
        self._input_signature = None
        if input_signature is not None:
            self._input_signature = tuple(input_signature)
            self._signature_key = trace_type.spec_key(self._input_signature)
        self._cache: collections.OrderedDict = collections.OrderedDict()
        self._traces: list = []            # (key, ConcreteFunction), newest last
        self._trace_count = 0
        self._last_retrace = None
        self._warm: dict = {}              # (trace type, shapes) -> a compilation-cache hit
        self._warm_keys: dict = {}         # trace type -> its compilation-cache key
        functools.update_wrapper(self, python_function, updated=())

    # --- calling ------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        graphs = _CTX.graphs
        if config.RUN_EAGERLY or graphs and graphs[-1] is not None:
            # Eager debugging, or a call from inside another trace: the body is traced
            # inline into the caller's graph (converted by AutoGraph in the latter case).
            if self._autograph and not config.RUN_EAGERLY:
                return self._traced_python()(*args, **kwargs)
            return self._python_function(*args, **kwargs)
        if self._input_signature is not None:
            flat = self._flat_for_signature(args, kwargs)
            return call_flat(self._concrete_for(self._signature_key, args, flat), flat)
        else:
            if kwargs or len(args) != self._positional_arity:
                args = self.bind(args, kwargs)
            # The common case, tensors only: the cache also holds the call's plain key,
            # (dtype name, shape) per argument, so a cached call builds no trace type. A
            # plain loop: a comprehension is one more Python frame per call.
            plain = []
            for a in args:
                if type(a) is not Tensor:
                    break
                plain.append((a._dtype.name, a._value.shape))
            else:
                plain = tuple(plain)
                cf = self._cache.get(plain)
                if cf is None:   # the trace type from the one function that builds it
                    cf = self._concrete_for(trace_type.key_and_flat(args, []), args)
                    if type(cf) is not warm_start.WarmStart:   # a hit is not for tapes
                        self._remember(plain, cf)
                else:
                    self._call_stats.untraced += 1
                if _CTX.tape_hook is None:
                    return cf.program.call(args)
                return call_flat(cf, args)
            flat = []
            key = trace_type.key_and_flat(args, flat)
        return call_flat(self._concrete_for(key, args), flat)

    def _concrete_for(self, key, args, flat=None):
        """The ConcreteFunction for the trace type `key`, tracing on a miss. `flat`: the
        call's tensors, whose shapes pick the compilation-cache entry of a `None`-dim `key`."""
        cf = self._cache.get(key)
        if cf is None and self._jit_compile and warm_start.compilation_cache_dir():
            cf = self._warm_start(key, flat)
        if cf is None:
            traces = self._trace_count
            with COMPILE_LOCK:
                cf = self._cache.get(key) or self._lookup_or_trace(key, args)
            if self._trace_count == traces:
                self._call_stats.untraced += 1
            else:
                self._warn_if_frequent()
        else:
            self._call_stats.untraced += 1
        return cf

    def _warm_start(self, key, flat=None):
        """A compilation-cache hit for trace type `key` and the shapes of the call's tensors
        `flat` (warm_start.py), or None."""
        if _CTX.tape_hook is not None:    # a tape needs the trace
            return None
        if key not in self._warm_keys:
            # keyed before any trace: tracing may change what the key reads
            self._warm_keys[key] = warm_start.key_for(self, key)
        shapes = None if flat is None else tuple(tuple(t.shape) for t in flat)
        if (key, shapes) not in self._warm:
            self._warm[key, shapes] = warm_start.lookup(self, self._warm_keys[key], shapes)
        return self._warm[key, shapes]

    def bind(self, args, kwargs) -> tuple:
        """The canonical argument tuple of a call: one entry per parameter, defaults applied."""
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
        return autograph_converter.for_tracing(self._python_function,
                                               self._autograph_features)

    def call_python(self, args):
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
        self._last_retrace = retracing.explain([k for k, _ in self._traces], key,
                                               self._arg_names)
        strict = self._strict_retracing
        if self._traces and (retracing.get_strict_retracing() if strict is None else strict):
            raise retracing.RetracingError(
                f"{self._name} would retrace under strict retracing: {self._last_retrace}")
        cf = tracing.trace(self, args, trace_key)
        if key in self._warm_keys:
            warm_start.note_trace(cf, self._warm_keys[key])
        if summary.tracing_requested():
            summary.record_traced_graph(self._name, cf.graph)
        self._traces.append((trace_key, cf))
        if len(self._traces) > _MAX_TRACES:
            self._traces.pop(0)
        self._remember(key, cf)
        return cf

    def _remember(self, key, cf):
        self._cache[key] = cf
        if len(self._cache) > _MAX_TRACES:
            self._cache.popitem(last=False)

    def _warn_if_frequent(self):
        """TF's frequent-retracing warning, with why the latest call traced."""
        counts = self._call_stats.traced()
        if counts is not None:
            log.warning("%s", retracing.warning_text(repr(self._python_function), *counts,
                                                     self._last_retrace))

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
            args = self.bind(args, kwargs)
        sig = self._input_signature
        if len(args) != len(sig):
            raise TypeError(f"{self._name}() takes {len(sig)} argument(s) under its "
                            f"input_signature, got {len(args)}")
        flat = []
        names = self._arg_names + [f"arg{i}" for i in range(len(self._arg_names), len(sig))]
        for name, spec, value in zip(names, sig, args):
            match_spec(self._name, name, spec, value, flat)
        return flat

    # --- public API -------------------------------------------------------------------------
    def get_concrete_function(self, *args, **kwargs) -> "ConcreteFunction":
        """The ConcreteFunction for these arguments (tensors or TensorSpecs), tracing if needed."""
        if self._input_signature is not None:
            if (args or kwargs) and not any(isinstance(a, TensorSpec) for a in
                                            nest.flatten((args, kwargs))):
                self._flat_for_signature(args, kwargs)  # values must fit the signature
            args = self._input_signature
        elif kwargs or not self._simple or len(args) != len(self._arg_names):
            args = self.bind(args, kwargs)
        key = trace_type.spec_key(args)
        cf = self._cache.get(key)
        if cf is None:
            with COMPILE_LOCK:
                cf = self._cache.get(key) or self._lookup_or_trace(key, args)
        return cf

    def experimental_get_tracing_count(self) -> int:
        return self._trace_count

    def compile_count(self) -> int:
        """Backend compiles (executor plans or XLA executables) over all traces."""
        return sum(cf.program.compiles for _, cf in self._traces)

    def pretty_printed_concrete_signatures(self, verbose=True) -> str:
        return "\n\n".join(cf.pretty_printed_signature(verbose) for _, cf in self._traces)

    def clear_cache(self):
        self._cache.clear()
        self._warm.clear()
        self._warm_keys.clear()
        self._traces.clear()

    def experimental_get_compiler_ir(self, *args, **kwargs):
        """TF's API: `f.experimental_get_compiler_ir(*args)(stage="hlo")`."""
        return self.compiler_ir(*args, **kwargs)

    def compiler_ir(self, *args, **kwargs):
        """Every compiler stage for these arguments (see frontend/function/compiler_ir.py)."""
        cf = self.get_concrete_function(*args, **kwargs)
        values = cf.concrete_values(args, kwargs) if args or kwargs or \
            self._input_signature is None else None
        return compiler_ir.CompilerIR(cf, values)

    @property
    def python_function(self):
        return self._python_function

    @property
    def input_signature(self):
        return self._input_signature

    @property
    def function_spec(self):
        return self._sig

    # --- what tracing and the ConcreteFunctions read -------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def arg_names(self) -> list:
        return self._arg_names

    @property
    def positional_only_call(self) -> bool:
        """True when every parameter is positional (a call's tuple needs no binding)."""
        return self._simple

    @property
    def jit_compile(self):
        return self._jit_compile

    @property
    def passes(self):
        return self._passes

    @property
    def autograph(self):
        """Whether AutoGraph converts the body, and with which optional features."""
        return self._autograph, self._autograph_features

    @property
    def donate_variables(self):
        return self._donate_variables

    def count_trace(self):
        """One more trace of the Python function (tracing.py)."""
        self._trace_count += 1

    def _list_all_concrete_functions(self) -> list:
        """The ConcreteFunctions kept, oldest first."""
        return [cf for _, cf in self._traces]

    def __get__(self, instance, owner):
        """Methods: one Function per instance (TF keys `self` by identity too)."""
        if instance is None:
            return self
        bound = _BOUND.get((id(self), id(instance)))
        if bound is None or bound[0]() is not instance:
            f = Function(functools.partial(self._python_function, instance), self._name,
                         self._input_signature, self._autograph, self._jit_compile,
                         self._reduce_retracing, self._passes, self._donate_variables,
                         self._autograph_options, self._strict_retracing)
            bound = (weakref.ref(instance), f)
            _BOUND[(id(self), id(instance))] = bound
        return bound[1]

    def __repr__(self):
        return f"<flowjit.Function {self._name}>"


_BOUND: dict = {}


autograph_converter.register_tracing_type(Function)
