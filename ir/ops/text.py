"""Text ops (`tf.strings`): regular-expression replacement, hashing strings to buckets
(TF's Fingerprint64, SipHash-2-4 and legacy Hash64, so the buckets are TF's) and splitting a
string into its characters. None is differentiable; XLA has no string type, so they run
eagerly and in the graph executor."""
from __future__ import annotations

from .. import dtypes as D
from ..errors import InvalidArgumentError
from ..registry import InferenceError, TT, op
from ..regex import compile_regex
from .strings import check_string

ENCODINGS = ("UTF-8", "UTF-16-BE", "UTF-32-BE")
DECODE_ERRORS = ("strict", "replace", "ignore")


@op("regex_replace", ("input",), attrs=(("pattern", "str"), ("rewrite", "str"),
                                        ("replace_global", "bool", True)),
    differentiable=False)
def _regex_replace(types, attrs):
    """Each string with the matches of `pattern` (RE2) replaced by `rewrite` (\\0-\\9 name
    groups): every match, or the first with replace_global=False."""
    check_string(types[0], 0, "StaticRegexReplace")
    try:
        compile_regex(attrs["pattern"])
    except InvalidArgumentError as e:
        raise InferenceError(e.message) from None
    return TT(D.string, types[0].shape)


def _buckets(tf_name, keyed=False):
    def infer(types, attrs):
        check_string(types[0], 0, tf_name)
        if attrs["num_buckets"] < 1:
            raise InferenceError(f"Value for attr 'num_buckets' of {attrs['num_buckets']} "
                                 f"must be at least minimum 1")
        if keyed and len(attrs["key"]) != 2:
            raise InferenceError("Key must have 2 elements")
        return TT(D.int64, types[0].shape)
    return infer


op("string_to_hash_bucket_fast", ("input",), attrs=(("num_buckets", "int"),),
   differentiable=False)(_buckets("StringToHashBucketFast"))
op("string_to_hash_bucket_strong", ("input",), attrs=(("num_buckets", "int"), ("key", "ints")),
   differentiable=False)(_buckets("StringToHashBucketStrong", keyed=True))
op("string_to_hash_bucket", ("string_tensor",), attrs=(("num_buckets", "int"),),
   differentiable=False)(_buckets("StringToHashBucket"))


@op("unicode_split", ("input",), attrs=(("input_encoding", "str"), ("errors", "str", "replace"),
                                        ("replacement_char", "int", 0xFFFD)),
    differentiable=False)
def _unicode_split(types, attrs):
    """One string's characters, each encoded as the input (a vector whose length depends on
    the data)."""
    check_string(types[0], 0, "UnicodeDecode")
    if attrs["input_encoding"] not in ENCODINGS:
        raise InferenceError(f"Could not create converter for input encoding: "
                             f"{attrs['input_encoding']}")
    if attrs["errors"] not in DECODE_ERRORS:
        raise InferenceError(f"Value for attr 'errors' of \"{attrs['errors']}\" is not in the "
                             f"list of allowed values: \"strict\", \"replace\", \"ignore\"")
    if types[0].shape is not None and types[0].shape != ():
        raise InferenceError(f"unicode_split takes a scalar, got shape {list(types[0].shape)}")
    return TT(D.string, (None,))


def _check_codec(attrs, key, direction):
    if attrs[key] not in ENCODINGS:
        raise InferenceError(f"Could not create converter for {direction} encoding: "
                             f"{attrs[key]}")
    if attrs["errors"] not in DECODE_ERRORS:
        raise InferenceError(f"Value for attr 'errors' of \"{attrs['errors']}\" is not in the "
                             f"list of allowed values: \"strict\", \"replace\", \"ignore\"")


_CODEC_ATTRS = (("errors", "str", "replace"), ("replacement_char", "int", 0xFFFD),
                ("replace_control_characters", "bool", False))


@op("unicode_decode", ("input",), attrs=(("input_encoding", "str"),) + _CODEC_ATTRS,
    differentiable=False)
def _unicode_decode(types, attrs):
    """One string's code points (int32; a vector whose length depends on the data)."""
    check_string(types[0], 0, "UnicodeDecode")
    _check_codec(attrs, "input_encoding", "input")
    if types[0].shape is not None and types[0].shape != ():
        raise InferenceError(f"unicode_decode takes a scalar, got shape {list(types[0].shape)}")
    return TT(D.int32, (None,))


@op("unicode_decode_with_offsets", ("input",),
    attrs=(("input_encoding", "str"),) + _CODEC_ATTRS, differentiable=False)
def _unicode_decode_with_offsets(types, attrs):
    """One string's code points (int32) and the byte offset where each starts in the input
    (int64): vectors whose length depends on the data."""
    check_string(types[0], 0, "UnicodeDecodeWithOffsets")
    _check_codec(attrs, "input_encoding", "input")
    if types[0].shape is not None and types[0].shape != ():
        raise InferenceError(f"unicode_decode_with_offsets takes a scalar, got shape "
                             f"{list(types[0].shape)}")
    return TT(D.int32, (None,)), TT(D.int64, (None,))


@op("unicode_encode", ("input",), attrs=(("output_encoding", "str"),) + _CODEC_ATTRS[:2],
    differentiable=False)
def _unicode_encode(types, attrs):
    """Each row of int32 code points (the last dim) encoded as one string."""
    if types[0].dtype is not D.int32:
        raise InferenceError(f"cannot compute UnicodeEncode as input #0(zero-based) was "
                             f"expected to be a int32 tensor but is a "
                             f"{D.runtime_name(types[0].dtype)} tensor")
    _check_codec(attrs, "output_encoding", "output")
    shape = types[0].shape
    if shape is not None and not shape:
        raise InferenceError("unicode_encode needs code points of rank >= 1")
    return TT(D.string, None if shape is None else shape[:-1])


@op("unicode_transcode", ("input",),
    attrs=(("input_encoding", "str"), ("output_encoding", "str")) + _CODEC_ATTRS,
    differentiable=False)
def _unicode_transcode(types, attrs):
    """Each string decoded from input_encoding and encoded in output_encoding."""
    check_string(types[0], 0, "UnicodeTranscode")
    _check_codec(attrs, "input_encoding", "input")
    _check_codec(attrs, "output_encoding", "output")
    return TT(D.string, types[0].shape)


@op("unsorted_segment_join", ("inputs", "segment_ids"),
    attrs=(("num_segments", "int"), ("separator", "str", "")), differentiable=False)
def _unsorted_segment_join(types, attrs):
    """The strings of each segment joined in input order: [num_segments] + the dims of
    `inputs` after those of segment_ids."""
    x, ids = types
    check_string(x, 0, "UnsortedSegmentJoin")
    if ids.dtype not in (D.int32, D.int64):
        raise InferenceError(f"segment_ids must be int32 or int64, got {ids.dtype.name}")
    if attrs["num_segments"] < 0:
        raise InferenceError(f"num_segments must be non-negative, got {attrs['num_segments']}")
    if x.shape is None or ids.shape is None:
        return TT(D.string, None)
    rank = len(ids.shape)
    if tuple(x.shape[:rank]) != tuple(ids.shape):
        raise InferenceError(f"data.shape = {list(x.shape)} does not start with "
                             f"segment_ids.shape = {list(ids.shape)}")
    return TT(D.string, (attrs["num_segments"],) + tuple(x.shape[rank:]))
