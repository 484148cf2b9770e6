"""A user function of a transformation (`map`, `filter`, `scan`, ...), traced once as TF does.

TF traces a transformation's function into a graph when the transformation is built, with
the element's specs as its signature: Python side effects run once, `tf.print` runs per
element. Here the function is converted by AutoGraph, traced into a ConcreteFunction with the
element's flat specs, and run per element on the graph executor. As TF, an element that is a
tuple is passed as positional arguments, anything else as one argument. A SparseTensor or
RaggedTensor leaf enters as that composite (its spec in the signature) and runs as its arrays
(composites.py).
"""
from __future__ import annotations

import contextlib
import threading

from .. import nest
from ..autograph import converter
from ..eager.dispatch import convert_to_tensor
from ..function.function import Function, function
from ..eager.tensor import Tensor
from . import composites, structure


def call_user(func, element):
    if isinstance(element, tuple) and not hasattr(element, "_fields"):
        return func(*element)
    return func(element)


def _as_output(value):
    """A result leaf as a Tensor; a list is a tensor in tf.data (as in its inputs)."""
    if composites.value_rule(value) is not None:
        return value
    if isinstance(value, list) or not nest.is_nested(value):
        return value if isinstance(value, Tensor) or hasattr(value, "_node") \
            else convert_to_tensor(value)
    kind = nest.kind_of(value)
    return nest.rebuild(value, kind, [_as_output(c) for c in nest.children(value, kind)])


# Traces shared with datasets rebuilt per element from a traced dataset function
# (dataset_functions.py): `.collect` gathers the traces made while it is traced, `.reuse`
# hands them to the rebuilt transformations, so each function is traced once.
_SHARED = threading.local()


@contextlib.contextmanager
def _shared(field, traces):
    previous = getattr(_SHARED, field, None)
    setattr(_SHARED, field, traces)
    try:
        yield
    finally:
        setattr(_SHARED, field, previous)


def collecting_traces(traces: dict):
    return _shared("collect", traces)


def reusing_traces(traces: dict):
    return _shared("reuse", traces)


def reused_trace(func, element_spec, what):
    """(the key of a trace of `func` for `element_spec`, the trace made for it while the
    dataset function being rebuilt was traced, or None)."""
    key = (id(func), repr(element_spec), what)
    return key, (getattr(_SHARED, "reuse", None) or {}).get(key)


def keep_trace(key, traced):
    """Keep a trace made while a dataset function is traced, for its rebuilt datasets."""
    collected = getattr(_SHARED, "collect", None)
    if collected is not None:
        collected[key] = traced


class TracedFunction:
    """`func` traced for elements of `element_spec`; `output_spec` is what it returns."""

    def __init__(self, func, element_spec, what="map"):
        if not callable(func):
            raise TypeError(f"`{what}` expects a callable, got {func!r}")
        key, reused = reused_trace(func, element_spec, what)
        if reused is not None:
            self.__dict__.update(reused.__dict__)
            return
        user = func if isinstance(func, Function) else (converter.convert(func) or func)
        self._in_spec = element_spec
        flat_in = structure.flat_specs(element_spec)
        out_box = []

        def traced(*flat):
            element = nest.pack_sequence_as(element_spec, list(flat))
            result = call_user(user, element)
            # as TF, a returned list is a tuple at the top (the results of a
            # py_function/numpy_function, not one tensor to stack); nested lists are tensors
            out = _as_output(tuple(result) if isinstance(result, list) else result)
            out_box.append(out)
            return nest.flatten(out)

        traced.__name__ = f"{what}_{getattr(func, '__name__', 'fn')}"
        self._fn = function(traced, autograph=False,
                            input_signature=[composites.rule(s).signature_spec(s)
                                             for s in flat_in])
        self._concrete = self._fn.get_concrete_function()
        out = out_box[-1]
        self.output_spec = structure.map_leaves(structure.spec_of, out)
        flat_out = structure.flat_specs(self.output_spec)
        self._in_specs = flat_in if composites.has_composites(flat_in) else None
        self._out_specs = flat_out if composites.has_composites(flat_out) else None
        keep_trace(key, self)

    def __call__(self, components):
        """Run on one element's components; returns the result's components.

        The graph executor's plan runs on the arrays themselves: the arguments fit the
        signature by construction, and an input pipeline is never recorded by a
        GradientTape (as TF's dataset ops are not)."""
        args = list(components) if self._in_specs is None else \
            composites.expand(self._in_specs, components)
        outs = run_on_host(self._concrete, args)
        return tuple(outs) if self._out_specs is None else \
            composites.collapse(self._out_specs, outs)


def run_on_host(concrete, inputs):
    """`concrete`'s graph run on the executor's plan with `inputs` (arrays that fit its
    signature) and its captures; its results as arrays."""
    program = concrete.program
    plan = program.fast_executable
    if plan is None:
        plan = program.fast_executable = program.executable(())
    return plan.run(inputs + concrete.capture_values)


def call_eagerly(func, element_spec, components):
    """`func` on one element as eager Tensors (a dataset function the trace cannot follow)."""
    return call_user(func, structure.to_tensors(element_spec, components))
