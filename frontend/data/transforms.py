"""The transformations of one `tf.data.Dataset` (those over several datasets, or datasets
of datasets, are in combine.py).

Each class sets `element_spec`, implements `_components(ctx)` (a fresh Python iterator over
flat tuples of arrays per iterator) and `_cardinality()` with TF's rules. Functions that
return tensors (`map`, `filter`, `scan`, keys) are traced once (functions.py).
"""
from __future__ import annotations

import collections
import concurrent.futures
import itertools
import os
import threading

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ...ir.shapes import TensorShape
from .. import nest
from ..function.specs import TensorSpec
from . import composites, structure
from .context import INFINITE, UNKNOWN
from .dataset import AUTOTUNE, TRANSFORMATIONS, Dataset
from .functions import TracedFunction

DEFAULT_PARALLELISM = os.cpu_count() or 1


def as_int(value, name) -> int:
    return int(structure.host(value, dtype=D.int64).numpy())


def positive_int(value, name) -> int:
    n = as_int(value, name)
    if n <= 0:
        raise errors.InvalidArgumentError(None, None, f"{name} must be greater than zero.")
    return n


def parallelism(num_parallel_calls):
    """The threads of a `num_parallel_calls` (AUTOTUNE: one per core), or None."""
    n = num_parallel_calls
    if n is None:
        return None
    return DEFAULT_PARALLELISM if as_int(n, "num_parallel_calls") == AUTOTUNE \
        else positive_int(n, "num_parallel_calls")


class Unary(Dataset):
    def __init__(self, input_dataset):
        if not isinstance(input_dataset, Dataset):
            raise TypeError(f"expected a tf.data.Dataset, got {input_dataset!r}")
        self._input = input_dataset
        self._inputs = (input_dataset,)
        self.element_spec = input_dataset.element_spec

    def _cardinality(self):
        return self._input._cardinality()


# --- element-wise ---------------------------------------------------------------------------
class Map(Unary):
    def __init__(self, input_dataset, func, num_parallel_calls, deterministic=None):
        super().__init__(input_dataset)
        self._fn = TracedFunction(func, input_dataset.element_spec, "map")
        self.element_spec = self._fn.output_spec
        self._parallel = parallelism(num_parallel_calls)
        self._deterministic = deterministic

    def _components(self, ctx):
        fn = self._fn
        if not self._parallel or self._parallel == 1:
            for c in self._input._components(ctx):
                yield fn(c)
            return
        # NumPy kernels release the GIL, so elements mapped on threads overlap
        yield from parallel_apply(fn, self._input._components(ctx), self._parallel,
                                  ordered(self._deterministic, ctx))


def ordered(deterministic, ctx) -> bool:
    """Whether a parallel transformation keeps the input order: its own `deterministic`
    argument when given, else the pipeline's options (TF: the argument wins)."""
    return ctx.deterministic if deterministic is None else bool(deterministic)


def parallel_apply(fn, items, parallel, in_order):
    """`fn` of each of `items` on `parallel` threads, up to twice that many in flight; the
    results in the items' order, or (not `in_order`) as they complete, so a slow item does
    not hold back the faster ones after it."""
    pool = concurrent.futures.ThreadPoolExecutor(parallel)
    pending = collections.deque()
    try:
        for item in items:
            pending.append(pool.submit(fn, item))
            while len(pending) >= 2 * parallel:
                yield from _collect(pending, in_order)
        while pending:
            yield from _collect(pending, in_order)
    finally:
        for f in pending:
            f.cancel()
        pool.shutdown(wait=False)


def _collect(pending, in_order):
    """Results taken out of `pending` (a deque of futures): the oldest one, waiting for it;
    or every one done once at least one is (in submission order among them)."""
    if in_order:
        yield pending.popleft().result()
        return
    concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
    done = [f for f in pending if f.done()]
    for f in done:
        pending.remove(f)
    for f in done:
        yield f.result()


def _predicate(func, spec, what):
    fn = TracedFunction(func, spec, what)
    out = fn.output_spec
    if not (isinstance(out, TensorSpec) and out.dtype is D.bool_ and out.shape.rank == 0):
        raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar "
                         f"tensor, but its return type is {out}.")
    return fn


class Filter(Unary):
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
        Unary.__init__(self, input_dataset)
        self._fn = _predicate(predicate, self.element_spec, "take_while")

    def _components(self, ctx):
        fn = self._fn
        for c in self._input._components(ctx):
            if not fn(c)[0]:
                return
            yield c

    def _cardinality(self):
        return UNKNOWN


class Scan(Unary):
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


class Unique(Unary):
    def __init__(self, input_dataset):
        super().__init__(input_dataset)
        spec = self.element_spec
        ok = (D.int32, D.int64, D.string)
        if len(structure.flat_specs(spec)) != 1:
            raise errors.InvalidArgumentError(
                None, "UniqueDataset", "UniqueDataset only supports inputs with a single "
                                       "component.")
        if not isinstance(spec, TensorSpec):
            raise errors.InvalidArgumentError(
                None, "UniqueDataset", "UniqueDataset only supports inputs with a single "
                                       "`tf.int32`, `tf.int64`, or `tf.string` component.")
        if spec.dtype not in ok:
            raise TypeError(f"`tf.data.Dataset.unique` does not support type "
                            f"<dtype: '{spec.dtype.name}'> -- only `tf.int32`, `tf.int64`, "
                            f"and `tf.string` are supported.")
        if spec.shape.rank != 0:
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


class WithOptions(Unary):
    def __init__(self, input_dataset, options):
        super().__init__(input_dataset)
        self._own_options = options

    def _components(self, ctx):
        return self._input._components(ctx)


# --- counting ----------------------------------------------------------------------------------
class Repeat(Unary):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = -1 if count is None else as_int(count, "count")

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


class Take(Unary):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = as_int(count, "count")

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


class Skip(Unary):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = as_int(count, "count")

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
class Batch(Unary):
    def __init__(self, input_dataset, batch_size, drop_remainder, num_parallel_calls=None,
                 deterministic=None):
        super().__init__(input_dataset)
        self._size = positive_int(batch_size, "Batch size")
        self._drop = bool(drop_remainder)
        self._parallel = parallelism(num_parallel_calls)
        self._deterministic = deterministic
        self.element_spec = structure.batched(self.element_spec,
                                              self._size if self._drop else None)
        self._rules = [(s, composites.rule(s))
                       for s in structure.flat_specs(input_dataset.element_spec)]

    def _batch(self, rows):
        return tuple(r.batch(s, list(parts)) for (s, r), parts in zip(self._rules, zip(*rows)))

    def _components(self, ctx):
        indexed = self._input._indexed(ctx) if self._gathers else None
        if indexed is None:
            groups, assemble = self._row_groups(ctx), self._batch
        else:
            groups, assemble = self._index_chunks(indexed[0]), indexed[1]
        if not self._parallel:
            return map(assemble, groups)
        if ordered(self._deterministic, ctx):
            # batches assembled by a thread, up to `parallel` ahead, in order
            return run_ahead(map(assemble, groups), self._parallel)
        return parallel_apply(assemble, groups, self._parallel, False)

    _gathers = True   # whole batches may be gathered from an indexed input

    def _index_chunks(self, indices):
        """The element indices of each batch (`gather` turns them into the batch)."""
        while True:
            chunk = list(itertools.islice(indices, self._size))
            if not chunk or (self._drop and len(chunk) < self._size):
                return
            yield np.array(chunk, np.int64)

    def _row_groups(self, ctx):
        """The input elements of each batch, as lists of components."""
        rows = []
        for c in self._input._components(ctx):
            rows.append(c)
            if len(rows) == self._size:
                yield rows
                rows = []
        if rows and not self._drop:
            yield rows

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
    _gathers = False

    def __init__(self, input_dataset, batch_size, padded_shapes, padding_values,
                 drop_remainder):
        Unary.__init__(self, input_dataset)
        self._size = positive_int(batch_size, "Batch size")
        self._drop = bool(drop_remainder)
        self._parallel = None
        specs = structure.flat_specs(self.element_spec)
        for s in specs:
            if not isinstance(s, TensorSpec):
                raise TypeError(f"`padded_batch` is only supported for datasets that produce "
                                f"tensor elements but type spec of elements in the input "
                                f"dataset is not a subclass of TensorSpec: `{s}`.")
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
                        None, None, "Attempted to pad to a smaller size than the input "
                                    "element.")
                batch[(k,) + tuple(slice(0, n) for n in p.shape)] = p
            out.append(batch)
        return tuple(out)


class Unbatch(Unary):
    def __init__(self, input_dataset):
        super().__init__(input_dataset)
        self.element_spec = structure.unbatched(self.element_spec)
        specs = structure.flat_specs(input_dataset.element_spec)
        self._rules = [(s, composites.rule(s)) for s in specs] \
            if composites.has_composites(specs) else None

    def _components(self, ctx):
        for c in self._input._components(ctx):
            if self._rules is not None:   # composites are cut into their rows
                c = tuple(r.rows(s, a) for (s, r), a in zip(self._rules, c))
            n = len(c[0])
            if any(len(a) != n for a in c[1:]):
                raise errors.InvalidArgumentError(
                    None, None, "Input element must have the same batch size in each "
                                "component.")
            for i in range(n):
                yield tuple(a[i] for a in c)

    def _cardinality(self):
        n = self._input._cardinality()
        dims = {composites.rule(s).static_rows(s)
                for s in structure.flat_specs(self._input.element_spec)}
        if n >= 0 and len(dims) == 1 and None not in dims:
            return n * dims.pop()
        return INFINITE if n == INFINITE else UNKNOWN


class Rebatch(Batch):
    def __init__(self, input_dataset, batch_size, drop_remainder):
        super().__init__(Unbatch(input_dataset), batch_size, drop_remainder)


# --- order ----------------------------------------------------------------------------------------
class Shuffle(Unary):
    """TF's shuffle buffer: fill `buffer_size` elements, emit a random one and refill its
    place; the generator per start comes from the iterator's context (context.py)."""

    def __init__(self, input_dataset, buffer_size, seed, reshuffle_each_iteration):
        super().__init__(input_dataset)
        self._size = as_int(buffer_size, "buffer_size")
        if self._size == AUTOTUNE:
            self._size = 1 << 16
        elif self._size <= 0:
            raise errors.InvalidArgumentError(
                None, None, "buffer_size must be greater than zero or UNKNOWN_CARDINALITY")
        self._seed = None if seed is None else as_int(seed, "seed")
        self._reshuffle = True if reshuffle_each_iteration is None else \
            bool(reshuffle_each_iteration)
        if self._seed is None and not self._reshuffle:
            # the same order every epoch: one seed drawn with the dataset
            self._seed = int(np.random.SeedSequence().generate_state(1)[0])

    def _components(self, ctx):
        return self._shuffled(self._input._components(ctx), ctx)

    def _indexed(self, ctx):
        inner = self._input._indexed(ctx)
        if inner is None:
            return None
        indices, gather = inner
        return self._shuffled(indices, ctx), gather

    def _shuffled(self, items, ctx):
        """`items` through the buffer; the same draws whether they are elements or indices
        (random numbers drawn in blocks: one NumPy call per 1024 elements)."""
        rng = ctx.rng(self, self._seed, self._reshuffle)
        draws = iter(())
        buf = list(itertools.islice(items, self._size))
        for c in items:
            u = next(draws, None)
            if u is None:
                draws = iter(rng.random(1024).tolist())
                u = next(draws)
            k = int(u * len(buf))
            yield buf[k]
            buf[k] = c
        while buf:
            u = next(draws, None)
            if u is None:
                draws = iter(rng.random(1024).tolist())
                u = next(draws)
            k = int(u * len(buf))
            buf[k], buf[-1] = buf[-1], buf[k]
            yield buf.pop()


class Prefetch(Unary):
    """A background thread runs the input up to `buffer_size` elements ahead, so the
    pipeline overlaps with the consumer's step."""

    def __init__(self, input_dataset, buffer_size):
        super().__init__(input_dataset)
        n = as_int(buffer_size, "buffer_size")
        self._size = 8 if n == AUTOTUNE else n
        if self._size < 0:
            raise errors.InvalidArgumentError(None, None, "buffer_size must be >= 0 or "
                                                          "AUTOTUNE (-1)")

    def _components(self, ctx):
        if self._size == 0:
            return self._input._components(ctx)
        return run_ahead(self._input._components(ctx), self._size)


def _pull(source):
    """(0, the next item) / (1, None) at the end / (2, the exception source raised)."""
    try:
        return 0, next(source)
    except StopIteration:
        return 1, None
    except BaseException as e:  # handed to the consumer, raised at its next()
        return 2, e


def run_ahead(source, size):
    """`source`'s items in order, a background thread producing up to `size` of them ahead
    of the consumer; the thread stops when the consumer drops the iterator.

    When nothing is ready the consumer produces the next item itself rather than wait for
    the thread: a hand-over between threads costs a wake-up (and the GIL), which on a busy
    machine is longer than producing a cheap item."""
    ready = collections.deque()
    source_lock = threading.Lock()   # held while an item is produced and queued
    # free places in `ready`: the thread takes one per item it queues, the consumer gives
    # one back per queued item it takes (a release never waits for the thread, and unlike
    # a condition's notify it is not lost when the thread is not waiting yet)
    places = threading.Semaphore(size)
    finished, stopped = [False], [False]

    def fill():
        while True:
            places.acquire()
            if stopped[0]:
                return
            with source_lock:
                if finished[0]:
                    return
                item = _pull(source)
                ready.append(item)
                if item[0]:
                    finished[0] = True
                    return

    threading.Thread(target=fill, daemon=True, name="flowjit-prefetch").start()
    try:
        while True:
            try:
                kind, value = ready.popleft()
            except IndexError:
                with source_lock:   # everything queued so far is consumed: produce here
                    if ready:
                        kind, value = ready.popleft()
                        places.release()
                    elif finished[0]:
                        return
                    else:
                        kind, value = _pull(source)
                        finished[0] = bool(kind)
            else:
                places.release()
            if kind == 0:
                yield value
            elif kind == 1:
                return
            else:
                raise value
    finally:
        stopped[0] = True
        places.release()   # wakes the thread if it waits for a place, so it sees the stop


# --- cache --------------------------------------------------------------------------------------
class Cache(Unary):
    """The first complete pass is recorded (in memory, or in `filename` as safetensors: a
    composite as its arrays) and later iterators replay it; a pass cut short records
    nothing, as TF."""

    def __init__(self, input_dataset, filename):
        super().__init__(input_dataset)
        self._file = os.fspath(filename) if not hasattr(filename, "numpy") else \
            filename.numpy().decode()
        self._rows = None
        self._lock = threading.Lock()

    def _stored(self):
        if self._rows is None and self._file:
            from .cache_file import read_cache
            specs = structure.flat_specs(self.element_spec)
            rows = read_cache(self._file, composites.array_specs(specs))
            self._rows = rows if rows is None else [composites.collapse(specs, r) for r in rows]
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
                    specs = structure.flat_specs(self.element_spec)
                    write_cache(self._file, composites.array_specs(specs),
                                [composites.expand(specs, r) for r in recorded])
                self._rows = recorded


TRANSFORMATIONS.update(
    Map=Map, Filter=Filter, TakeWhile=TakeWhile, Scan=Scan, Unique=Unique,
    WithOptions=WithOptions, Repeat=Repeat, Take=Take, Skip=Skip, Batch=Batch,
    PaddedBatch=PaddedBatch, Unbatch=Unbatch, Rebatch=Rebatch, Shuffle=Shuffle,
    Prefetch=Prefetch, Cache=Cache)
