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
