"""The transformations over several datasets (`zip`, `concatenate`, `choose_from_datasets`,
`sample_from_datasets`) and over datasets of datasets (`interleave`/`flat_map`, `window`,
`group_by_window`, `bucket_by_sequence_length`). A function that returns a dataset is
traced once (dataset_functions.py)."""
from __future__ import annotations

import collections
import queue
import threading

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ...ir.shapes import TensorShape
from .. import nest
from ..function.specs import TensorSpec
from . import structure
from .context import INFINITE, UNKNOWN
from .dataset import AUTOTUNE, TRANSFORMATIONS, Dataset
from ..ops.array import gather
from .dataset_functions import DatasetFunction
from .functions import TracedFunction
from .transforms import DEFAULT_PARALLELISM, Unary, as_int, ordered, positive_int, run_ahead


# --- several inputs -------------------------------------------------------------------------------
class Zip(Dataset):
    def __init__(self, datasets):
        flat = nest.flatten(datasets)
        for d in flat:
            if not isinstance(d, Dataset):
                raise TypeError("Invalid input to `zip`. Inputs are expected to be (nested) "
                                "structures of `tf.data.Dataset` objects. Python `list` is "
                                "not supported and you should use `tuple` instead."
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


class Counter(Dataset):
    """start, start + step, ... without end: `Dataset.counter`, `enumerate`'s index."""

    def __init__(self, start, step=1, dtype=D.int64):
        self._start, self._step = as_int(start, "start"), as_int(step, "step")
        self._dtype = D.as_dtype(dtype)
        self.element_spec = TensorSpec([], self._dtype)

    def _components(self, ctx):
        i, np_type = self._start, self._dtype.np
        while True:
            yield (np.array(i, np_type),)
            i += self._step

    def _cardinality(self):
        return INFINITE


class Concatenate(Dataset):
    def __init__(self, first, second):
        try:
            spec = structure.relaxed(first.element_spec, second.element_spec)
        except (TypeError, ValueError) as e:
            raise TypeError(f"Incompatible dataset elements:\n  {first.element_spec} vs.   "
                            f"{second.element_spec}") from e
        for a, b in zip(nest.flatten(first.element_spec), nest.flatten(second.element_spec)):
            if a.dtype is not b.dtype:
                raise TypeError(f"Incompatible dataset elements:\n  {first.element_spec} vs."
                                f"   {second.element_spec}")
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
        self._seed = None if seed is None else as_int(seed, "seed")
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
def _default_cycle(num_parallel_calls):
    """TF's cycle length when none is given: one per core; a parallel interleave's is
    `num_parallel_calls` (at most the cores) or, autotuned, a third of the cores (each
    element of its cycle takes about three threads)."""
    if num_parallel_calls is None:
        return DEFAULT_PARALLELISM
    if num_parallel_calls == AUTOTUNE:
        return -(-DEFAULT_PARALLELISM // 3)
    return min(num_parallel_calls, DEFAULT_PARALLELISM)


class Interleave(Unary):
    """TF's cycle: `cycle_length` open inner datasets, `block_length` elements from each in
    turn; an exhausted one's slot takes the next input element when the cycle returns."""

    def __init__(self, input_dataset, map_func, cycle_length, block_length,
                 num_parallel_calls=None, deterministic=None):
        super().__init__(input_dataset)
        self._deterministic = deterministic
        n = AUTOTUNE if cycle_length is None else as_int(cycle_length, "cycle_length")
        calls = None if num_parallel_calls is None else \
            as_int(num_parallel_calls, "num_parallel_calls")
        self._cycle = n if n != AUTOTUNE else _default_cycle(calls)
        self._block = 1 if block_length is None else positive_int(block_length, "block_length")
        if self._cycle <= 0:
            raise errors.InvalidArgumentError(None, None,
                                              "cycle_length must be greater than zero.")
        if calls not in (None, AUTOTUNE) and n != AUTOTUNE and calls > n:
            raise errors.InvalidArgumentError(
                None, None, f"If `cycle_length` is set to a fixed value, `num_parallel_calls` "
                            f"must be either `tf.data.AUTOTUNE` or a value less than or equal "
                            f"to `cycle_length`. However, `num_parallel_calls` is {calls} and "
                            f"`cycle_length` is {n}")
        # parallel: each open inner dataset is produced ahead by a thread of its own; the
        # output order is the deterministic cycle's, or the order elements arrive in
        self._ahead = None if calls is None else 2 * self._block
        self._fn = DatasetFunction(map_func, input_dataset.element_spec, "interleave")
        self.element_spec = self._fn.output_spec

    def _inner(self, components):
        return self._fn(components)

    def _open(self, components, ctx):
        inner = self._inner(components)._components(ctx)
        return run_ahead(inner, self._ahead) if self._ahead else inner

    def _components(self, ctx):
        if self._ahead and not ordered(self._deterministic, ctx):
            return self._as_completed(ctx)
        return self._cycled(ctx)

    def _as_completed(self, ctx):
        """Parallel and not deterministic: `cycle_length` inner datasets open at once, each
        produced by a thread of its own (up to `2 * block_length` elements ahead), their
        elements yielded in the order they arrive; a finished one's place goes to the next
        input element."""
        source = self._input._components(ctx)
        arrived = queue.Queue()   # (inner's room, 0: element / 1: end / 2: error, value)
        stopped = threading.Event()
        rooms = set()

        def produce(inner, room):
            try:
                for c in inner:
                    room.acquire()
                    if stopped.is_set():
                        return
                    arrived.put((room, 0, c))
                arrived.put((room, 1, None))
            except BaseException as e:  # handed to the consumer, raised at its next()
                arrived.put((room, 2, e))

        def open_next():
            c = next(source, None)
            if c is None:
                return False
            room = threading.Semaphore(self._ahead)
            rooms.add(room)
            threading.Thread(target=produce, args=(self._inner(c)._components(ctx), room),
                             daemon=True, name="flowjit-interleave").start()
            return True

        try:
            while len(rooms) < self._cycle and open_next():
                pass
            while rooms:
                room, kind, value = arrived.get()
                if kind == 0:
                    room.release()
                    yield value
                    continue
                rooms.discard(room)
                if kind == 2:
                    raise value
                open_next()
        finally:
            stopped.set()
            for room in rooms:   # a producer waiting for room sees the stop
                room.release()

    def _cycled(self, ctx):
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


class Window(Unary):
    def __init__(self, input_dataset, size, shift, stride, drop_remainder):
        super().__init__(input_dataset)
        self._size = positive_int(size, "size")
        self._shift = self._size if shift is None else positive_int(shift, "shift")
        self._stride = positive_int(stride, "stride")
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


class GroupByWindow(Unary):
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
        self._size_fn = None if window_size_func is None else TracedFunction(
            window_size_func, TensorSpec([], D.int64), "window_size_func")
        self._size = None if window_size is None else positive_int(window_size, "window_size")
        self._reduce = DatasetFunction(
            reduce_func, (TensorSpec([], D.int64), structure.DatasetSpec(self.element_spec)),
            "group_by_window")
        self.element_spec = self._reduce.output_spec

    def _window_size(self, key):
        if self._size is not None:
            return self._size
        return int(self._size_fn((np.array(key, np.int64),))[0])

    def _flush(self, key, rows, ctx):
        window = Materialized(self._input.element_spec, rows)
        yield from self._reduce((np.array(key, np.int64), window))._components(ctx)

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

    class _Keyed(Unary):
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
                         lambda key: gather(np.array(sizes, np.int64), key))


TRANSFORMATIONS.update(
    Zip=Zip, Counter=Counter, Concatenate=Concatenate, Choose=Choose,
    sample_from_datasets=sample_from_datasets, Interleave=Interleave, Window=Window,
    GroupByWindow=GroupByWindow, bucket_by_sequence_length=bucket_by_sequence_length)
structure.DATASET_CLASSES["Materialized"] = Materialized
