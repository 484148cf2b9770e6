"""The transformations of `tf.data.Dataset`, each a Dataset over its input(s).

Each class sets `element_spec`, implements `_components(ctx)` (a fresh Python iterator over
flat tuples of arrays per iterator) and `_cardinality()` with TF's rules. Functions that
return tensors (`map`, `filter`, `scan`, keys) are traced once (functions.py); functions that
return datasets (`interleave`, `flat_map`, `group_by_window`'s reducer) run eagerly per
element, see README's "Differences from TF".
"""
from __future__ import annotations

import collections
import concurrent.futures
import os
import queue
import threading

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ...ir.shapes import TensorShape
from .. import func_graph, nest
from ..specs import TensorSpec
from . import structure
from .context import INFINITE, UNKNOWN
from .dataset import AUTOTUNE, Dataset
from .functions import TracedFunction, call_eagerly

_DEFAULT_PARALLELISM = os.cpu_count() or 1


def _int(value, name) -> int:
    return int(structure.host(value, dtype=D.int64).numpy())


def _positive(value, name) -> int:
    n = _int(value, name)
    if n <= 0:
        raise errors.InvalidArgumentError(None, None, f"{name} must be greater than zero.")
    return n


class _Unary(Dataset):
    def __init__(self, input_dataset):
        if not isinstance(input_dataset, Dataset):
            raise TypeError(f"expected a tf.data.Dataset, got {input_dataset!r}")
        self._input = input_dataset
        self._inputs = (input_dataset,)
        self.element_spec = input_dataset.element_spec

    def _cardinality(self):
        return self._input._cardinality()


# --- element-wise ---------------------------------------------------------------------------
class Map(_Unary):
    def __init__(self, input_dataset, func, num_parallel_calls):
        super().__init__(input_dataset)
        self._fn = TracedFunction(func, input_dataset.element_spec, "map")
        self.element_spec = self._fn.output_spec
        n = num_parallel_calls
        self._parallel = None if n is None else (_DEFAULT_PARALLELISM if n == AUTOTUNE
                                                 else _positive(n, "num_parallel_calls"))

    def _components(self, ctx):
        fn = self._fn
        if not self._parallel or self._parallel == 1:
            for c in self._input._components(ctx):
                yield fn(c)
            return
        # Ordered parallel map: up to `parallel` elements in flight on a thread pool (NumPy
        # kernels release the GIL), results in input order (deterministic).
        pool = concurrent.futures.ThreadPoolExecutor(self._parallel)
        pending = collections.deque()
        try:
            for c in self._input._components(ctx):
                pending.append(pool.submit(fn, c))
                if len(pending) >= 2 * self._parallel:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for f in pending:
                f.cancel()
            pool.shutdown(wait=False)


def _predicate(func, spec, what):
    fn = TracedFunction(func, spec, what)
    out = fn.output_spec
    if not (isinstance(out, TensorSpec) and out.dtype is D.bool_ and out.shape.rank == 0):
        raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar "
                         f"tensor, but its return type is {out}.")
    return fn


class Filter(_Unary):
    def __init__(self, input_dataset, predicate):
        super().__init__(input_dataset)
        self._fn = _predicate(predicate, self.element_spec, "filter")

    def _components(self, ctx):
        fn = self._fn
        for c in self._input._components(ctx):
            if fn(c)[0]:
                yield c

    def _cardinality(self):
        return UNKNOWN


class TakeWhile(Filter):
    def __init__(self, input_dataset, predicate):
        _Unary.__init__(self, input_dataset)
        self._fn = _predicate(predicate, self.element_spec, "take_while")

    def _components(self, ctx):
        fn = self._fn
        for c in self._input._components(ctx):
            if not fn(c)[0]:
                return
            yield c

    def _cardinality(self):
        return UNKNOWN


class Scan(_Unary):
    def __init__(self, input_dataset, initial_state, scan_func):
        super().__init__(input_dataset)
        state_spec, self._init = structure.specs_of(structure.normalize(initial_state))
        # As TF, a state whose shape changes across one step is retraced with relaxed shapes.
        for _ in range(8):
            fn = TracedFunction(scan_func, (state_spec, input_dataset.element_spec), "scan")
            out = fn.output_spec
            if not (isinstance(out, tuple) and len(out) == 2):
                raise TypeError(f"The scan function must return a pair comprising the new "
                                f"state and the output value, got {out}.")
            new_state = out[0]
            nest.assert_same_structure(state_spec, new_state, check_types=False)
            for old, new in zip(nest.flatten(state_spec), nest.flatten(new_state)):
                if old.dtype is not new.dtype:
                    raise TypeError(f"The element types for the new state must match the "
                                    f"initial state. Expected {state_spec}; got {new_state}.")
            relaxed = structure.relaxed(state_spec, new_state)
            if relaxed == state_spec:
                break
            state_spec = relaxed
        self._fn, self._n_state = fn, len(nest.flatten(state_spec))
        self.element_spec = out[1]

    def _components(self, ctx):
        state, fn, k = self._init, self._fn, self._n_state
        for c in self._input._components(ctx):
            out = fn(state + c)
            state = out[:k]
            yield out[k:]


class Unique(_Unary):
    def __init__(self, input_dataset):
        super().__init__(input_dataset)
        spec = self.element_spec
        ok = (D.int32, D.int64, D.string)
        if not (isinstance(spec, TensorSpec) and spec.shape.rank == 0 and spec.dtype in ok):
            raise TypeError("`tf.data.Dataset.unique` does not support type "
                            f"{spec}: only scalar int32, int64 and string elements.")

    def _components(self, ctx):
        seen = set()
        for c in self._input._components(ctx):
            key = c[0].item() if isinstance(c[0], np.ndarray) else c[0]
            if key not in seen:
                seen.add(key)
                yield c

    def _cardinality(self):
        return UNKNOWN


class WithOptions(_Unary):
    def __init__(self, input_dataset, options):
        super().__init__(input_dataset)
        self._own_options = options

    def _components(self, ctx):
        return self._input._components(ctx)


# --- counting ----------------------------------------------------------------------------------
class Repeat(_Unary):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = -1 if count is None else _int(count, "count")

    def _components(self, ctx):
        epoch = 0
        while self._count < 0 or epoch < self._count:
            produced = False
            for c in self._input._components(ctx):
                produced = True
                yield c
            if not produced:   # TF ends an infinite repeat of an empty dataset
                return
            epoch += 1

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count < 0:
            return 0 if n == 0 else INFINITE if n != UNKNOWN else UNKNOWN
        if n < 0:
            return n if self._count else 0
        return n * self._count


class Take(_Unary):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = _int(count, "count")

    def _components(self, ctx):
        if self._count < 0:
            yield from self._input._components(ctx)
            return
        if self._count == 0:
            return
        for i, c in enumerate(self._input._components(ctx), 1):
            yield c
            if i >= self._count:
                return

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count < 0:
            return n
        if n == UNKNOWN:
            return UNKNOWN
        return self._count if n == INFINITE else min(n, self._count)


class Skip(_Unary):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = _int(count, "count")

    def _components(self, ctx):
        it = self._input._components(ctx)
        if self._count < 0:
            for _ in it:
                pass
            return
        for i, c in enumerate(it):
            if i >= self._count:
                yield c

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count < 0:
            return 0 if n != INFINITE else INFINITE
        return n if n < 0 else max(0, n - self._count)


# --- batching -----------------------------------------------------------------------------------
def _stack(parts):
    try:
        return np.stack(parts)
    except ValueError:
        first = np.shape(parts[0])
        k = next(i for i, p in enumerate(parts) if np.shape(p) != first)
        shown = lambda s: "[" + ",".join(map(str, s)) + "]"  # noqa: E731
        raise errors.InvalidArgumentError(
            None, None, f"Cannot add tensor to the batch: number of elements does not match. "
                        f"Shapes are: [tensor]: {shown(np.shape(parts[k]))}, [batch]: "
                        f"{shown(first)}") from None


class Batch(_Unary):
    def __init__(self, input_dataset, batch_size, drop_remainder):
        super().__init__(input_dataset)
        self._size = _positive(batch_size, "Batch size")
        self._drop = bool(drop_remainder)
        self.element_spec = structure.batched(self.element_spec,
                                              self._size if self._drop else None)

    def _batch(self, rows):
        return tuple(_stack(list(parts)) for parts in zip(*rows))

    def _components(self, ctx):
        rows = []
        for c in self._input._components(ctx):
            rows.append(c)
            if len(rows) == self._size:
                yield self._batch(rows)
                rows = []
        if rows and not self._drop:
            yield self._batch(rows)

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._size if self._drop else -(-n // self._size)


def _padded_shape(spec, shape):
    if shape is None:
        return TensorShape([None] * spec.shape.rank)
    if isinstance(shape, TensorShape):
        listed = shape.as_list()
    elif isinstance(shape, (list, tuple)):
        listed = list(shape)
    else:
        listed = list(structure.host(shape, dtype=D.int64).numpy())
    dims = [None if d is None or int(d) == -1 else int(d) for d in listed]
    target = TensorShape(dims)
    if not target.is_compatible_with(TensorShape([None] * spec.shape.rank)) or \
            any(p is not None and s is not None and p < s
                for p, s in zip(dims, spec.shape.as_list())):
        raise ValueError(f"The padded shape {target} is not compatible with the shape "
                         f"{spec.shape} of the corresponding input component.")
    return target


class PaddedBatch(Batch):
    def __init__(self, input_dataset, batch_size, padded_shapes, padding_values,
                 drop_remainder):
        _Unary.__init__(self, input_dataset)
        self._size = _positive(batch_size, "Batch size")
        self._drop = bool(drop_remainder)
        specs = structure.flat_specs(self.element_spec)
        for s in specs:
            if s.shape.rank is None:
                raise ValueError("You must provide `padded_shapes` argument because component "
                                 "0 has unknown rank.")
        shapes = ([None] * len(specs) if padded_shapes is None
                  else structure.flatten_like(self.element_spec, padded_shapes))
        self._shapes = [_padded_shape(s, p) for s, p in zip(specs, shapes)]
        values = ([None] * len(specs) if padding_values is None
                  else structure.flatten_like(self.element_spec, padding_values))
        self._values = [np.array(b"" if s.dtype is D.string else 0, object
                                 if s.dtype is D.string else s.dtype.np) if v is None
                        else structure.host(v, dtype=s.dtype).numpy()
                        for s, v in zip(specs, values)]
        flat = [TensorSpec(TensorShape([self._size if self._drop else None]).concatenate(p),
                           s.dtype) for s, p in zip(specs, self._shapes)]
        self.element_spec = nest.pack_sequence_as(self.element_spec, flat)

    def _batch(self, rows):
        out = []
        for i, parts in enumerate(zip(*rows)):
            target = self._shapes[i].as_list()
            widest = np.max([np.shape(p) for p in parts], axis=0) if parts[0].ndim else ()
            dims = [t if t is not None else int(w) for t, w in zip(target, widest)]
            batch = np.full([len(parts)] + dims, self._values[i], dtype=parts[0].dtype)
            for k, p in enumerate(parts):
                if any(a > b for a, b in zip(p.shape, dims)):
                    raise errors.InvalidArgumentError(
                        None, None, f"Attempted to pad to a smaller size than the input "
                                    f"element.")
                batch[(k,) + tuple(slice(0, n) for n in p.shape)] = p
            out.append(batch)
        return tuple(out)


class Unbatch(_Unary):
    def __init__(self, input_dataset):
        super().__init__(input_dataset)
        self.element_spec = structure.unbatched(self.element_spec)

    def _components(self, ctx):
        for c in self._input._components(ctx):
            n = len(c[0])
            if any(len(a) != n for a in c[1:]):
                raise errors.InvalidArgumentError(
                    None, None, "Input element must have the same batch size in each "
                                "component.")
            for i in range(n):
                yield tuple(a[i] for a in c)

    def _cardinality(self):
        n = self._input._cardinality()
        dims = {s.shape.as_list()[0] for s in structure.flat_specs(self._input.element_spec)}
        if n >= 0 and len(dims) == 1 and None not in dims:
            return n * dims.pop()
        return INFINITE if n == INFINITE else UNKNOWN


class Rebatch(Batch):
    def __init__(self, input_dataset, batch_size, drop_remainder):
        super().__init__(Unbatch(input_dataset), batch_size, drop_remainder)


# --- order ----------------------------------------------------------------------------------------
class Shuffle(_Unary):
    """TF's shuffle buffer: fill `buffer_size` elements, emit a random one and refill its
    place; the generator per start comes from the iterator's context (context.py)."""

    def __init__(self, input_dataset, buffer_size, seed, reshuffle_each_iteration):
        super().__init__(input_dataset)
        self._size = _int(buffer_size, "buffer_size")
        if self._size == AUTOTUNE:
            self._size = 1 << 16
        elif self._size <= 0:
            raise errors.InvalidArgumentError(
                None, None, "buffer_size must be greater than zero or UNKNOWN_CARDINALITY")
        self._seed = None if seed is None else _int(seed, "seed")
        self._reshuffle = True if reshuffle_each_iteration is None else \
            bool(reshuffle_each_iteration)
        if self._seed is None and not self._reshuffle:
            # the same order every epoch: one seed drawn with the dataset
            self._seed = int(np.random.SeedSequence().generate_state(1)[0])

    def _components(self, ctx):
        rng = ctx.rng(self, self._seed, self._reshuffle)
        buf = []
        it = self._input._components(ctx)
        for c in it:
            buf.append(c)
            if len(buf) >= self._size:
                break
        for c in it:
            k = int(rng.integers(len(buf)))
            yield buf[k]
            buf[k] = c
        while buf:
            k = int(rng.integers(len(buf)))
            buf[k], buf[-1] = buf[-1], buf[k]
            yield buf.pop()


class Prefetch(_Unary):
    """A background thread runs the input up to `buffer_size` elements ahead, so the
    pipeline overlaps with the consumer's step."""

    def __init__(self, input_dataset, buffer_size):
        super().__init__(input_dataset)
        n = _int(buffer_size, "buffer_size")
        self._size = 8 if n == AUTOTUNE else n
        if self._size < 0:
            raise errors.InvalidArgumentError(None, None, "buffer_size must be >= 0 or "
                                                          "AUTOTUNE (-1)")

    def _components(self, ctx):
        if self._size == 0:
            yield from self._input._components(ctx)
            return
        q = queue.Queue(self._size)
        stop = threading.Event()
        source = self._input._components(ctx)

        def put(item):
            while not stop.is_set():
                try:
                    q.put(item, timeout=0.05)
                    return True
                except queue.Full:
                    pass
            return False

        def fill():
            try:
                for c in source:
                    if not put((0, c)):
                        return
                put((1, None))
            except BaseException as e:  # handed to the consumer, raised at its next()
                put((2, e))

        threading.Thread(target=fill, daemon=True, name="flowjit-prefetch").start()
        try:
            while True:
                kind, value = q.get()
                if kind == 0:
                    yield value
                elif kind == 1:
                    return
                else:
                    raise value
        finally:
            stop.set()


# --- several inputs -------------------------------------------------------------------------------
class Zip(Dataset):
    def __init__(self, datasets):
        flat = nest.flatten(datasets)
        for d in flat:
            if not isinstance(d, Dataset):
                raise TypeError(f"Invalid input to `zip`. Inputs are expected to be (nested) "
                                f"structures of `tf.data.Dataset` objects. Python `list` is "
                                f"not supported and you should use `tuple` instead."
                                if isinstance(datasets, list) else
                                f"Invalid input to `zip`: {type(d).__name__} is not a "
                                f"tf.data.Dataset.")
        if isinstance(datasets, list):
            raise TypeError("Invalid input to `zip`. Inputs are expected to be (nested) "
                            "structures of `tf.data.Dataset` objects. Python `list` is not "
                            "supported and you should use `tuple` instead.")
        self._inputs = tuple(flat)
        self.element_spec = nest.pack_sequence_as(datasets, [d.element_spec for d in flat])

    def _components(self, ctx):
        its = [d._components(ctx) for d in self._inputs]
        for parts in zip(*its):
            yield tuple(x for p in parts for x in p)

    def _cardinality(self):
        ns = [d._cardinality() for d in self._inputs]
        finite = [n for n in ns if n >= 0]
        if finite:
            return min(finite)
        return UNKNOWN if UNKNOWN in ns else INFINITE


class Concatenate(Dataset):
    def __init__(self, first, second):
        try:
            spec = structure.relaxed(first.element_spec, second.element_spec)
        except (TypeError, ValueError) as e:
            raise TypeError(f"Incompatible dataset elements:\n  {first.element_spec} vs. "
                            f"\n  {second.element_spec}") from e
        for a, b in zip(nest.flatten(first.element_spec), nest.flatten(second.element_spec)):
            if a.dtype is not b.dtype:
                raise TypeError(f"Incompatible dataset elements:\n  {first.element_spec} vs."
                                f" \n  {second.element_spec}")
        self._inputs = (first, second)
        self.element_spec = spec

    def _components(self, ctx):
        for d in self._inputs:
            yield from d._components(ctx)

    def _cardinality(self):
        a, b = (d._cardinality() for d in self._inputs)
        if INFINITE in (a, b):
            return INFINITE
        return UNKNOWN if UNKNOWN in (a, b) else a + b


def _common_spec(datasets):
    spec = datasets[0].element_spec
    for d in datasets[1:]:
        try:
            spec = structure.relaxed(spec, d.element_spec)
            ok = all(a.dtype is b.dtype for a, b in zip(nest.flatten(spec),
                                                       nest.flatten(d.element_spec)))
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise TypeError(f"Incompatible dataset elements:\n  {datasets[0].element_spec} "
                            f"vs. \n  {d.element_spec}")
    return spec


class Choose(Dataset):
    def __init__(self, datasets, choice_dataset, stop_on_empty_dataset):
        datasets = list(datasets)
        if not datasets:
            raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
        spec = choice_dataset.element_spec
        if not (isinstance(spec, TensorSpec) and spec.dtype is D.int64 and
                spec.shape.rank == 0):
            raise TypeError(f"Invalid `choice_dataset`. Elements of `choice_dataset` must "
                            f"be scalar `tf.int64` tensors but are {spec}.")
        self._datasets, self._choice = datasets, choice_dataset
        self._stop = bool(stop_on_empty_dataset)
        self._inputs = tuple(datasets) + (choice_dataset,)
        self.element_spec = _common_spec(datasets)

    def _components(self, ctx):
        its = [d._components(ctx) for d in self._datasets]
        live = [True] * len(its)
        for (k,) in self._choice._components(ctx):
            k = int(k)
            if not 0 <= k < len(its):
                raise errors.InvalidArgumentError(
                    None, None, f"Selector index out of range: {k} >= {len(its)}")
            if not live[k]:
                continue
            c = next(its[k], None)
            if c is None:
                live[k] = False
                if self._stop:
                    return
                continue
            yield c

    def _cardinality(self):
        return UNKNOWN


class _Sample(Dataset):
    def __init__(self, datasets, weights, seed, stop_on_empty, rerandomize):
        self._datasets = list(datasets)
        if not self._datasets:
            raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
        n = len(self._datasets)
        w = np.full(n, 1.0 / n) if weights is None else \
            np.asarray(structure.host(weights, dtype=D.float64).numpy(), np.float64)
        if w.shape != (n,):
            raise ValueError(f"Invalid `weights`. The shape of `weights` should be "
                             f"compatible with `[len(datasets)]` but is {list(w.shape)}.")
        self._weights = w
        self._seed = None if seed is None else _int(seed, "seed")
        self._rerandomize = rerandomize is None or bool(rerandomize)
        self._stop = bool(stop_on_empty)
        self._inputs = tuple(self._datasets)
        self.element_spec = _common_spec(self._datasets)

    def _components(self, ctx):
        rng = ctx.rng(self, self._seed, self._rerandomize)
        its = [d._components(ctx) for d in self._datasets]
        w = self._weights.copy()
        while w.sum() > 0:
            k = int(rng.choice(len(w), p=w / w.sum()))
            c = next(its[k], None)
            if c is None:
                if self._stop:
                    return
                w[k] = 0
                continue
            yield c

    def _cardinality(self):
        ns = [d._cardinality() for d in self._datasets]
        if all(n == INFINITE for n in ns):
            return INFINITE
        return UNKNOWN


def sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset, rerandomize):
    return _Sample(datasets, weights, seed, stop_on_empty_dataset, rerandomize)


# --- datasets of datasets -------------------------------------------------------------------
def _as_dataset(value, what):
    if not isinstance(value, Dataset):
        raise TypeError(f"The `map_func` argument of `{what}` must return a `Dataset` object. "
                        f"Got {type(value)!r}")
    return value


class Interleave(_Unary):
    """TF's cycle: `cycle_length` open inner datasets, `block_length` elements from each in
    turn; an exhausted one's slot takes the next input element when the cycle returns."""

    def __init__(self, input_dataset, map_func, cycle_length, block_length):
        super().__init__(input_dataset)
        self._func = map_func
        n = AUTOTUNE if cycle_length is None else _int(cycle_length, "cycle_length")
        self._cycle = _DEFAULT_PARALLELISM if n == AUTOTUNE else n
        self._block = 1 if block_length is None else _positive(block_length, "block_length")
        if self._cycle <= 0:
            raise errors.InvalidArgumentError(None, None,
                                              "cycle_length must be greater than zero.")
        self.element_spec = self._probe_spec()

    def _probe_spec(self):
        """The inner datasets' spec: the function run once on a placeholder element."""
        zeros = structure.zeros(structure.flat_specs(self._input.element_spec))
        with func_graph.init_scope():
            return _as_dataset(call_eagerly(self._func, self._input.element_spec, zeros),
                               "interleave").element_spec

    def _open(self, components, ctx):
        ds = _as_dataset(call_eagerly(self._func, self._input.element_spec, components),
                         "interleave")
        return ds._components(ctx)

    def _components(self, ctx):
        source = self._input._components(ctx)
        slots = [None] * self._cycle
        index, block, open_, source_done = 0, 0, 0, False
        while not source_done or open_:
            it = slots[index]
            if it is not None:
                c = next(it, None)
                if c is not None:
                    yield c
                    block += 1
                    if block == self._block:
                        index, block = (index + 1) % self._cycle, 0
                    continue
                slots[index] = None
                open_ -= 1
                index, block = (index + 1) % self._cycle, 0
            elif not source_done:
                c = next(source, None)
                if c is None:
                    source_done = True
                else:
                    slots[index] = self._open(c, ctx)
                    open_ += 1
            else:
                index, block = (index + 1) % self._cycle, 0

    def _cardinality(self):
        return UNKNOWN


class Materialized(Dataset):
    """A finite list of components (the elements of one window)."""

    def __init__(self, spec, rows):
        self.element_spec, self._rows = spec, rows

    def _components(self, ctx):
        return iter(self._rows)

    def _cardinality(self):
        return len(self._rows)


class Window(_Unary):
    def __init__(self, input_dataset, size, shift, stride, drop_remainder):
        super().__init__(input_dataset)
        self._size = _positive(size, "size")
        self._shift = self._size if shift is None else _positive(shift, "shift")
        self._stride = _positive(stride, "stride")
        self._drop = bool(drop_remainder)
        self.element_spec = nest.map_structure(structure.DatasetSpec, self.element_spec)

    def _components(self, ctx):
        spec = self._input.element_spec
        flat = structure.flat_specs(spec)
        span = (self._size - 1) * self._stride + 1
        buf, start = collections.deque(), 0   # buf holds input elements from `start` on
        it = self._input._components(ctx)
        done = False
        while True:
            while not done and len(buf) < span:
                c = next(it, None)
                if c is None:
                    done = True
                else:
                    buf.append(c)
            rows = list(buf)[::self._stride][:self._size]
            if not rows or (self._drop and len(rows) < self._size):
                return
            # one dataset per component, as TF's window (zip them to get element windows)
            yield tuple(Materialized(s, [(r[i],) for r in rows]) for i, s in enumerate(flat))
            for _ in range(self._shift):
                if buf:
                    buf.popleft()
                elif not done:
                    if next(it, None) is None:
                        done = True
            start += self._shift

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        if self._drop:
            span = (self._size - 1) * self._stride + 1
            return 0 if n < span else (n - span) // self._shift + 1
        return -(-n // self._shift)


class GroupByWindow(_Unary):
    def __init__(self, input_dataset, key_func, reduce_func, window_size, window_size_func):
        super().__init__(input_dataset)
        if (window_size is None) == (window_size_func is None):
            raise ValueError("Either the `window_size` argument or the `window_size_func` "
                             "argument must be specified.")
        self._key = TracedFunction(key_func, self.element_spec, "key_func")
        ks = self._key.output_spec
        if not (isinstance(ks, TensorSpec) and ks.dtype is D.int64 and ks.shape.rank == 0):
            raise ValueError(f"Invalid `key_func`. Expected `key_func` to return a scalar "
                             f"tf.int64 tensor, but instead `key_func` has output types={ks}")
        self._reduce = reduce_func
        self._size_fn = window_size_func
        self._size = None if window_size is None else _positive(window_size, "window_size")
        empty = Materialized(self.element_spec, [])
        with func_graph.init_scope():
            probe = reduce_func(structure.host(np.int64(0)), empty)
        self.element_spec = _as_dataset(probe, "group_by_window").element_spec

    def _window_size(self, key):
        if self._size is not None:
            return self._size
        return int(structure.host(self._size_fn(structure.host(np.int64(key)))).numpy())

    def _flush(self, key, rows, ctx):
        ds = Materialized(self._input.element_spec, rows)
        out = _as_dataset(self._reduce(structure.host(np.int64(key)), ds),
                          "group_by_window")
        yield from out._components(ctx)

    def _components(self, ctx):
        groups, sizes = {}, {}
        for c in self._input._components(ctx):
            key = int(self._key(c)[0])
            if key not in sizes:
                sizes[key] = self._window_size(key)
            rows = groups.setdefault(key, [])
            rows.append(c)
            if len(rows) == sizes[key]:
                del groups[key]
                yield from self._flush(key, rows, ctx)
        for key in sorted(groups):
            yield from self._flush(key, groups[key], ctx)

    def _cardinality(self):
        n = self._input._cardinality()
        return INFINITE if n == INFINITE else UNKNOWN


def bucket_by_sequence_length(dataset, element_length_func, bucket_boundaries,
                              bucket_batch_sizes, padded_shapes, padding_values,
                              pad_to_bucket_boundary, no_padding, drop_remainder):
    """TF's bucketing as TF builds it: a group_by_window keyed by bucket, each window a
    (padded) batch of that bucket's size."""
    boundaries = [int(b) for b in bucket_boundaries]
    sizes = [int(b) for b in bucket_batch_sizes]
    if len(sizes) != len(boundaries) + 1:
        raise ValueError(f"len(bucket_batch_sizes) must equal len(bucket_boundaries) + 1 but "
                         f"len(bucket_batch_sizes)={len(sizes)} and "
                         f"len(bucket_boundaries)={len(boundaries)}")
    if boundaries != sorted(boundaries):
        raise ValueError(f"Buckets must be sorted but got {boundaries}")
    length_fn = TracedFunction(element_length_func, dataset.element_spec, "element_length")
    edges = np.array(boundaries, np.int64)

    class _Keyed(_Unary):
        def _components(self, ctx):
            for c in self._input._components(ctx):
                n = int(length_fn(c)[0])
                yield (np.int64(np.searchsorted(edges, n, side="right")),) + c

    def key_func(k, *rest):
        return k

    spec = dataset.element_spec

    def reduce_func(key, window):
        def strip(k, *rest):
            return rest[0] if len(rest) == 1 else rest
        window = window.map(strip)
        b = int(key.numpy())
        if no_padding:
            return window.batch(sizes[b], drop_remainder=drop_remainder)
        shapes = padded_shapes
        if pad_to_bucket_boundary:
            if b == len(boundaries):
                raise errors.InvalidArgumentError(
                    None, None, "When pad_to_bucket_boundary=True, elements must have length "
                                "< max(bucket_boundaries).")
            shapes = nest.map_structure(
                lambda s: TensorShape([boundaries[b] - 1] + s.shape.as_list()[1:]), spec)
        return window.padded_batch(sizes[b], shapes, padding_values,
                                   drop_remainder=drop_remainder)

    keyed = _Keyed(dataset)
    key_spec = TensorSpec([], D.int64)
    keyed.element_spec = (key_spec,) + (spec if isinstance(spec, tuple) else (spec,))
    return GroupByWindow(keyed, key_func, reduce_func, None,
                         lambda key: np.int64(sizes[int(key.numpy())]))


# --- cache --------------------------------------------------------------------------------------
class Cache(_Unary):
    """The first complete pass is recorded (in memory, or in `filename` as safetensors) and
    later iterators replay it; a pass cut short records nothing, as TF."""

    def __init__(self, input_dataset, filename):
        super().__init__(input_dataset)
        self._file = os.fspath(filename) if not hasattr(filename, "numpy") else \
            filename.numpy().decode()
        self._rows = None
        self._lock = threading.Lock()

    def _stored(self):
        if self._rows is None and self._file:
            from .cache_file import read_cache
            self._rows = read_cache(self._file, structure.flat_specs(self.element_spec))
        return self._rows

    def _components(self, ctx):
        rows = self._stored()
        if rows is not None:
            yield from rows
            return
        recorded = []
        for c in self._input._components(ctx):
            recorded.append(c)
            yield c
        with self._lock:
            if self._rows is None:
                if self._file:
                    from .cache_file import write_cache
                    write_cache(self._file, structure.flat_specs(self.element_spec), recorded)
                self._rows = recorded
