"""TF's `tf.io` parsing API: `parse_example`, `parse_single_example`,
`parse_single_sequence_example` with the feature configurations (`FixedLenFeature`,
`VarLenFeature` -> SparseTensor, `FixedLenSequenceFeature`, `RaggedFeature` without
partitions), `serialize_tensor`/`parse_tensor` (TensorProto bytes) and `decode_raw`.

The parse ops are registry ops with host kernels (runtime/kernels/parsing.py): they run
eagerly, in `tf.function` on the graph executor and inside `Dataset.map`; XLA refuses them.
"""
from __future__ import annotations

import collections

from ...ir import dtypes as D
from ...ir import errors
from ..composite.ragged_tensor import RaggedTensor
from ..composite.sparse_tensor import SparseTensor
from ..eager.dispatch import apply, convert_to_tensor
from ..export import runs, tf_export
from .array import reshape


@tf_export("io.FixedLenFeature")
class FixedLenFeature(collections.namedtuple("FixedLenFeature",
                                             ["shape", "dtype", "default_value"])):
    """A feature of a fixed shape: a dense tensor; required unless `default_value` is set."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


@tf_export("io.VarLenFeature")
class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature of any length: a SparseTensor (one row per example when batched)."""


@tf_export("io.FixedLenSequenceFeature")
class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """A feature of any number of `shape`-shaped items: dense, padded with `default_value`
    to the longest example of a batch."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


@tf_export("io.RaggedFeature")
class RaggedFeature(collections.namedtuple(
        "RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype", "validate"])):
    """A feature of any length: a RaggedTensor when batched, a vector for one example.
    flowjit reads the values only: `partitions` must be empty."""

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=D.int32,
                validate=False):
        return super().__new__(cls, dtype, value_key, partitions, row_splits_dtype, validate)


_ORDER = {VarLenFeature: 0, FixedLenFeature: 1, FixedLenSequenceFeature: 1, RaggedFeature: 2}


def _config(features, in_sequence=False):
    """(the op's feature tuples, their dense_defaults operands, the keys and configs in output
    order): sparse features first, then dense, then ragged, each by key, as TF orders them."""
    rows, defaults = [], []
    keys = sorted(features.items(), key=lambda kv: (_ORDER.get(type(kv[1]), 3), kv[0]))
    for key, spec in keys:
        dtype = D.as_dtype(spec.dtype)
        if isinstance(spec, VarLenFeature):
            rows.append(("sparse", key, dtype, ()))
        elif isinstance(spec, RaggedFeature):
            if spec.partitions:
                raise NotImplementedError("flowjit's RaggedFeature reads the values only "
                                          "(no partitions)")
            rows.append(("ragged", spec.value_key or key, dtype, ()))
        elif isinstance(spec, FixedLenSequenceFeature):
            if not spec.allow_missing and not in_sequence:
                raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing "
                                 "to be True.")
            rows.append(("sequence", key, dtype, tuple(int(d) for d in spec.shape)))
            if in_sequence and spec.allow_missing and spec.default_value is None:
                defaults.append(convert_to_tensor(_fill(dtype), dtype=dtype))
            else:
                defaults.append(_default(spec.default_value, dtype, None))
        elif isinstance(spec, FixedLenFeature):
            shape = list(spec.shape) if spec.shape is not None else []
            if shape and shape[0] is None:
                raise ValueError(f"First dimension of shape for feature {key} unknown. Consider "
                                 f"using FixedLenSequenceFeature. Received feature={spec}.")
            rows.append(("dense", key, dtype, tuple(int(d) for d in shape)))
            defaults.append(_default(spec.default_value, dtype, shape))
        else:
            raise ValueError(f"Invalid feature {key}:{spec}.")
    return tuple(rows), defaults, keys


def _fill(dtype):
    return b"" if dtype is D.string else 0


def _default(value, dtype, shape):
    """A dense feature's default as the op takes it: reshaped to the feature's shape (TF's
    Reshape error when it does not fit), or an empty tensor when the feature is required."""
    if value is None:
        return convert_to_tensor([], dtype=dtype)
    value = convert_to_tensor(value, dtype=dtype)
    return value if shape is None else reshape(value, shape)


def _assemble(keys, flat, batched):
    out, it = {}, iter(flat)
    for key, spec in keys:
        if isinstance(spec, VarLenFeature):
            out[key] = SparseTensor(next(it), next(it), next(it))
        elif isinstance(spec, RaggedFeature):
            values = next(it)   # (flowjit's RaggedTensor keeps int64 row splits)
            out[key] = (RaggedTensor.from_row_splits(values, next(it), validate=False)
                        if batched else values)
        else:
            out[key] = next(it)
    return out


def _check_features(features):
    if not features:
        raise ValueError("Invalid argument: features cannot be empty.")
    return dict(features)


@tf_export("io.parse_example")
def parse_example(serialized, features, example_names=None, name=None):
    """Serialized `tf.train.Example`s (a vector, or a scalar) as a dict of tensors: a batch
    dim first for each feature when `serialized` is a vector."""
    features = _check_features(features)
    serialized = _serialized_tensor(serialized, scalar=False)
    config, defaults, keys = _config(features)
    names = convert_to_tensor([] if example_names is None else example_names, dtype=D.string)
    flat = apply("parse_example", (serialized, names, *defaults), {"features": config})
    flat = flat if isinstance(flat, (list, tuple)) else [flat]
    return _assemble(keys, flat, batched=serialized.shape.rank != 0)


@tf_export("io.parse_single_example")
@runs("parse_example")
def parse_single_example(serialized, features, example_names=None, name=None):
    """One serialized `tf.train.Example` (a scalar) as a dict of tensors."""
    return parse_example(_serialized_tensor(serialized, scalar=True), features, name=name)


def _sequence_examples(serialized, context_features, sequence_features):
    """(context, feature lists, their lengths) of SequenceExamples, a scalar or a vector."""
    if not context_features and not sequence_features:
        raise ValueError("Both context_features and sequence_features are None, but at least "
                         "one should have values.")
    context, context_defaults, context_keys = _config(dict(context_features or {}))
    sequence, sequence_defaults, sequence_keys = _config(dict(sequence_features or {}),
                                                         in_sequence=True)
    batched = serialized.shape.rank != 0
    if batched and any(kind == "ragged" for kind, *_ in sequence):
        raise NotImplementedError("flowjit's parse_sequence_example reads ragged feature "
                                  "lists of one SequenceExample only")
    flat = apply("parse_sequence_example", (serialized, *context_defaults, *sequence_defaults),
                 {"context": context, "sequence": sequence})
    flat = list(flat) if isinstance(flat, (list, tuple)) else [flat]
    n_context = sum(3 if k == "sparse" else 2 if k == "ragged" and batched else 1
                    for k, *_ in context)
    dense_lists = [key for (kind, *_), (key, _spec) in zip(sequence, sequence_keys)
                   if kind == "sequence"]
    n_lengths = len(dense_lists)
    lengths = dict(zip(dense_lists, flat[len(flat) - n_lengths:]))
    return (_assemble(context_keys, flat[:n_context], batched=batched),
            _assemble(sequence_keys, flat[n_context:len(flat) - n_lengths], batched=True),
            lengths)


def _serialized_tensor(serialized, scalar: bool):
    serialized = convert_to_tensor(serialized, dtype=D.string)
    if scalar and serialized.shape.rank not in (None, 0):
        raise errors.noted(ValueError("Input serialized must be a scalar"))
    if scalar:
        return reshape(serialized, [])
    if serialized.shape.rank is None:   # the outputs' structure depends on it
        raise errors.noted(ValueError("flowjit needs the rank of `serialized` (a scalar or a "
                                      "vector) while tracing; give the function's signature "
                                      "a shape"))
    return serialized


@tf_export("io.parse_single_sequence_example")
@runs("parse_sequence_example")
def parse_single_sequence_example(serialized, context_features=None, sequence_features=None,
                                  example_name=None, name=None):
    """One serialized `tf.train.SequenceExample`: (context features, feature lists) as
    dicts of tensors; a feature list has one row per step."""
    context, lists, _ = _sequence_examples(_serialized_tensor(serialized, scalar=True),
                                           context_features, sequence_features)
    return context, lists


@tf_export("io.parse_sequence_example")
def parse_sequence_example(serialized, context_features=None, sequence_features=None,
                           example_names=None, name=None):
    """Serialized `tf.train.SequenceExample`s (a vector, or a scalar): (context features,
    feature lists padded to the longest example, the number of steps of each dense feature
    list) as dicts of tensors."""
    return _sequence_examples(_serialized_tensor(serialized, scalar=False), context_features,
                              sequence_features)


@tf_export("io.serialize_tensor")
def serialize_tensor(tensor, name=None):
    """The tensor as a TensorProto's bytes, as TF writes them (a string scalar)."""
    return apply("serialize_tensor", (convert_to_tensor(tensor),))


@tf_export("io.parse_tensor")
def parse_tensor(serialized, out_type, name=None):
    """The tensor a TensorProto's bytes hold; `out_type` must be its dtype."""
    return apply("parse_tensor", (convert_to_tensor(serialized, dtype=D.string),),
                 {"out_type": D.as_dtype(out_type)})


@tf_export("io.decode_raw")
def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """Each string's bytes reinterpreted as numbers of `out_type` (one more dim)."""
    return apply("decode_raw", (convert_to_tensor(input_bytes, dtype=D.string),),
                 {"out_type": D.as_dtype(out_type), "little_endian": bool(little_endian),
                  "fixed_length": int(fixed_length or 0)})
