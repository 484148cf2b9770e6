"""Iterators over datasets: eager (`iter(ds)`), inside `tf.function`, and checkpointed.

Eagerly an `Iterator` pulls flat components from its dataset's Python iterator. Inside a
traced function an iterator is a stateful resource reached through host-callback ops
(`numpy_function`, ordered with the other stateful ops by tokens): `next(it)` /
`it.get_next()` / `get_next_as_optional()` each become one pull op. A dataset iterated in a
traced function gets an iterator created when the function runs (a make op yielding an int64
handle), so every call starts from the first element, as TF's. AutoGraph stages `for x in
ds` / `for x in it` as TF does: a while loop carrying a "has next" flag, the body pulling an
optional and running the user's body under a cond on it. Under `jit_compile=True` the pull
ops are refused while tracing (TF: the iterator ops have no XLA kernel).

A checkpoint saves an iterator's position as its seeds and the number of elements consumed
(JSON bytes in one uint8 variable); restoring replays the pipeline to that position, which
reproduces shuffle buffers exactly because every random choice follows from the seeds.
"""
from __future__ import annotations

import itertools
import json
import threading

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ..function import func_graph
from .. import nest
from ..eager.dispatch import convert_to_tensor
from ..function.type_spec import TypeSpec
from ..export import tf_export
from . import composites, structure
from .context import IteratorContext
from .functions import TracedFunction

_END = "End of sequence"


# --- host side --------------------------------------------------------------------------------
class _HostIterator:
    """The Python side of one iterator: a context, the components iterator and a count."""

    def __init__(self, dataset, seed=None, index=None, consumed=0):
        if index is None:
            index = next(_iterator_counter(dataset))
        self.dataset = dataset
        self.ctx = IteratorContext(seed, index)
        options = dataset.options()
        for flag in (options.deterministic, options.experimental_deterministic):
            if flag is not None:
                self.ctx.deterministic = bool(flag)
                break
        self.source = dataset._components(self.ctx)
        self.consumed = 0
        self.lock = threading.Lock()
        for _ in range(consumed):
            if self.pull() is None:
                break

    def pull(self):
        """The next flat components, or None at the end."""
        with self.lock:
            c = next(self.source, None)
            if c is not None:
                self.consumed += 1
            return c

    def state(self) -> dict:
        return dict(self.ctx.state(), consumed=self.consumed)


def _iterator_counter(dataset):
    counter = getattr(dataset, "_iterator_counter", None)
    if counter is None:
        counter = dataset._iterator_counter = itertools.count()
    return counter


# Handles of iterators created by a running traced function.
_HANDLES: dict[int, _HostIterator] = {}
_NEXT_HANDLE = itertools.count(1)


# --- staged pulls ---------------------------------------------------------------------------------
def _check_not_xla():
    from ..control.control_flow import root_graph
    g = func_graph.current()
    if g is not None and getattr(root_graph(g), "jit_compile", False):
        raise errors.InvalidArgumentError(
            None, "IteratorGetNext",
            "Detected unsupported operations when trying to compile graph with "
            "jit_compile=True: IteratorGetNext (No registered 'IteratorGetNext' OpKernel for "
            "XLA_CPU_JIT devices compatible with node {{node IteratorGetNext}})")


def _staged_pull(pull, inputs, spec, optional):
    """One pull op: [has_value] + the element's components, with the spec's static shapes."""
    from ..ops.checks import ensure_shape
    from ..ops.script import numpy_function
    _check_not_xla()
    flat = structure.flat_specs(spec)
    # a composite leaf crosses as its arrays and is rebuilt from their tensors
    arrays = composites.array_specs(flat)
    placeholder = composites.expand(flat, structure.zeros(flat))

    def run(*args):
        c = pull(*args)
        if c is None and not optional:
            raise errors.OutOfRangeError(None, "IteratorGetNext", _END)
        has = np.bool_(c is not None)
        return [has] + (composites.expand(flat, c) if c is not None else placeholder)

    outs = numpy_function(run, list(inputs), [D.bool_] + [s.dtype for s in arrays])
    tensors = [ensure_shape(t, s.shape) for t, s in zip(outs[1:], arrays)]
    leaves = [composites.rule(s).from_traced(s, group)
              for s, group in zip(flat, composites.per_leaf(flat, tensors))]
    # a scalar flag: a loop carrying it keeps its shape, as TF's loop-variable check asks
    return ensure_shape(outs[0], []), nest.pack_sequence_as(spec, leaves)


class _GraphIterator:
    """An iterator created inside a traced function, by a make op when the function runs."""

    def __init__(self, dataset):
        from ..ops.script import numpy_function
        _check_not_xla()
        self.element_spec = dataset.element_spec

        def make():
            handle = next(_NEXT_HANDLE)
            _HANDLES[handle] = _HostIterator(dataset)
            return np.int64(handle)

        self._handle = numpy_function(make, [], D.int64)

    @staticmethod
    def _pull(handle):
        return _HANDLES[int(handle)].pull()

    def _get(self, optional):
        return _staged_pull(self._pull, [self._handle], self.element_spec, optional)

    def release(self):
        from ..ops.script import numpy_function

        def drop(handle):
            _HANDLES.pop(int(handle), None)
            return np.bool_(True)
        numpy_function(drop, [self._handle], D.bool_)

    def __iter__(self):
        return self

    def _autograph_staged_for(self, *loop):
        staged_iterator_for(self, *loop)

    def __next__(self):
        return self._get(False)[1]

    def get_next(self):
        return self._get(False)[1]

    def get_next_as_optional(self):
        has, value = self._get(True)
        return Optional(has, value, self.element_spec)


# --- the public iterator ------------------------------------------------------------------------------
@tf_export("data.Iterator")
class Iterator:
    """TF's `tf.data.Iterator` (an OwnedIterator): `next`, `get_next`,
    `get_next_as_optional`, `element_spec`; checkpointable with `tf.train.Checkpoint`."""

    def __init__(self, dataset):
        self._dataset = dataset
        self.element_spec = dataset.element_spec
        self._host = _HostIterator(dataset)
        self._state_var = None
        self._written = None

    def __iter__(self):
        return self

    def _autograph_staged_for(self, *loop):
        staged_iterator_for(self, *loop)

    def _pull(self):
        self._restore_if_changed()
        return self._host.pull()

    def _get(self, optional):
        if func_graph.current() is not None:
            return _staged_pull(self._pull, [], self.element_spec, optional)
        c = self._pull()
        if c is None:
            if optional:
                return False, None
            raise errors.OutOfRangeError(None, "IteratorGetNext", _END)
        return True, structure.to_tensors(self.element_spec, c)

    def __next__(self):
        if func_graph.current() is not None:
            return self._get(False)[1]
        c = self._pull()
        if c is None:
            raise StopIteration
        return structure.to_tensors(self.element_spec, c)

    def get_next(self, name=None):
        return self._get(False)[1]

    def get_next_as_optional(self):
        has, value = self._get(True)
        if func_graph.current() is not None:
            return Optional(has, value, self.element_spec)
        return Optional(convert_to_tensor(has), value, self.element_spec)

    # --- checkpointing (frontend/state/checkpoint.py calls `_checkpoint_children`) -----------------
    def _checkpoint_children(self):
        from ..state.variables import Variable
        data = np.frombuffer(json.dumps(self._host.state()).encode(), np.uint8).copy()
        if self._state_var is None:
            with func_graph.init_scope():
                self._state_var = Variable(data, shape=[None], trainable=False,
                                           name="iterator_state")
        else:
            self._state_var._handle.value = data
        self._written = self._state_var._handle.value
        return [("iterator_state", self._state_var)]

    def _restore_if_changed(self):
        """A restore assigned the state variable: replay the pipeline to the saved position."""
        var = self._state_var
        if var is None or var._handle.value is self._written:
            return
        state = json.loads(np.asarray(var._handle.value, np.uint8).tobytes().decode())
        self._host = _HostIterator(self._dataset, state["seed"], state["index"],
                                   state["consumed"])
        self._written = var._handle.value


def make_iterator(dataset):
    """`iter(dataset)`: an eager Iterator, or a staged one inside a traced function."""
    if func_graph.current() is not None:
        return _GraphIterator(dataset)
    return Iterator(dataset)


@tf_export("OptionalSpec")
class OptionalSpec(TypeSpec):
    """TF's `tf.OptionalSpec(element_spec)`: the type of an `Optional` of `element_spec`."""

    __slots__ = ("element_spec",)

    def __init__(self, element_spec):
        self.element_spec = element_spec

    value_type = property(lambda self: Optional)

    @staticmethod
    def from_value(value):
        return OptionalSpec(value.element_spec)

    def is_compatible_with(self, spec_or_value) -> bool:
        other = getattr(spec_or_value, "_type_spec", spec_or_value)
        return isinstance(other, OptionalSpec) and other.element_spec == self.element_spec

    def __eq__(self, other):
        return type(other) is OptionalSpec and other.element_spec == self.element_spec

    def __hash__(self):
        return hash(repr(self.element_spec))

    def __repr__(self):
        return f"OptionalSpec({self.element_spec!r},)"


@tf_export("experimental.Optional", "data.experimental.Optional")
class Optional:
    """TF's `tf.experimental.Optional`: a value that may be absent."""

    def __init__(self, has_value, value, element_spec):
        self._has, self._value, self.element_spec = has_value, value, element_spec

    @staticmethod
    def from_value(value):
        # a traced function's values stay graph tensors: an Optional is a composite of them
        value = structure.normalize(value, convert=convert_to_tensor)
        spec = structure.map_leaves(structure.spec_of, value)
        return Optional(convert_to_tensor(True), value, spec)

    # a composite (frontend/nest.py): functions, loops and branches carry the flag and value
    def _nest_components(self):
        return [self._has] + nest.flatten(self._value)

    def _nest_rebuild(self, components):
        value = None if self._value is None else \
            nest.pack_sequence_as(self._value, components[1:])
        return Optional(components[0], value, self.element_spec)

    @staticmethod
    def empty(element_spec):
        return Optional(convert_to_tensor(False), None, element_spec)

    @property
    def _type_spec(self):
        return OptionalSpec(self.element_spec)

    def has_value(self, name=None):
        return self._has

    def get_value(self, name=None):
        if func_graph.current() is None and self._value is None:
            raise errors.InvalidArgumentError(None, "OptionalGetValue",
                                              "The given optional does not have a value.")
        return self._value


class NumpyIterator:
    """`Dataset.as_numpy_iterator()`: elements as NumPy values (scalars as NumPy scalars,
    strings as bytes)."""

    def __init__(self, dataset):
        self._spec = dataset.element_spec
        self._host = _HostIterator(dataset)

    def __iter__(self):
        return self

    def __next__(self):
        c = self._host.pull()
        if c is None:
            raise StopIteration
        return structure.to_numpy(self._spec, c)

    def next(self):
        return self.__next__()


# --- loops and reduce inside tf.function -------------------------------------------------------
def staged_for(dataset, *loop):
    """AutoGraph's `for x in dataset` in a traced function: the loop over an iterator of its
    own, made before the loop and released after it."""
    it = _GraphIterator(dataset)
    staged_iterator_for(it, *loop)
    it.release()


def staged_iterator_for(it, extra_test, body, get_state, set_state, names, opts):
    """AutoGraph's `for x in iterator` in a traced function (TF's iterator loop): a while loop
    over (has_next, loop variables); the body pulls an optional and runs the user's body
    under a cond on it, so `break`/`return` stop before the next pull."""
    from ..autograph import staging
    from ..ops.math import logical_and
    cell = [convert_to_tensor(True)]

    def aug_get():
        return (cell[0],) + tuple(get_state())

    def aug_set(values):
        cell[0] = values[0]
        set_state(values[1:])

    def test():
        if extra_test is None:
            return cell[0]
        return logical_and(cell[0], convert_to_tensor(extra_test()))

    def aug_body():
        opt = it.get_next_as_optional()
        cell[0] = opt.has_value()
        staging.stage_if(opt.has_value(), lambda: body(opt.get_value()), lambda: None,
                         get_state, set_state, names, opts)

    staging.stage_loop(test, aug_body, aug_get, aug_set, ("iterator_has_next",) + tuple(names),
                       opts)


def _reduce_function(initial_state, reduce_func, element_spec):
    state_spec, init = structure.specs_of(structure.normalize(initial_state))
    for _ in range(8):   # as TF, a state whose shape changes is retraced with relaxed shapes
        fn = TracedFunction(reduce_func, (state_spec, element_spec), "reduce")
        new = fn.output_spec
        nest.assert_same_structure(state_spec, new, check_types=False)
        for a, b in zip(nest.flatten(state_spec), nest.flatten(new)):
            if a.dtype is not b.dtype:
                raise TypeError(f"The element types for the new state must match the initial "
                                f"state. Expected {state_spec}; got {new}.")
        relaxed = structure.relaxed(state_spec, new)
        if relaxed == state_spec:
            return fn, state_spec, init
        state_spec = relaxed
    raise TypeError(f"reduce: the state's shapes do not settle: {state_spec}")


def reduce_dataset(dataset, initial_state, reduce_func):
    """`Dataset.reduce`: eagerly a loop over the traced `reduce_func`; in a traced function a
    while loop over a staged iterator."""
    if func_graph.current() is not None:
        return _staged_reduce(dataset, initial_state, reduce_func)
    fn, spec, state = _reduce_function(initial_state, reduce_func, dataset.element_spec)
    host = _HostIterator(dataset)
    while True:
        c = host.pull()
        if c is None:
            return structure.to_tensors(spec, state)
        state = fn(state + c)


def _staged_reduce(dataset, initial_state, reduce_func):
    from ..control import control_flow
    from ..autograph import converter
    # the initial state is the template the loop's flat state is packed into (a composite
    # in it is carried as its components)
    state0 = structure.normalize(initial_state, convert_to_tensor)
    user = converter.convert(reduce_func) or reduce_func
    it = _GraphIterator(dataset)
    n = len(nest.flatten(state0))

    def cond(has, *flat):
        return has

    def body(has, *flat):
        has_value, element = it._get(True)
        state = nest.pack_sequence_as(state0, list(flat))

        def step():
            return nest.flatten(nest.map_structure(convert_to_tensor,
                                                   user(state, element)))
        new = control_flow.cond(has_value, step, lambda: list(flat))
        new = [new] if n == 1 and not isinstance(new, (list, tuple)) else list(new)
        return [has_value] + new

    outs = control_flow.while_loop(
        cond, body, [convert_to_tensor(True)] + nest.flatten(state0),
        shape_invariants=[None] + [None for _ in range(n)])
    it.release()
    return nest.pack_sequence_as(state0, list(outs)[1:])
