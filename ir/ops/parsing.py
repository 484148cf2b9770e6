"""Parsing ops (`tf.io`): serialized `tf.train.Example`/`SequenceExample` protos into tensors,
TensorProto bytes to and from tensors, raw bytes reinterpreted as numbers. They read strings,
so XLA refuses them (as TF); none is differentiable.

A parse op's `features` attribute lists what to read, in output order: tuples
`(kind, key, dtype, shape)` with kind "dense" (one output: the batch dims + shape), "sequence"
(FixedLenSequenceFeature: a dim of the data's length before shape), "sparse" (VarLenFeature:
indices, values, dense_shape) or "ragged" (RaggedFeature without partitions: values, and
row_splits when batched). Each dense and sequence feature has one `dense_defaults` operand:
the default (an empty tensor when the feature is required) or the padding value.
"""
from __future__ import annotations

from .. import dtypes as D
from ..registry import InferenceError, TT, op
from .strings import check_string

FEATURE_DTYPES = (D.float32, D.int64, D.string)
RAW_DTYPES = (D.float16, D.float32, D.float64, D.int8, D.int16, D.int32, D.int64, D.uint8,
              D.uint16, D.uint32, D.uint64, D.complex64, D.complex128, D.bool_, D.bfloat16)


def feature_outputs(features, batch: tuple, ragged_splits: bool, sparse_rank=None) -> list:
    out = []
    for kind, _key, dtype, shape in features:
        if dtype not in FEATURE_DTYPES:
            raise InferenceError(f"Value for attr 'Tdense' of {dtype.name} is not in the list "
                                 f"of allowed values: float, int64, string")
        if kind == "dense":
            out.append(TT(dtype, batch + tuple(shape)))
        elif kind == "sequence":
            out.append(TT(dtype, batch + (None,) + tuple(shape)))
        elif kind == "sparse":
            rank = sparse_rank or len(batch) + 1
            out += [TT(D.int64, (None, rank)), TT(dtype, (None,)), TT(D.int64, (rank,))]
        else:
            out.append(TT(dtype, (None,)))
            if ragged_splits:
                out.append(TT(D.int64, (None,)))
    return out


def _serialized(t: TT, opname: str, scalar_only=False) -> tuple:
    check_string(t, 0, opname)
    if t.shape is not None and len(t.shape) > (0 if scalar_only else 1):
        wanted = "a scalar" if scalar_only else "a scalar or vector"
        raise InferenceError(f"Expected serialized to be {wanted}, got shape: "
                             f"[{','.join(str(d) for d in t.shape)}]")
    return () if t.shape is None or len(t.shape) == 0 else (t.shape[0],)


@op("parse_example", ("serialized", "names", "dense_defaults*"), attrs=(("features", "any"),),
    differentiable=False)
def _parse_example(types, attrs):
    """Examples (a scalar, or a vector: one row each) parsed into the listed features."""
    batch = _serialized(types[0], "ParseExampleV2")
    return feature_outputs(attrs["features"], batch, ragged_splits=bool(batch))


@op("parse_sequence_example", ("serialized", "dense_defaults*"),
    attrs=(("context", "any"), ("sequence", "any")), differentiable=False)
def _parse_sequence_example(types, attrs):
    """SequenceExamples (a scalar, or a vector: one row each): their context features, their
    feature lists (one row per step; padded to the longest when batched; a ragged list's
    row_splits over the steps), then the number of steps of each dense feature list."""
    batch = _serialized(types[0], "ParseSequenceExampleV2")
    sequence = attrs["sequence"]
    return (feature_outputs(attrs["context"], batch, bool(batch))
            + feature_outputs(sequence, batch, True, sparse_rank=len(batch) + 2)
            + [TT(D.int64, batch) for kind, *_ in sequence if kind == "sequence"])


@op("serialize_tensor", ("tensor",), differentiable=False)
def _serialize_tensor(types, attrs):
    """The tensor as a TensorProto's bytes (a string scalar)."""
    return TT(D.string, ())


@op("parse_tensor", ("serialized",), attrs=(("out_type", "dtype"),), differentiable=False)
def _parse_tensor(types, attrs):
    """The tensor a TensorProto's bytes hold (its shape is known when it runs)."""
    check_string(types[0], 0, "ParseTensor")
    return TT(attrs["out_type"], None)


@op("decode_raw", ("input_bytes",), attrs=(("out_type", "dtype"), ("little_endian", "bool", True),
                                          ("fixed_length", "int", 0)), differentiable=False)
def _decode_raw(types, attrs):
    """Each string's bytes as numbers of out_type: one more dim (of the strings' common size,
    or fixed_length's numbers, zero-padded)."""
    check_string(types[0], 0, "DecodeRaw")
    out = attrs["out_type"]
    if out not in RAW_DTYPES:
        raise InferenceError(f"Value for attr 'out_type' of {out.name} is not in the list of "
                             f"allowed values: half, float, double, int32, uint16, uint8, "
                             f"int16, int8, int64, complex64, complex128, bool, bfloat16")
    shape = types[0].shape
    if shape is None:
        return TT(out, None)
    size = attrs["fixed_length"]
    return TT(out, tuple(shape) + ((size // out.size) if size else None,))
