"""`tf.data.Dataset`: the base class, its sources and `tf.data.Options`.

A dataset is a recipe: `element_spec` (nested TensorSpecs), a cardinality, and
`_components(ctx)`, a Python iterator over flat tuples of NumPy arrays built fresh for each
iterator (`ctx`: the iterator's seeds, see context.py). The transformations are in
transforms.py, the iterators (eager and inside `tf.function`) in iterator.py.
"""
from __future__ import annotations

import glob

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from .. import nest
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from ..composite.ragged_tensor import RaggedTensorSpec
from ..composite.sparse_tensor import SparseTensorSpec
from ..function.specs import TensorSpec
from . import composites, structure
from .context import INFINITE, UNKNOWN
from .dataset_functions import RecordedConstruction
from .iterator import NumpyIterator, make_iterator, reduce_dataset, staged_for
from .option_groups import GROUPS

# The transformations by name (the classes, and the builders that compose several), registered
# by transforms.py and combine.py when imported: they subclass Dataset, so this module cannot
# import them; the package's __init__ imports both.
TRANSFORMATIONS: dict = {}

AUTOTUNE = -1
tf_export("data.AUTOTUNE", "data.experimental.AUTOTUNE")(AUTOTUNE)
tf_export("data.INFINITE_CARDINALITY", "data.experimental.INFINITE_CARDINALITY")(INFINITE)
tf_export("data.UNKNOWN_CARDINALITY", "data.experimental.UNKNOWN_CARDINALITY")(UNKNOWN)


@tf_export("data.Options")
class Options:
    """TF's `tf.data.Options`: recorded and merged; `deterministic` is honoured (False lets
    the parallel `map`, `interleave` and `batch` without their own `deterministic` argument
    yield elements as they complete)."""

    _FIELDS = ("deterministic", "experimental_deterministic", "experimental_optimization",
               "experimental_distribute", "experimental_threading", "threading",
               "autotune", "experimental_slack", "experimental_external_state_policy",
               "experimental_symbolic_checkpoint", "experimental_warm_start")

    def __init__(self):
        for f in self._FIELDS:
            group = GROUPS.get(f)
            object.__setattr__(self, f, group() if group is not None else None)

    def __setattr__(self, name, value):
        if name not in self._FIELDS:
            raise AttributeError(f"Cannot set the property {name} on Options.")
        object.__setattr__(self, name, value)

    def merge(self, options):
        out = Options()
        for f in self._FIELDS:
            mine, theirs = getattr(self, f), getattr(options, f)
            object.__setattr__(out, f, mine.merged(theirs) if f in GROUPS else
                               theirs if theirs is not None else mine)
        return out

    def __eq__(self, other):
        return isinstance(other, Options) and all(
            getattr(self, f) == getattr(other, f) for f in self._FIELDS)


@tf_export("data.Dataset")
class Dataset(metaclass=RecordedConstruction):
    """The base of every dataset; subclasses set `element_spec` and implement
    `_components(ctx)` and `_cardinality()`."""

    _inputs: tuple = ()
    element_spec = None

    # --- what a dataset is --------------------------------------------------------------------
    def _components(self, ctx):
        raise NotImplementedError

    def _cardinality(self) -> int:
        return UNKNOWN

    def _indexed(self, ctx):
        """(an iterator over element indices, `gather(indices)` -> the batch of those
        elements) when this dataset's elements are rows of arrays, in an order that only
        moves indices (slices, shuffled); else None. `batch` then gathers each batch in
        one indexing per component instead of stacking element by element."""
        return None

    def cardinality(self):
        return convert_to_tensor(np.int64(self._cardinality()))

    @property
    def _type_spec(self):
        return structure.DatasetSpec(self.element_spec)

    def options(self) -> Options:
        opts = Options()
        for inp in self._inputs:
            opts = opts.merge(inp.options())
        own = getattr(self, "_own_options", None)
        return opts.merge(own) if own is not None else opts

    def __len__(self):
        n = self._cardinality()
        if n == INFINITE:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self):
        return True

    def __iter__(self):
        return make_iterator(self)

    def _autograph_staged_for(self, *loop):
        staged_for(self, *loop)

    def __repr__(self):
        name = type(self).__name__.removesuffix("Dataset")  # TextLineDataset: TextLineDatasetV2
        return f"<{name}DatasetV2 element_spec={self.element_spec}>"

    def as_numpy_iterator(self):
        def visit(spec):
            if not isinstance(spec, (TensorSpec, SparseTensorSpec, RaggedTensorSpec)):
                raise TypeError(f"Dataset.as_numpy_iterator() is not supported for datasets "
                                f"that produce values of type {type(spec).__name__}")
        nest.map_structure(visit, self.element_spec)
        return NumpyIterator(self)

    def apply(self, transformation_func):
        out = transformation_func(self)
        if not isinstance(out, Dataset):
            raise TypeError("`transformation_func` must return a `tf.data.Dataset` object.")
        return out

    # --- transformations (transforms.py, combine.py) -------------------------------------------
    def map(self, map_func, num_parallel_calls=None, deterministic=None, synchronous=None,
            use_unbounded_threadpool=False, name=None):
        return TRANSFORMATIONS["Map"](self, map_func, num_parallel_calls, deterministic)

    def filter(self, predicate, name=None):
        return TRANSFORMATIONS["Filter"](self, predicate)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None, name=None):
        return TRANSFORMATIONS["Batch"](self, batch_size, drop_remainder, num_parallel_calls,
                                        deterministic)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False, name=None):
        return TRANSFORMATIONS["PaddedBatch"](self, batch_size, padded_shapes, padding_values,
                                              drop_remainder)

    def ragged_batch(self, batch_size, drop_remainder=False, row_splits_dtype=D.int64,
                     name=None):
        return TRANSFORMATIONS["ragged_batch"](self, batch_size, drop_remainder,
                                               row_splits_dtype)

    def sparse_batch(self, batch_size, row_shape, name=None):
        return TRANSFORMATIONS["sparse_batch"](self, batch_size, row_shape)

    def unbatch(self, name=None):
        return TRANSFORMATIONS["Unbatch"](self)

    def rebatch(self, batch_size, drop_remainder=False, name=None):
        return TRANSFORMATIONS["Rebatch"](self, batch_size, drop_remainder)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        return TRANSFORMATIONS["Shuffle"](self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count=None, name=None):
        return TRANSFORMATIONS["Repeat"](self, count)

    def take(self, count, name=None):
        return TRANSFORMATIONS["Take"](self, count)

    def skip(self, count, name=None):
        return TRANSFORMATIONS["Skip"](self, count)

    def take_while(self, predicate, name=None):
        return TRANSFORMATIONS["TakeWhile"](self, predicate)

    def prefetch(self, buffer_size, name=None):
        return TRANSFORMATIONS["Prefetch"](self, buffer_size)

    def cache(self, filename="", name=None):
        return TRANSFORMATIONS["Cache"](self, filename)

    def interleave(self, map_func, cycle_length=None, block_length=None,
                   num_parallel_calls=None, deterministic=None, name=None):
        return TRANSFORMATIONS["Interleave"](self, map_func, cycle_length, block_length,
                                             num_parallel_calls, deterministic)

    def flat_map(self, map_func, name=None):
        return TRANSFORMATIONS["Interleave"](self, map_func, 1, 1)

    def enumerate(self, start=0, name=None):
        return TRANSFORMATIONS["Zip"]((TRANSFORMATIONS["Counter"](start), self))

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        return TRANSFORMATIONS["Window"](self, size, shift, stride, drop_remainder)

    def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None,
                        name=None):
        return TRANSFORMATIONS["GroupByWindow"](self, key_func, reduce_func, window_size,
                                                window_size_func)

    def bucket_by_sequence_length(self, element_length_func, bucket_boundaries,
                                  bucket_batch_sizes, padded_shapes=None, padding_values=None,
                                  pad_to_bucket_boundary=False, no_padding=False,
                                  drop_remainder=False, name=None):
        return TRANSFORMATIONS["bucket_by_sequence_length"](
            self, element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
            padding_values, pad_to_bucket_boundary, no_padding, drop_remainder)

    def scan(self, initial_state, scan_func, name=None):
        return TRANSFORMATIONS["Scan"](self, initial_state, scan_func)

    def unique(self, name=None):
        return TRANSFORMATIONS["Unique"](self)

    def rejection_resample(self, class_func, target_dist, initial_dist=None, seed=None,
                           name=None):
        return TRANSFORMATIONS["RejectionResample"](self, class_func, target_dist,
                                                    initial_dist, seed)

    def with_options(self, options, name=None):
        return TRANSFORMATIONS["WithOptions"](self, options)

    def reduce(self, initial_state, reduce_func, name=None):
        return reduce_dataset(self, initial_state, reduce_func)

    def concatenate(self, dataset, name=None):
        return TRANSFORMATIONS["Concatenate"](self, dataset)

    # --- sources --------------------------------------------------------------------------------
    @staticmethod
    def from_tensors(tensors, name=None):
        return _Tensors(tensors)

    @staticmethod
    def from_tensor_slices(tensors, name=None):
        return _TensorSlices(tensors)

    @staticmethod
    def range(*args, output_type=D.int64, name=None):
        return _Range(args, output_type)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None,
                       output_signature=None, name=None):
        return _Generator(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def zip(*args, datasets=None, name=None):
        if datasets is not None and args:
            raise TypeError("Both `*args` and `datasets` cannot be set.")
        if datasets is None:
            if not args:
                raise TypeError("Must pass at least one dataset to `zip`.")
            datasets = args[0] if len(args) == 1 else args
        return TRANSFORMATIONS["Zip"](datasets)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        patterns = np.asarray(structure.host(file_pattern).numpy(), object).reshape(-1)
        names = sorted({f for p in patterns for f in glob.glob(
            p.decode() if isinstance(p, bytes) else str(p))})
        if not names:
            shown = ", ".join(p.decode() if isinstance(p, bytes) else str(p) for p in patterns)
            raise errors.InvalidArgumentError(
                None, None, f"Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. "
                            f"Summarized data: b'No files matched pattern: {shown}'")
        ds = _TensorSlices(structure.host(np.array([n.encode() for n in names], object)))
        return ds.shuffle(len(names), seed=seed) if shuffle is None or shuffle else ds

    @staticmethod
    def counter(start=0, step=1, dtype=D.int64, name=None):
        return TRANSFORMATIONS["Counter"](start, step, dtype)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        return TRANSFORMATIONS["Choose"](datasets, choice_dataset, stop_on_empty_dataset)

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                             rerandomize_each_iteration=None):
        return TRANSFORMATIONS["sample_from_datasets"](
            datasets, weights, seed, stop_on_empty_dataset, rerandomize_each_iteration)


class _Tensors(Dataset):
    def __init__(self, tensors):
        self.element_spec, self._value = structure.specs_of(structure.normalize(tensors))

    def _components(self, ctx):
        yield self._value

    def _cardinality(self):
        return 1


class _TensorSlices(Dataset):
    def __init__(self, tensors):
        value = structure.normalize(tensors)
        spec, flat = structure.specs_of(value)
        flat_spec = structure.flat_specs(spec)
        if not flat_spec:
            raise ValueError("Invalid `element_spec`: it has no tensors.")
        dims = set()
        for s, a in zip(flat_spec, flat):
            if s.shape.rank == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            dims.add(composites.rule(s).nrows(a))
        if len(dims) > 1:
            a, b = sorted(dims)[:2]
            raise ValueError(f"Dimensions {b} and {a} are not compatible")
        self._n = dims.pop()
        self._composite = composites.has_composites(flat_spec)
        # a composite's rows are cut once; dense rows are views indexed per element
        self._flat = tuple(composites.rule(s).rows(s, a) for s, a in zip(flat_spec, flat)) \
            if self._composite else flat
        self.element_spec = structure.unbatched(spec)

    def _components(self, ctx):
        return zip(*self._flat)

    def _indexed(self, ctx):
        if self._composite:
            return None
        return iter(range(self._n)), self._gather

    def _gather(self, indices):
        return tuple(a[indices] for a in self._flat)

    def _cardinality(self):
        return self._n


class _Range(Dataset):
    def __init__(self, args, dtype):
        if not 1 <= len(args) <= 3:
            raise TypeError(f"range() takes from 1 to 3 positional arguments "
                            f"({len(args)} given)")
        ints = [int(structure.host(a).numpy()) for a in args]
        start, stop, step = ([0] + ints + [1])[:3] if len(ints) == 1 else (ints + [1])[:3]
        if step == 0:
            raise errors.InvalidArgumentError(None, None, "step must be a non-zero integer.")
        self._range = range(start, stop, step)
        self._dtype = D.as_dtype(dtype)
        self.element_spec = TensorSpec([], self._dtype)

    def _components(self, ctx):
        np_type = self._dtype.np
        for i in self._range:
            yield (np.array(i, np_type),)

    def _cardinality(self):
        return len(self._range)


class _Generator(Dataset):
    def __init__(self, generator, output_types, output_shapes, args, output_signature):
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        if output_signature is not None:
            if output_types is not None or output_shapes is not None:
                raise TypeError("The `output_types` and `output_shapes` arguments must not "
                                "be specified when `output_signature` is specified.")
            nest.map_structure(self._check_spec, output_signature)
            spec = output_signature
        else:
            if output_types is None:
                raise TypeError("To specify the output signature you need to provide either "
                                "the `output_signature` argument or the `output_types` "
                                "argument.")
            if output_shapes is None:
                spec = nest.map_structure(lambda t: TensorSpec(None, t), output_types)
            else:
                shapes = structure.flatten_like(output_types, output_shapes)
                spec = nest.pack_sequence_as(output_types, [
                    TensorSpec(s, t) for t, s in zip(nest.flatten(output_types), shapes)])
        self.element_spec = spec
        self._flat_spec = structure.flat_specs(spec)
        self._generator = generator
        self._args = tuple(structure.host(a) for a in (args or ()))

    @staticmethod
    def _check_spec(s):
        if not isinstance(s, (TensorSpec, SparseTensorSpec, RaggedTensorSpec)):
            raise TypeError(f"`output_signature` must contain objects that are subclass of "
                            f"`tf.TypeSpec` but found {type(s)} which is not.")

    def _components(self, ctx):
        args = [a.numpy() for a in self._args]
        for value in self._generator(*args):
            yield self._convert(value)

    def _convert(self, value):
        try:
            flat = structure.flatten_like(self.element_spec, value)
        except (TypeError, ValueError) as e:
            raise self._mismatch(value) from e
        out = []
        for spec, v in zip(self._flat_spec, flat):
            if composites.rule(spec).composite:
                out.append(self._convert_composite(spec, v))
                continue
            # as TF's script op: NumPy's conversion to the declared dtype (1.5 -> 1 for int32)
            try:
                # strings through the Tensor conversion: Python str becomes bytes
                a = structure.host(v, dtype=D.string).numpy() if spec.dtype is D.string \
                    else np.asarray(v, dtype=spec.dtype.np)
            except (TypeError, ValueError) as e:
                raise errors.InvalidArgumentError(
                    None, None, f"TypeError: `generator` yielded an element that could not be "
                                f"converted to the expected type. The expected type was "
                                f"{spec.dtype.name}, but the yielded element was {v}.") from e
            if not spec.shape.is_compatible_with(a.shape):
                raise errors.InvalidArgumentError(
                    None, None, f"TypeError: `generator` yielded an element of shape "
                                f"{a.shape} where an element of shape "
                                f"{tuple(spec.shape.as_list())} was expected.")
            out.append(a)
        return tuple(out)

    def _convert_composite(self, spec, v):
        rule = composites.value_rule(v)
        if rule is None and isinstance(spec, RaggedTensorSpec):
            try:   # as TF, a dense value is taken where a ragged one is declared ...
                v = structure.host(v)
            except (TypeError, ValueError) as e:
                raise self._mismatch(v) from e
        elif rule is None:
            raise self._mismatch(v)
        got = structure.spec_of(v)
        if not spec.is_compatible_with(got):   # ... and refused unless it is ragged
            raise errors.InvalidArgumentError(
                None, None, f"TypeError: `generator` yielded an element of {got} where an "
                            f"element of {spec} was expected.")
        return composites.value_rule(v).from_value(v)[1]

    def _mismatch(self, value):
        return errors.InvalidArgumentError(
            None, None, f"TypeError: `generator` yielded an element that did not match the "
                        f"expected structure. The expected structure was "
                        f"{self._types()}, but the yielded element was {value}.")

    def _types(self):
        return nest.map_structure(
            lambda s: s if composites.rule(s).composite else s.dtype, self.element_spec)


def file_names(filenames, wrong_dtype: str) -> list:
    """The names in a reader's `filenames` (a string, a list or a string tensor); another
    dtype raises TypeError with `wrong_dtype` formatted with that dtype (each reader has
    TF's own text)."""
    names = structure.host(filenames)
    if names.dtype is not D.string:
        raise TypeError(wrong_dtype.format(names.dtype))
    return [f.decode() if isinstance(f, bytes) else str(f)
            for f in np.asarray(names.numpy(), object).reshape(-1)]


@tf_export("data.TextLineDataset")
class TextLineDataset(Dataset):
    """The lines of text files (without their line endings), file by file."""

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        from .files import check_compression
        self._compression = check_compression(compression_type)
        self._files = file_names(filenames,
                                 "`filenames` must be a `tf.Tensor` of `tf.string`, got {!r}")
        self.element_spec = TensorSpec([], D.string)

    def _components(self, ctx):
        from .files import open_file
        for name in self._files:
            with open_file(name, self._compression) as f:
                for line in f:
                    yield (np.array(line.rstrip(b"\n").rstrip(b"\r"), object),)


structure.DATASET_CLASSES["Dataset"] = Dataset


structure.DatasetSpec.value_type = Dataset
