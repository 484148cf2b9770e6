"""`tf.strings`' text functions: regex_replace, the hash buckets, unicode_split, ngrams and
unicode_script (a lookup in the ICU script runs of unicode_script_table.py, so it also
compiles under XLA).

unicode_split and unicode_decode of a vector return a RaggedTensor, one row per string, as
`strings.split` does; ngrams takes dense data, whose rows all give the same number of
n-grams (TF's dense case), built from slices joined by `strings.join`."""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...ir.errors import InvalidArgumentError
from ..composite.ragged_tensor import RaggedTensor
from ..eager.dispatch import apply, convert_to_tensor
from ..export import runs, tf_export
from . import array as A
from . import math as M
from .counting import searchsorted
from .unicode_script_table import RUN_SCRIPTS, RUN_STARTS
from .strings import _string, join, length, ragged_rows, substr


def _text(value, what):
    """A pattern or rewrite: a Python string or a constant scalar string tensor."""
    if hasattr(value, "numpy"):
        value = value.numpy()
    if isinstance(value, bytes):
        value = value.decode()
    if not isinstance(value, str):
        raise TypeError(f"regex_replace: {what} must be a string, got {value!r}")
    return value


@tf_export("strings.regex_replace")
def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """Each string with the matches of `pattern` (RE2) replaced by `rewrite`, where \\1..\\9
    name groups and \\0 the whole match; only the first match with replace_global=False."""
    return apply("regex_replace", (_string(input),),
                 {"pattern": _text(pattern, "pattern"), "rewrite": _text(rewrite, "rewrite"),
                  "replace_global": bool(replace_global)})


@tf_export("strings.to_hash_bucket_fast")
@runs("string_to_hash_bucket_fast")
def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002
    """FarmHash Fingerprint64 of each string modulo num_buckets (TF's buckets), int64."""
    return apply("string_to_hash_bucket_fast", (_string(input),),
                 {"num_buckets": int(num_buckets)})


@tf_export("strings.to_hash_bucket_strong")
@runs("string_to_hash_bucket_strong")
def to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002
    """SipHash-2-4 of each string under the two-word `key`, modulo num_buckets, int64."""
    return apply("string_to_hash_bucket_strong", (_string(input),),
                 {"num_buckets": int(num_buckets), "key": tuple(int(k) for k in key)})


@tf_export("strings.to_hash_bucket")
@runs("string_to_hash_bucket")
def to_hash_bucket(input, num_buckets, name=None):  # noqa: A002
    """TF's legacy 64-bit hash of each string modulo num_buckets, int64."""
    return apply("string_to_hash_bucket", (_string(input),), {"num_buckets": int(num_buckets)})


@tf_export("strings.unicode_split")
@runs("unicode_split")
def unicode_split(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                  name=None):
    """A scalar's characters as a 1-D tensor of strings (each encoded as the input); a vector
    gives a RaggedTensor with one such row per string."""
    return _per_string("unicode_split", _string(input), {
        "input_encoding": input_encoding, "errors": errors,
        "replacement_char": int(replacement_char)})


def _pads(pad_values):
    if pad_values is None:
        return None
    if isinstance(pad_values, (list, tuple)):
        if len(pad_values) != 2:
            raise ValueError("pad_values must be a string, tuple of strings, or None.")
        return tuple(pad_values)
    return pad_values, pad_values


@tf_export("strings.ngrams")
def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None,
           preserve_short_sequences=False, name=None):
    """The n-grams of each row (the last dim) of dense string data, for every width in
    `ngram_width`, joined by `separator`; rows are padded with `pad_values` (up to
    width - 1 on each side, or `padding_width`)."""
    x = _string(data)
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if not dims or dims[-1] is None:
        raise ValueError(f"strings.ngrams: flowjit needs dense data of known rank and row "
                         f"length, got shape {x.shape}")
    widths = [ngram_width] if isinstance(ngram_width, int) else list(ngram_width)
    pads = _pads(pad_values)
    if padding_width is not None and pads is None:
        raise ValueError("pad_values must be provided if padding_width is set.")
    if padding_width is not None and padding_width < 1:
        raise ValueError("padding_width must be greater than 0.")
    grams = []
    for width in widths:
        pad = 0 if pads is None else min(width - 1 if padding_width is None else padding_width,
                                         width - 1)
        row = _padded(x, pad, pads)
        n = dims[-1] + 2 * pad - width + 1
        if n > 0:
            grams.append(join([row[..., i:i + n] for i in range(width)], separator=separator))
    if not grams and preserve_short_sequences:
        pad = 0 if pads is None else (max(widths) - 1 if padding_width is None
                                      else min(padding_width, max(widths) - 1))
        row = _padded(x, pad, pads)
        cells = dims[-1] + 2 * pad
        return A.expand_dims(join([row[..., i] for i in range(cells)], separator=separator), -1)
    if not grams:
        return x[..., :0]
    return grams[0] if len(grams) == 1 else A.concat(grams, -1)


def _padded(x, pad, pads):
    """x padded along its last dim by `pad` copies of the left and right pad strings."""
    if not pad:
        return x
    left = A.fill(A.concat([A.shape(x)[:-1], [pad]], 0), pads[0])
    right = A.fill(A.concat([A.shape(x)[:-1], [pad]], 0), pads[1])
    return A.concat([left, x, right], -1)


def _per_string(opname, x, attrs):
    """A scalar's op results, or for a vector each result's rows as one RaggedTensor (a row
    per string)."""
    if x.shape.rank is None or x.shape.rank > 1 or (x.shape.rank == 1 and x.shape[0] is None):
        raise ValueError(f"strings.{opname}: flowjit takes a scalar or a vector of known "
                         f"length, got shape {x.shape}")
    if x.shape.rank == 0:
        return apply(opname, (x,), attrs)
    per_string = [apply(opname, (s,), attrs) for s in A.unstack(x)]
    if per_string and isinstance(per_string[0], (tuple, list)):
        return tuple(ragged_rows([r[i] for r in per_string], per_string[0][i].dtype)
                     for i in range(len(per_string[0])))
    return ragged_rows(per_string, _RESULT_DTYPE[opname])


# a vector's results when it has no strings
_RESULT_DTYPE = {"unicode_split": D.string, "unicode_decode": D.int32}


@tf_export("strings.unicode_decode")
@runs("unicode_decode")
def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                   replace_control_characters=False, name=None):
    """A scalar's code points as a 1-D int32 tensor; a vector gives a RaggedTensor of them."""
    return _per_string("unicode_decode", _string(input), {
        "input_encoding": input_encoding, "errors": errors,
        "replacement_char": int(replacement_char),
        "replace_control_characters": bool(replace_control_characters)})


@tf_export("strings.unicode_decode_with_offsets")
@runs("unicode_decode_with_offsets")
def unicode_decode_with_offsets(input, input_encoding, errors="replace",  # noqa: A002
                                replacement_char=65533, replace_control_characters=False,
                                name=None):
    """A scalar's code points (int32) and the byte offset of each in the string (int64); a
    vector gives a RaggedTensor of each."""
    attrs = {"input_encoding": input_encoding, "errors": errors,
             "replacement_char": int(replacement_char),
             "replace_control_characters": bool(replace_control_characters)}
    return tuple(_per_string("unicode_decode_with_offsets", _string(input), attrs))


@tf_export("strings.unicode_split_with_offsets")
def unicode_split_with_offsets(input, input_encoding, errors="replace",  # noqa: A002
                               replacement_char=65533, name=None):
    """A scalar's characters (each encoded as the input) and their byte offsets, as TF
    composes them: the decoded code points encoded one by one; a vector gives RaggedTensors."""
    points, offsets = unicode_decode_with_offsets(input, input_encoding, errors,
                                                  replacement_char)

    def chars(p):
        return unicode_encode(A.expand_dims(p, 1), input_encoding, errors, replacement_char)
    if isinstance(points, RaggedTensor):
        return points.with_flat_values(chars(points.flat_values)), offsets
    return chars(points), offsets


@tf_export("strings.unicode_encode")
@runs("unicode_encode")
def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                   name=None):
    """Each row (the last dim, or a RaggedTensor's rows) of int32 code points as one string
    in output_encoding."""
    attrs = {"output_encoding": output_encoding, "errors": errors,
             "replacement_char": int(replacement_char)}
    if isinstance(input, RaggedTensor):
        return _encode_rows(input, attrs)
    return apply("unicode_encode", (convert_to_tensor(input),), attrs)


def _encode_rows(rt, attrs):
    """A vector of one string per row of a ragged rank 1 RaggedTensor."""
    rows = rt.row_splits.shape[0]
    if rt.ragged_rank != 1 or rows is None:
        raise ValueError(f"strings.unicode_encode: flowjit encodes a RaggedTensor of ragged "
                         f"rank 1 whose row count is known while tracing, got {rt!r}")
    encoded = [apply("unicode_encode", (rt[i],), attrs) for i in range(rows - 1)]
    return A.stack(encoded) if encoded else convert_to_tensor([], dtype=D.string)


@tf_export("strings.unicode_transcode")
@runs("unicode_transcode")
def unicode_transcode(input, input_encoding, output_encoding, errors="replace",  # noqa: A002
                      replacement_char=65533, replace_control_characters=False, name=None):
    """Each string re-encoded from input_encoding to output_encoding."""
    return apply("unicode_transcode", (_string(input),), {
        "input_encoding": input_encoding, "output_encoding": output_encoding,
        "errors": errors, "replacement_char": int(replacement_char),
        "replace_control_characters": bool(replace_control_characters)})


@tf_export("strings.unsorted_segment_join")
@runs("unsorted_segment_join")
def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """The strings of each segment joined with `separator`, in input order; empty for a
    segment no id names."""
    count = num_segments.numpy() if hasattr(num_segments, "numpy") else num_segments
    return apply("unsorted_segment_join", (_string(inputs), convert_to_tensor(segment_ids)),
                 {"num_segments": int(count), "separator": separator})


@tf_export("strings.bytes_split")
def bytes_split(input, name=None):  # noqa: A002
    """A scalar's bytes as a 1-D tensor of one-byte strings; a vector gives a list."""
    x = _string(input)
    if x.shape.rank is None or x.shape.rank > 1:
        raise ValueError(f"strings.bytes_split: flowjit takes a scalar or a vector of known "
                         f"length (no ragged tensors), got shape {x.shape}")
    if x.shape.rank == 1:
        return [bytes_split(s) for s in A.unstack(x)]
    positions = A.range(length(x))
    return substr(A.fill(A.shape(positions), x), positions, 1)


@tf_export("strings.unicode_script")
def unicode_script(input, name=None):  # noqa: A002
    """The ICU script code (UScriptCode) of each int32 code point: 25 Latin, 17 Han, 0 Common,
    103 Unknown (unassigned code points and surrogates), -1 for a value outside Unicode."""
    x = convert_to_tensor(input)
    if x.dtype != D.int32:
        raise InvalidArgumentError(
            None, "UnicodeScript", f"cannot compute UnicodeScript as input #0(zero-based) was "
            f"expected to be a int32 tensor but is a {x.dtype.name} tensor")
    flat = A.reshape(x, [-1])
    run = searchsorted(np.asarray(RUN_STARTS, np.int32), flat, side="right") - 1
    script = A.gather(np.asarray(RUN_SCRIPTS, np.int32), M.maximum(run, 0))
    inside = M.logical_and(M.greater_equal(flat, 0), M.less_equal(flat, 0x10FFFF))
    return A.reshape(M.where(inside, script, A.fill(A.shape(script), -1)), A.shape(x))
