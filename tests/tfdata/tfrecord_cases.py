"""TFRecord files, tf.train.Example messages and the tf.io parsing ops, as cases: functions of
the framework module `tf` (and `folder`, a scratch folder) returning JSON (`as_json`).

`tools/record_tf_tfrecord.py` runs them under TF 2.21 into tests/data/tf_tfrecord.json;
`test_tfrecord.py` runs them under flowjit (the parse cases also inside a `tf.function`) and
compares. An error is recorded as its class name and TF's message (without TF's op prefix
and suffix). Maps of several keys are serialized with `deterministic=True`: TF's own map
order differs from process to process.
"""
import math
import os
import re
import struct
import zlib

import numpy as np

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def run(name, tf, folder):
    """The case's answer as plain JSON values."""
    import json
    return json.loads(json.dumps(as_json(CASES[name](tf, folder))))


_NODE_PREFIX = re.compile(r"^\{\{function_node [^}]*\}\}\s*")
_OP_SUFFIX = re.compile(r"\s*\[Op:[^\]]*\].*$", re.S)


def error_json(e) -> dict:
    text = str(getattr(e, "message", None) or e).strip().split("\n  [[")[0]  # a graph's node
    return {"error": type(e).__name__,
            "message": _OP_SUFFIX.sub("", _NODE_PREFIX.sub("", text)).split("\n\t")[0]}


def attempt(fn, *args):
    """fn(*args) as JSON, or the error it raises."""
    try:
        return as_json(fn(*args))
    except Exception as e:  # noqa: BLE001  (the error is the answer)
        return error_json(e)


def as_json(x):
    if isinstance(x, dict):
        return {str(k): as_json(v) for k, v in sorted(x.items())}
    if isinstance(x, (tuple, list)):
        return [as_json(v) for v in x]
    if isinstance(x, bytes):
        return {"hex": x.hex()}
    if isinstance(x, (bool, int, str)) or x is None:
        return x
    if isinstance(x, float):
        return x if math.isfinite(x) else str(x)
    if type(x).__name__ == "SparseTensor":
        return {"sparse": [as_json(x.indices), as_json(x.values), as_json(x.dense_shape)]}
    if type(x).__name__ == "RaggedTensor":
        return {"ragged": [as_json(x.flat_values), as_json(x.row_splits)]}
    a = np.asarray(x.numpy() if hasattr(x, "numpy") else x)
    if a.dtype.kind in "OS":
        return {"bytes": [b.hex() for b in a.reshape(-1)], "shape": list(a.shape)}
    if a.dtype.kind == "c":
        return {"dtype": a.dtype.name, "shape": list(a.shape),
                "value": [[v.real, v.imag] for v in a.reshape(-1).tolist()]}
    values = [v if not isinstance(v, float) or math.isfinite(v) else str(v)
              for v in a.reshape(-1).tolist()]
    return {"dtype": a.dtype.name, "shape": list(a.shape), "value": values}


# --- messages ------------------------------------------------------------------------------
def _feature(tf, values):
    if values is None:
        return tf.train.Feature()
    if values and isinstance(values[0], bytes):
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
    if values and isinstance(values[0], float):
        return tf.train.Feature(float_list=tf.train.FloatList(value=values))
    return tf.train.Feature(int64_list=tf.train.Int64List(value=values))


def example(tf, **features):
    return tf.train.Example(features=tf.train.Features(
        feature={k: _feature(tf, v) for k, v in features.items()}))


def _messages(tf):
    nan, inf = float("nan"), float("inf")
    return {
        "empty": tf.train.Example(),
        "one_int": example(tf, a=[1]),
        "lists": example(tf, b=[b"a", "\u00e9".encode(), b"", b"\x00\xff\"'\\\n\t"],
                         f=[1.5, nan, -0.0, inf, -inf, 1e-40, 0.1, 123456789.0, 3.4e38],
                         i=[-1, 0, 2 ** 63 - 1, -2 ** 63, 300], e=[], n=None),
        "unicode_key": example(tf, **{"\u043a\u043b\u044e\u0447": [7]}),
        "sequence": tf.train.SequenceExample(
            context=tf.train.Features(feature={"c": _feature(tf, [1, 2])}),
            feature_lists=tf.train.FeatureLists(feature_list={
                "fl": tf.train.FeatureList(feature=[_feature(tf, [1.0, 2.0]),
                                                    _feature(tf, [3.0])]),
                "empty": tf.train.FeatureList()})),
    }


@case
def messages_serialized(tf, folder):
    return {k: m.SerializeToString(deterministic=True) for k, m in _messages(tf).items()}


@case
def messages_text(tf, folder):
    return {k: str(m) for k, m in _messages(tf).items()}


@case
def messages_api(tf, folder):
    ex = tf.train.Example()
    ex.features.feature["x"].int64_list.value.append(3)
    ex.features.feature["x"].int64_list.value.extend([4, 5])
    f = ex.features.feature["y"]
    kinds = [f.WhichOneof("kind")]
    f.float_list.value.append(1.0)
    kinds.append(f.WhichOneof("kind"))
    f.bytes_list.value.append(b"z")    # the oneof switches to bytes_list
    kinds.append(f.WhichOneof("kind"))
    copy = tf.train.Example()
    copy.ParseFromString(ex.SerializeToString())
    unset = tf.train.Feature()
    unset.int64_list   # reading a sub-message does not set it
    return [kinds, copy == ex, copy != tf.train.Example(), str(ex), unset.WhichOneof("kind"),
            "x" in ex.features.feature, "q" in ex.features.feature,
            list(ex.features.feature["x"].int64_list.value), ex.HasField("features"),
            tf.train.Example().HasField("features")]


@case
def messages_value_checks(tf, folder):
    return [attempt(lambda: tf.train.Int64List(value=[True])),
            attempt(lambda: tf.train.Int64List(value=[np.bool_(True)])),
            attempt(lambda: tf.train.Int64List(value=[np.float64(2.0)])),
            attempt(lambda: tf.train.Int64List(value=[None])),
            str(tf.train.Int64List(value=[np.int32(3), np.uint8(200), -2 ** 63])),
            attempt(lambda: tf.train.Int64List(value=[np.uint64(2 ** 64 - 1)])),
            str(tf.train.FloatList(value=[True, np.float64(1e300), 10 ** 40, np.int64(3)])),
            attempt(lambda: tf.train.FloatList(value=[None])),
            attempt(lambda: tf.train.BytesList(value=[bytearray(b"a")])),
            str(tf.train.BytesList(value=[np.bytes_(b"x")])),
            str(tf.train.FloatList(value=[tf.constant(1.5), tf.constant(2, tf.int64)])),
            str(tf.train.Int64List(value=[tf.constant(3, tf.int64)])),
            attempt(lambda: tf.train.FloatList(value=[1j])),
            attempt(lambda: tf.train.Int64List(value=[1.5])),
            attempt(lambda: tf.train.Int64List(value=[2 ** 64])),
            attempt(lambda: tf.train.BytesList(value=["\u00e9"])),
            attempt(lambda: tf.train.FloatList(value=["a"])),
            str(tf.train.FloatList(value=[1, np.float32(0.1), 16777217]))]


# wire forms protobuf accepts that TF never writes, and bytes that are no Example
_WIRE = {
    "unpacked_floats": ("FloatList", "0d0000803f0d00000040"),
    "unpacked_ints": ("Int64List", "08010802"),
    "mixed_packed_ints": ("Int64List", "0801" + "0a020304"),
    "unknown_field": ("Int64List", "1005080718037878"),
    "wrong_wire_type": ("Example", "0801"),
    "empty_map_entry": ("Example", "0a020a00"),
    "repeated_features_merge": ("Example", "0a070a050a01611200" + "0a070a050a01621200"),
    "truncated_length": ("Example", "0a"),
    "length_past_end": ("Example", "0a0561"),
    "overlong_varint": ("Example", "ffffffffffffffffffffff"),
    "group_wire_type": ("Example", "0b"),
    "field_zero": ("Int64List", "0001"),
    "huge_length": ("Example", "0affffffff0f"),
}


@case
def messages_parse_wire(tf, folder):
    def parse(kind, data):
        return str(getattr(tf.train, kind).FromString(bytes.fromhex(data)))
    return {k: attempt(parse, kind, data) for k, (kind, data) in _WIRE.items()}


# --- TFRecord files ------------------------------------------------------------------------
RECORDS = [b"hello", b"", b"x" * 300, bytes(range(256))]


def _write(tf, path, records, options=None):
    with tf.io.TFRecordWriter(path, options) as w:
        for r in records:
            w.write(r)
    with open(path, "rb") as f:
        return f.read()


def _read(tf, path, **kwargs):
    return [r.numpy() for r in tf.data.TFRecordDataset(path, **kwargs)]


@case
def records_written(tf, folder):
    """The bytes of files TF writes (flowjit's must be equal and read back the same)."""
    out = {}
    for kind in ("", "GZIP", "ZLIB"):
        path = os.path.join(folder, f"r{kind}.tfrecord")
        out[kind or "plain"] = [_write(tf, path, RECORDS, kind), _read(tf, path,
                                                                       compression_type=kind)]
    path = os.path.join(folder, "opts.tfrecord")
    out["options_level9"] = _write(tf, path, RECORDS[:3], tf.io.TFRecordOptions(
        compression_type="GZIP", compression_level=9))
    return out


def _gzip(data):
    deflate = zlib.compressobj(-1, zlib.DEFLATED, 31)
    return deflate.compress(data) + deflate.flush()


def _damaged(tf, folder, data, **kwargs):
    path = os.path.join(folder, "damaged.tfrecord")
    with open(path, "wb") as f:
        f.write(data)
    return attempt(lambda: _read(tf, path, **kwargs))


@case
def records_damaged(tf, folder):
    path = os.path.join(folder, "good.tfrecord")
    good = _write(tf, path, RECORDS[:3])
    first = 12 + len(RECORDS[0]) + 4

    def flip(data, i):
        return data[:i] + bytes([data[i] ^ 1]) + data[i + 1:]
    gz = _write(tf, os.path.join(folder, "g.tfrecord"), RECORDS[:2], "GZIP")
    # a header whose checksum holds but whose length runs past the file: TF's writer makes
    # the checksum of an 8-byte length; take it from a record of that length (1 MiB)
    big = _write(tf, os.path.join(folder, "big.tfrecord"), [b"\0" * (1 << 20)])[:12]
    return {
        "data_checksum": _damaged(tf, folder, flip(good, 14)),
        "length_checksum": _damaged(tf, folder, flip(good, 9)),
        "length_bits": _damaged(tf, folder, flip(good, 0)),
        "second_header": _damaged(tf, folder, flip(good, first + 2)),
        "second_data": _damaged(tf, folder, flip(good, first + 13)),
        "truncated_data": _damaged(tf, folder, good[:first + 14]),
        "truncated_data_checksum": _damaged(tf, folder, good[:first - 2]),
        "truncated_header": _damaged(tf, folder, good[:first + 5]),
        "trailing_byte": _damaged(tf, folder, good + b"\0"),
        "length_past_end": _damaged(tf, folder, big + b"abc"),
        "gzip_read_plain": _damaged(tf, folder, gz),
        "plain_read_zlib": _damaged(tf, folder, good, compression_type="ZLIB"),
        "gzip_truncated": _damaged(tf, folder, gz[:len(gz) // 2], compression_type="GZIP"),
        "empty_file": _damaged(tf, folder, b""),
        # compressed streams: a record cut inside its data is "EOF reached"; inside its
        # header, the end; gzip members follow each other; bytes after one are no member
        "gzip_header_cut": _damaged(tf, folder, _gzip(good[:first + 5]), compression_type="GZIP"),
        "gzip_data_cut": _damaged(tf, folder, _gzip(good[:first + 14]), compression_type="GZIP"),
        "zlib_data_cut": _damaged(tf, folder, zlib.compress(good[:first + 14]),
                                  compression_type="ZLIB"),
        "gzip_two_members": _damaged(tf, folder, gz + gz, compression_type="GZIP"),
        "gzip_trailing_bytes": _damaged(tf, folder, gz + b"xyz", compression_type="GZIP"),
        "missing_file": attempt(lambda: _read(tf, os.path.join(folder, "none.tfrecord"))),
    }


@case
def records_api(tf, folder):
    path = os.path.join(folder, "a.tfrecord")
    _write(tf, path, RECORDS[:2])
    other = os.path.join(folder, "b.tfrecord")
    _write(tf, other, [b"b0", b"b1", b"b2"])
    w = tf.io.TFRecordWriter(os.path.join(folder, "c.tfrecord"))
    w.write("unicod\u00e9")
    w.flush()
    w.close()
    w.close()
    files = tf.data.Dataset.from_tensor_slices([path, other])
    return {
        "spec": repr(tf.data.TFRecordDataset(path).element_spec),
        "repr": repr(tf.data.TFRecordDataset(path)),
        "list": _read(tf, [path, other]),
        "dataset_of_names": [r.numpy() for r in tf.data.TFRecordDataset(files)],
        "parallel_reads": _read(tf, [path, other], num_parallel_reads=2),
        "str_record": _read(tf, os.path.join(folder, "c.tfrecord")),
        "write_after_close": attempt(lambda: w.write(b"x")),
        "int_names": attempt(lambda: tf.data.TFRecordDataset([1, 2])),
        "bad_writer_compression": attempt(lambda: tf.io.TFRecordWriter(path, "FOO")),
        "missing_folder": attempt(lambda: tf.io.TFRecordWriter(os.path.join(folder, "no",
                                                                            "x"))),
        "compression_strings": [tf.io.TFRecordOptions.get_compression_type_string(o) for o in
                                (None, "", "GZIP", tf.io.TFRecordOptions("ZLIB"))],
        "bad_option_string": attempt(
            lambda: tf.io.TFRecordOptions.get_compression_type_string("FOO")),
        "unknown_compression_reads_plain": _read(tf, path, compression_type="FOO"),
        "dataset_writer": _write_dataset(tf, folder, ["a", "bc"], "GZIP"),
        "dataset_writer_ints": attempt(lambda: _write_dataset(tf, folder, [1, 2])),
        "dataset_writer_vectors": attempt(lambda: _write_dataset(tf, folder, [["a"]])),
    }


def _write_dataset(tf, folder, values, compression=None):
    """tf.data.experimental.TFRecordWriter's file, read back."""
    path = os.path.join(folder, "dataset.tfrecord")
    writer = tf.data.experimental.TFRecordWriter(path, compression)
    writer.write(tf.data.Dataset.from_tensor_slices(values))
    return _read(tf, path, compression_type=compression)


# --- parsing ---------------------------------------------------------------------------------
def _serialized(tf, *examples):
    return [example(tf, **e).SerializeToString(deterministic=True) for e in examples]


_FULL = dict(a=[1, 2, 3], b=[1.5, -2.0], c=[b"x", b"y"])


def parse_cases(tf):
    """name -> (function of the serialized input, the serialized input)."""
    io = tf.io
    fixed, var, seq = io.FixedLenFeature, io.VarLenFeature, io.FixedLenSequenceFeature
    full, one, empty = _serialized(tf, _FULL, dict(a=[7], b=[0.5, 0.25], c=[]), {})
    kindless = _serialized(tf, dict(a=None))[0]
    single, batch = io.parse_single_example, io.parse_example
    return {
        "single_dense": (lambda s: single(s, {"a": fixed([3], tf.int64), "b": fixed(
            [2], tf.float32), "c": fixed([2], tf.string), "d": fixed([2, 1], tf.int64,
                                                               default_value=[[5], [6]])}), full),
        "single_varlen": (lambda s: single(s, {"a": var(tf.int64), "c": var(tf.string),
                                               "z": var(tf.float32)}), full),
        "single_sequence": (lambda s: single(s, {"a": seq([], tf.int64, allow_missing=True),
                                                 "z": seq([2], tf.float32, allow_missing=True)}),
                            full),
        "single_ragged": (lambda s: single(s, {"a": io.RaggedFeature(tf.int64),
                                               "z": io.RaggedFeature(tf.string)}), full),
        "single_2d": (lambda s: single(s, {"a": fixed([3, 1], tf.int64)}), full),
        "single_missing": (lambda s: single(s, {"z": fixed([], tf.int64)}), full),
        "single_kindless": (lambda s: single(s, {"a": fixed([], tf.int64)}), kindless),
        "single_kindless_default": (lambda s: single(s, {"a": fixed([], tf.int64,
                                                                    default_value=5)}),
                                    kindless),
        "single_dtype": (lambda s: single(s, {"a": fixed([3], tf.float32)}), full),
        "single_too_few": (lambda s: single(s, {"a": fixed([4], tf.int64)}), full),
        "single_too_many_floats": (lambda s: single(s, {"b": fixed([1], tf.float32)}), full),
        "single_bytes_count": (lambda s: single(s, {"c": fixed([3], tf.string)}), full),
        "single_varlen_dtype": (lambda s: single(s, {"a": var(tf.string)}), full),
        "single_sequence_stride": (lambda s: single(s, {"a": seq([2], tf.int64,
                                                                 allow_missing=True)}), full),
        "single_corrupt": (lambda s: single(s, {"a": var(tf.int64)}), b"\x0a\x05ab"),
        "batch_dense": (lambda s: batch(s, {"b": fixed([2], tf.float32, default_value=[
            1.0, -1.0]), "a": fixed([1], tf.int64, default_value=[-1])}), [one, empty, one]),
        "batch_varlen": (lambda s: batch(s, {"a": var(tf.int64), "c": var(tf.string)}),
                         [full, one, empty]),
        "batch_sequence": (lambda s: batch(s, {"a": seq([], tf.int64, allow_missing=True,
                                                        default_value=9)}), [full, one, empty]),
        "batch_ragged": (lambda s: batch(s, {"a": io.RaggedFeature(tf.int64,
                                                                   row_splits_dtype=tf.int64)}),
                         [full, empty, one]),
        "batch_empty": (lambda s: batch(s, {"a": fixed([2], tf.int64), "v": var(tf.float32)}),
                        np.zeros(0, object)),
        "batch_missing": (lambda s: batch(s, {"a": fixed([3], tf.int64)}), [full, empty]),
        "batch_dtype": (lambda s: batch(s, {"a": fixed([3], tf.float32)}), [full]),
        "batch_count": (lambda s: batch(s, {"a": fixed([3], tf.int64)}), [full, one]),
        "batch_varlen_dtype": (lambda s: batch(s, {"a": var(tf.float32)}), [full]),
        "batch_sequence_stride": (lambda s: batch(s, {"a": seq([2], tf.int64,
                                                               allow_missing=True)}), [full]),
        "batch_of_scalar": (lambda s: batch(s, {"a": fixed([3], tf.int64)}), full),
        "batch_empty_list_default": (lambda s: batch(s, {"c": fixed([], tf.string,
                                                                    default_value="d")}),
                                     [one]),
    }


def _sequence_bytes(tf):
    f = lambda v: _feature(tf, v)  # noqa: E731
    return tf.train.SequenceExample(
        context=tf.train.Features(feature={"c": f([1, 2])}),
        feature_lists=tf.train.FeatureLists(feature_list={
            "fl": tf.train.FeatureList(feature=[f([1.0, 2.0]), f([3.0, 4.0])]),
            "v": tf.train.FeatureList(feature=[f([5]), f([]), f([6, 7])])})
    ).SerializeToString(deterministic=True)


def sequence_cases(tf):
    io = tf.io
    fixed, var, seq = io.FixedLenFeature, io.VarLenFeature, io.FixedLenSequenceFeature
    parse = io.parse_single_sequence_example
    return {
        "all": lambda s: parse(s, {"c": fixed([2], tf.int64), "d": var(tf.string)}, {
            "fl": seq([2], tf.float32), "v": var(tf.int64),
            "m": seq([], tf.int64, allow_missing=True)}),
        "ragged": lambda s: parse(s, sequence_features={"v": io.RaggedFeature(
            tf.int64, row_splits_dtype=tf.int64)}),
        "missing_list": lambda s: parse(s, sequence_features={"m": seq([], tf.int64)}),
        "list_shape": lambda s: parse(s, sequence_features={"fl": seq([3], tf.float32)}),
        "list_dtype": lambda s: parse(s, sequence_features={"fl": seq([2], tf.int64)}),
        "context_missing": lambda s: parse(s, context_features={"q": fixed([2], tf.int64)}),
    }


def _short_sequence_bytes(tf):
    f = lambda v: _feature(tf, v)  # noqa: E731
    return tf.train.SequenceExample(
        context=tf.train.Features(feature={"c": f([3, 4]), "d": f([b"q"])}),
        feature_lists=tf.train.FeatureLists(feature_list={
            "fl": tf.train.FeatureList(feature=[f([9.0, 8.0])]),
            "v": tf.train.FeatureList(feature=[f([1, 2, 3])])})
    ).SerializeToString(deterministic=True)


def batched_sequence_cases(tf):
    io = tf.io
    fixed, var, seq = io.FixedLenFeature, io.VarLenFeature, io.FixedLenSequenceFeature
    parse = io.parse_sequence_example
    return {
        "all": lambda s: parse(s, {"c": fixed([2], tf.int64, default_value=[0, -1]),
                                   "d": var(tf.string)}, {
            "fl": seq([2], tf.float32, allow_missing=True), "v": var(tf.int64),
            "m": seq([], tf.int64, allow_missing=True)}),
        "scalar": lambda s: parse(s[0], sequence_features={"fl": seq([2], tf.float32)}),
        "missing_list": lambda s: parse(s, sequence_features={"fl": seq([2], tf.float32)}),
        "list_shape": lambda s: parse(s, sequence_features={"v": seq([2], tf.int64)}),
    }


def run_parse_cases(tf, wrap):
    """Every parse case's answer; `wrap(fn)` is the function to call (eager, or traced)."""
    out = {}
    for name, (fn, serialized) in parse_cases(tf).items():
        out[name] = attempt(lambda: wrap(fn)(tf.constant(serialized, tf.string)))
    data = _sequence_bytes(tf)
    for name, fn in sequence_cases(tf).items():
        out["sequence_" + name] = attempt(lambda: wrap(fn)(tf.constant(data, tf.string)))
    batch = tf.constant([data, _short_sequence_bytes(tf), b""], tf.string)
    for name, fn in batched_sequence_cases(tf).items():
        out["sequence_batch_" + name] = attempt(lambda: wrap(fn)(batch))
    return out


@case
def parse_eager(tf, folder):
    return run_parse_cases(tf, lambda fn: fn)


@case
def parse_config_errors(tf, folder):
    io = tf.io
    s = _serialized(tf, _FULL)[0]
    return {
        "empty_features": attempt(lambda: io.parse_single_example(s, {})),
        "unknown_first_dim": attempt(lambda: io.parse_single_example(
            s, {"z": io.FixedLenFeature([None], tf.int64)})),
        "sequence_not_allow_missing": attempt(lambda: io.parse_example(
            [s], {"a": io.FixedLenSequenceFeature([], tf.int64)})),
        "single_of_vector": attempt(lambda: io.parse_single_example(
            [s], {"a": io.FixedLenFeature([3], tf.int64)})),
        "default_shape": attempt(lambda: io.parse_single_example(
            s, {"z": io.FixedLenFeature([2], tf.int64, default_value=[1, 2, 3])})),
        "no_sequence_features": attempt(lambda: io.parse_single_sequence_example(s)),
        "reprs": [repr(io.FixedLenFeature([2], tf.int64)), repr(io.VarLenFeature(tf.int64)),
                  repr(io.FixedLenSequenceFeature([], tf.float32, allow_missing=True))],
    }


# --- TensorProto bytes and raw bytes -------------------------------------------------------
_TENSORS = [([[1.0, 2.0], [3.0, 4.0]], "float32"), ([b"ab", b""], "string"), (5, "int32"),
            ([True, False], "bool"), (np.zeros((0, 3)), "int64"), ([1, 255], "uint8"),
            ([1 + 2j], "complex64"), ([1.5, -0.0], "float16"), ([[-1], [2 ** 40]], "int64"),
            ([0.1], "float64"), ([b"x"], "string")]


@case
def serialize_tensors(tf, folder):
    out = []
    for value, dtype in _TENSORS:
        t = tf.constant(value, getattr(tf, dtype))
        data = tf.io.serialize_tensor(t)
        out.append([data, tf.io.parse_tensor(data, getattr(tf, dtype))])
    return out


# TensorProtos TF reads that its writer does not make: typed value fields, a repeated last
# value, and bytes that are none
_TENSOR_PROTOS = {   # dtype field, tensor_shape {dim {size}}, then the values
    "float_val_fill": ("0801" "1204" "12020803" "2d0000803f", "float32"),
    "int_val_packed": ("0803" "1204" "12020802" "3a020506", "int32"),
    "int64_val": ("0809" "1204" "12020802" "50ff01" "50ffffffffffffffffff01", "int64"),
    "bool_val": ("080a" "1204" "12020802" "5a020100", "bool"),
    "string_val_fill": ("0807" "1204" "12020803" "420161", "string"),
    "no_values": ("0803" "1204" "12020802", "int32"),
    "content": ("0801" "1204" "12020802" "22080000803f00000040", "float32"),
    "wrong_dtype": ("0801" "1200" "22040000803f", "int32"),
    "content_size": ("0801" "1204" "12020802" "220400008040", "float32"),
    "too_many_values": ("0803" "1204" "12020801" "3a020506", "int32"),
    "garbage": ("ff", "int32"),
    "truncated": ("0801120a", "float32"),
}


@case
def parse_tensor_protos(tf, folder):
    return {k: attempt(lambda: tf.io.parse_tensor(bytes.fromhex(data), getattr(tf, dtype)))
            for k, (data, dtype) in _TENSOR_PROTOS.items()}


@case
def decode_raw_cases(tf, folder):
    dr = tf.io.decode_raw
    return {
        "int16": attempt(lambda: dr([b"\x01\x00\x02\x00", b"\x03\x00\xff\xff"], tf.int16)),
        "big_endian": attempt(lambda: dr(b"\x01\x00\x02\x00", tf.int16, little_endian=False)),
        "float": attempt(lambda: dr([struct.pack("<ff", 1.5, -0.0)], tf.float32)),
        "fixed_length": attempt(lambda: dr([b"\x01\x02", b"\x03", b""], tf.uint8,
                                           fixed_length=3)),
        "fixed_length_int32": attempt(lambda: dr([b"\x01\x00\x00\x00\x02"], tf.int32,
                                                 fixed_length=8)),
        "matrix": attempt(lambda: dr([[b"ab"], [b"cd"]], tf.uint8)),
        "not_multiple": attempt(lambda: dr([b"\x01\x00\x02"], tf.int16)),
        "sizes_differ": attempt(lambda: dr([b"\x01\x02", b"\x03"], tf.uint8)),
        "empty": attempt(lambda: dr([b"", b""], tf.int32)),
    }
