"""A user function that returns a dataset (`interleave`, `flat_map`), traced once as TF does.

TF traces such a function into a graph whose dataset ops take tensors computed from the
element, so the function's Python runs once and its `tf.print`s run per element. flowjit's
datasets are Python objects built from host values, so the trace here records how the
returned dataset is built instead of building it from the element:

- the function runs once on symbolic inputs (its graph computes the tensors it derives from
  the element); a dataset component of the element (`window`'s) is a stand-in dataset;
- while it runs, every construction of one of flowjit's dataset classes whose arguments hold
  one of those symbolic tensors, or a dataset built from them, is recorded as a recipe
  (the class, its arguments with those values as references) and built from placeholder
  values, so the returned dataset has an `element_spec`; constructions that do not depend
  on the element are built once and shared by every element, as TF's constant datasets;
- per element, the graph runs on the element's tensors and the recipes are built again with
  its results (an element's own dataset components in place of their stand-ins). Functions
  traced inside a recorded construction (a `map` of the returned dataset) are traced once
  too: the rebuilt `map` takes the trace made for the same function and element spec. One
  that reads the element's tensors (a `map` whose function uses them) is traced with
  placeholders for them (the context's `foreign_capture`), and again per element with
  their values.

A function the trace cannot follow (Python control flow on the element's values, a dataset
argument read as a Python value) runs eagerly per element instead (`eager_fallback`).
"""
from __future__ import annotations

import contextlib
import threading

import numpy as np

from ...ir import dtypes as D
from .. import nest
from ..autograph import converter
from ..function.context import context
from ..function.func_graph import GraphTensor, init_scope
from ..function.function import Function, function
from ..function.specs import TensorSpec
from . import structure
from .functions import (call_eagerly, call_user, collecting_traces, keep_trace,
                        reused_trace, reusing_traces, run_on_host)

_STATE = threading.local()   # .recorder: the recording trace (None inside a construction)
_OWN_PACKAGE = __name__.split(".")[0]


class RecordedConstruction(type):
    """The metaclass of `tf.data.Dataset`: while a dataset function is traced, a
    construction that depends on the element is recorded (see the module docstring)."""

    def __call__(cls, *args, **kwargs):
        recorder = getattr(_STATE, "recorder", None)
        if recorder is None or not cls.__module__.startswith(_OWN_PACKAGE + "."):
            # a user's subclass (TF's guides build datasets in `__new__`) is transparent:
            # the flowjit constructions inside it are the ones recorded
            return super().__call__(*args, **kwargs)
        template, dependent = recorder.template((args, kwargs))
        with recorder.constructing() as captured:
            if dependent:
                args, kwargs = recorder.placeholders(template)
            built = super().__call__(*args, **kwargs)
        if dependent or captured:
            built._recipe = (cls, template, captured)
        return built


class _TensorRef:
    def __init__(self, index):
        self.index = index


class _DatasetRef:
    def __init__(self, dataset):
        self.dataset = dataset


class _Recorder:
    """What one trace records: the symbolic tensors dataset constructions read."""

    def __init__(self, graph):
        self.graph = graph
        self.tensors: list = []
        self._positions: dict = {}
        self._captured = None   # the references a construction in progress captured

    @contextlib.contextmanager
    def constructing(self):
        """A recorded construction (nested ones are plain): yields the list of references
        that functions traced inside it capture (the element's tensors they read)."""
        _STATE.recorder, self._captured = None, []
        try:
            yield self._captured
        finally:
            _STATE.recorder, self._captured = self, None

    def capture(self, t):
        """A function traced inside a construction reads `t`: a placeholder value, and the
        construction records that it depends on `t` (None when `t` is not this trace's)."""
        if self._captured is None or t.graph is not self.graph:
            return None
        ref, _ = self.template(t)
        self._captured.append(ref)
        return self._placeholder(ref)

    def template(self, value):
        """`value` with this trace's tensors and dependent datasets as references, and
        whether it holds any."""
        if isinstance(value, GraphTensor) and value.graph is self.graph:
            key = id(value)
            if key not in self._positions:
                self._positions[key] = len(self.tensors)
                self.tensors.append(value)
            return _TensorRef(self._positions[key]), True
        if hasattr(value, "_recipe"):
            return _DatasetRef(value), True
        if isinstance(value, (tuple, list, dict)):
            items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
            parts = [self.template(v) for _, v in items]
            if not any(d for _, d in parts):
                return value, False
            filled = [t for t, _ in parts]
            if isinstance(value, dict):
                return type(value)(zip([k for k, _ in items], filled)), True
            return _rebuilt_sequence(value, filled), True
        return value, False

    def placeholders(self, template):
        """The template's arguments with a placeholder for each reference: ones of the
        tensor's static shape (unknown dims 1), so sizes and counts pass their checks."""
        return _filled(template, self._placeholder, lambda ref: ref.dataset)

    def _placeholder(self, ref):
        t = self.tensors[ref.index]
        shape = [] if t.shape.rank is None else [d or 1 for d in t.shape.as_list()]
        if t.dtype is D.string:
            return structure.host(np.full(shape, b"", object))
        return structure.host(np.ones(shape, t.dtype.np))


def _rebuilt_sequence(value, items):
    if hasattr(value, "_fields"):   # a namedtuple
        return type(value)(*items)
    return type(value)(items)


def _filled(template, tensor_of, dataset_of):
    if isinstance(template, _TensorRef):
        return tensor_of(template)
    if isinstance(template, _DatasetRef):
        return dataset_of(template)
    if isinstance(template, dict):
        return type(template)((k, _filled(v, tensor_of, dataset_of))
                              for k, v in template.items())
    if isinstance(template, (tuple, list)):
        return _rebuilt_sequence(template, [_filled(v, tensor_of, dataset_of)
                                            for v in template])
    return template


class DatasetFunction:
    """`func` (returning a dataset) traced once for elements of `element_spec`;
    `output_spec` is the returned dataset's element spec; calling it on an element's
    components returns that element's dataset."""

    def __init__(self, func, element_spec, what):
        key, reused = reused_trace(func, element_spec, what)
        if reused is not None:
            self.__dict__.update(reused.__dict__)
            return
        self._func, self._in_spec, self._what = func, element_spec, what
        self._flat_in = structure.flat_specs(element_spec)
        self.eager_fallback = False
        try:
            self._trace()
        except Exception:   # noqa: BLE001 - the function runs eagerly per element instead
            self.eager_fallback = True
            with init_scope():   # a probe for the element spec, on a placeholder element
                self._result = self._eager(structure.zeros(self._flat_in))
        self.output_spec = self._result.element_spec
        keep_trace(key, self)

    def _eager(self, components):
        return as_dataset(call_eagerly(self._func, self._in_spec, components), self._what)

    def _trace(self):
        func = self._func
        user = func if isinstance(func, Function) else (converter.convert(func) or func)
        tensor_specs = [s for s in self._flat_in if isinstance(s, TensorSpec)]
        box, traces = [], {}

        def traced(*flat):
            inputs, it = [], iter(flat)
            for k, s in enumerate(self._flat_in):
                if isinstance(s, TensorSpec):
                    inputs.append(next(it))
                else:
                    stand_in = structure.DATASET_CLASSES["Materialized"](s.element_spec, [])
                    stand_in._recipe = ("input", k)
                    inputs.append(stand_in)
            recorder = _Recorder(context().graphs[-1])
            outer = getattr(_STATE, "recorder", None)
            _STATE.recorder = recorder
            try:
                with collecting_traces(traces), _foreign_captures(recorder.capture):
                    result = call_user(user, nest.pack_sequence_as(self._in_spec, inputs))
            finally:
                _STATE.recorder = outer
            box.append((as_dataset(result, self._what), recorder.tensors))
            return list(recorder.tensors)

        traced.__name__ = f"{self._what}_{getattr(func, '__name__', 'fn')}"
        concrete = function(traced, autograph=False, input_signature=[
            TensorSpec(s.shape, s.dtype) for s in tensor_specs]).get_concrete_function()
        (self._result, self._symbolic), self._traces = box[-1], traces
        self._concrete = concrete

    def __call__(self, components):
        if self.eager_fallback:
            return self._eager(components)
        tensors = [c for c, s in zip(components, self._flat_in) if isinstance(s, TensorSpec)]
        values = [structure.host(v) for v in run_on_host(self._concrete, tensors)]
        built = {}
        by_symbol = {id(t): v for t, v in zip(self._symbolic, values)}

        def rebuild(dataset):
            recipe = getattr(dataset, "_recipe", None)
            if recipe is None:
                return dataset
            if id(dataset) not in built:
                if recipe[0] == "input":
                    built[id(dataset)] = components[recipe[1]]
                    return built[id(dataset)]
                cls, template, captured = recipe
                args, kwargs = _filled(template, lambda ref: values[ref.index],
                                       lambda ref: rebuild(ref.dataset))
                # a function capturing the element's tensors is traced again with their
                # values (its trace holds the placeholders it was traced with)
                with reusing_traces({} if captured else self._traces):
                    built[id(dataset)] = cls(*args, **kwargs)
            return built[id(dataset)]

        with _foreign_captures(lambda t: by_symbol.get(id(t))):
            return rebuild(self._result)


@contextlib.contextmanager
def _foreign_captures(hook):
    ctx = context()
    previous, ctx.foreign_capture = ctx.foreign_capture, hook
    try:
        yield
    finally:
        ctx.foreign_capture = previous


def as_dataset(value, what):
    if not isinstance(value, structure.DATASET_CLASSES["Dataset"]):
        raise TypeError(f"The `map_func` argument of `{what}` must return a `Dataset` object. "
                        f"Got {type(value)!r}")
    return value
