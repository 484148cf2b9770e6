"""Kernels of the parsing ops: `tf.train.Example`/`SequenceExample` bytes read straight from
the wire format (runtime/proto_wire.py) into the requested features, with TF's error texts;
TensorProto bytes to and from arrays; `decode_raw`.

Serialized protos are a load path: malformed bytes raise TF's InvalidArgumentError, and no
size read from the bytes is allocated before it is checked against the bytes or the memory.
"""
from __future__ import annotations

import base64

import numpy as np

from ...ir import dtypes as D
from ...ir.errors import InvalidArgumentError, ResourceExhaustedError
from .. import proto_wire as W
from . import check_allocation, kernel

# TF's DataTypeString names and its DataType enum numbers (TensorProto's dtype field)
TF_NAMES = {D.float32: "float", D.float64: "double", D.int32: "int32", D.uint8: "uint8",
            D.int16: "int16", D.int8: "int8", D.string: "string", D.complex64: "complex64",
            D.int64: "int64", D.bool_: "bool", D.bfloat16: "bfloat16", D.uint16: "uint16",
            D.complex128: "complex128", D.float16: "half", D.uint32: "uint32",
            D.uint64: "uint64"}
TF_ENUM = {D.float32: 1, D.float64: 2, D.int32: 3, D.uint8: 4, D.int16: 5, D.int8: 6,
           D.string: 7, D.complex64: 8, D.int64: 9, D.bool_: 10, D.bfloat16: 14,
           D.uint16: 17, D.complex128: 18, D.float16: 19, D.uint32: 22, D.uint64: 23}
_BY_ENUM = {v: k for k, v in TF_ENUM.items()}

# a Feature's oneof field number -> the dtype of its list
_LIST_DTYPE = {1: D.string, 2: D.float32, 3: D.int64}
_LIST_NAME = {D.string: "bytes", D.float32: "float", D.int64: "int64"}


# --- Example wire format ---------------------------------------------------------------------
def _feature(data: bytes):
    """(dtype of the set list or None, its values) of a Feature message."""
    dtype, values = None, []
    for number, wire, payload in W.fields(data):
        if number not in _LIST_DTYPE or wire != W.BYTES:
            continue
        if _LIST_DTYPE[number] is not dtype:
            dtype, values = _LIST_DTYPE[number], []
        for n, w, v in W.fields(payload):
            if n != 1:
                continue
            if dtype is D.string:
                if w == W.BYTES:
                    values.append(v)
            elif dtype is D.float32:
                W.repeated_float(values, w, v)
            else:
                W.repeated_int64(values, w, v)
    return dtype, values


def _map(data: bytes, field: int) -> dict:
    """The map<string, message> at `field` of a message: key bytes -> the value's bytes."""
    out = {}
    for number, wire, entry in W.fields(data):
        if number != field or wire != W.BYTES:
            continue
        key, value = b"", b""
        for n, w, v in W.fields(entry):
            if w == W.BYTES and n in (1, 2):
                key, value = (v, value) if n == 1 else (key, v)
        out[key] = value
    return out


def _submessage(data: bytes, field: int) -> bytes:
    """A singular message field's bytes (repeated occurrences merge: their bytes concatenate)."""
    return b"".join(v for n, w, v in W.fields(data) if n == field and w == W.BYTES)


def _features_of(features_bytes: bytes) -> dict:
    return {k: _feature(v) for k, v in _map(features_bytes, 1).items()}


def _as_array(dtype, values):
    return np.array(values, object) if dtype is D.string else np.asarray(values, dtype.np)


def _default_fill(dtype):
    return b"" if dtype is D.string else 0


class _Where:
    """How an error names the example: TF's single-example and batch texts differ."""

    def __init__(self, batched: bool, names, index: int, context=False):
        self.batched, self.index, self.context = batched, index, context
        self.name = names[index].decode() if batched and index < len(names) else "<unknown>"

    def key(self, key: str) -> str:
        return (f"Name: {self.name}, Key: {key}, Index: {self.index}.  " if self.batched
                else f"Key: {key}.  ")

    def missing(self, key: str, dtype) -> str:
        text = f"Feature: {key} (data type: {TF_NAMES[dtype]}) is required but could not be found."
        return f"Name: {self.name}, {text}" if self.batched else text


def _fail(text: str, op="ParseExampleV2"):
    raise InvalidArgumentError(None, op, text)


def _shape_text(shape, leading="") -> str:
    return "[" + ",".join([leading] * bool(leading) + [str(d) for d in shape]) + "]"


def _dense_value(found, key, dtype, shape, default, where):
    size = int(np.prod(shape, dtype=np.int64))
    kind, values = found.get(key.encode(), (None, []))
    if where.context and (kind is None and default.size == 0 or
                          kind is dtype and len(values) != size):
        _fail(f"Inconsistent max number of elements for feature {key}: expected {size}, but "
              f"found {len(values)}", "ParseSequenceExampleV2")
    if kind is None:
        if default.size == 0:
            _fail(where.missing(key, dtype))
        return default
    if kind is not dtype:
        _fail(where.key(key) + f"Data types don't match. Data type: {TF_NAMES[kind]} but "
              f"expected type: {TF_NAMES[dtype]}")
    if len(values) != size:
        if where.batched:
            _fail(where.key(key) + f"Number of {_LIST_NAME[dtype]} values != expected.  Values "
                  f"size: {len(values)} but output shape: {_shape_text(shape)}")
        _fail(where.key(key) + "Can't parse serialized Example: " + (
            "Parsing bytes_list failed." if dtype is D.string and len(values) > size
            else f"Some {_LIST_NAME[dtype]}_list slice was not parsed."))
    return _as_array(dtype, values).reshape(shape)


def _list_value(found, key, dtype, where, what="varlen"):
    kind, values = found.get(key.encode(), (None, []))
    if kind is None:
        return _as_array(dtype, [])
    if kind is not dtype:
        if what == "sequence":
            _fail(where.key(key) + f"Data types don't match. Data type: {TF_NAMES[kind]} but "
                  f"expected type: {TF_NAMES[dtype]}")
        _fail(where.key(key) + f"Data types don't match. Expected type: {TF_NAMES[dtype]}, "
              f"Actual type: {TF_NAMES[kind]}")
    return _as_array(dtype, values)


def _sequence_rows(values, key, dtype, shape, where):
    stride = int(np.prod(shape, dtype=np.int64))
    if (stride == 0 or len(values) % stride) and not where.batched:
        _fail(f"Error while parsing feature with key {key}: number of elements should be "
              f"divisible by {stride}, found {len(values)} instead")
    if stride == 0 or len(values) % stride:
        _fail(where.key(key) + f"Number of {_LIST_NAME[dtype]} values is not a multiple of "
              f"stride length. Saw {len(values)} values but output shape is: "
              f"{_shape_text(shape, '?')}")
    return values.reshape((len(values) // stride,) + tuple(shape))


def _sparse(rows, dtype, batched: bool):
    """indices, values, dense_shape of one list of values per example."""
    lengths = [len(r) for r in rows]
    width = max(lengths, default=0)
    cols = np.concatenate([np.arange(n, dtype=np.int64) for n in lengths] or
                          [np.zeros(0, np.int64)])
    values = np.concatenate(rows) if rows else _as_array(dtype, [])
    if not batched:
        return cols.reshape(-1, 1), values, np.array([width], np.int64)
    which = np.repeat(np.arange(len(rows), dtype=np.int64), lengths)
    return (np.stack([which, cols], 1), values,
            np.array([len(rows), width], np.int64))


def _padded(rows, dtype, shape, pad):
    longest = max((len(r) for r in rows), default=0)
    out = np.empty((len(rows), longest) + tuple(shape), object if dtype is D.string else
                   dtype.np)
    out[...] = pad if pad.size else _default_fill(dtype)
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
    return out


def _parsed_example(data: bytes) -> dict:
    try:
        return _features_of(_submessage(data, 1))
    except W.WireError:
        _fail(f"Could not parse example input, value: '{data.decode('utf-8', 'replace')}'")


def parse_features(found_per_example, features, defaults, batched, names, context=False):
    """The outputs of `features` (see ir/ops/parsing.py) for parsed examples (`context`: of
    a SequenceExample)."""
    out, next_default = [], iter(defaults)
    wheres = [_Where(batched, names, i, context) for i in range(len(found_per_example))]
    for kind, key, dtype, shape in features:
        if kind == "dense":
            default = np.asarray(next(next_default))
            rows = [_dense_value(found, key, dtype, shape, default, where)
                    for found, where in zip(found_per_example, wheres)]
            out.append(np.stack(rows) if batched and rows else rows[0] if rows else
                       np.zeros((0,) + tuple(shape), object if dtype is D.string else dtype.np))
            continue
        what = "sequence" if kind == "sequence" else "varlen"
        rows = [_list_value(found, key, dtype, where, what)
                for found, where in zip(found_per_example, wheres)]
        if kind == "sequence":
            pad = np.asarray(next(next_default))
            rows = [_sequence_rows(r, key, dtype, shape, where) for r, where in zip(rows, wheres)]
            out.append(_padded(rows, dtype, shape, pad) if batched else rows[0])
        elif kind == "sparse":
            out.extend(_sparse(rows, dtype, batched))
        else:
            out.append(np.concatenate(rows) if rows else _as_array(dtype, []))
            if batched:
                out.append(np.cumsum([0] + [len(r) for r in rows], dtype=np.int64))
    return out


@kernel("parse_example")
def parse_example(serialized, names, *dense_defaults, features):
    serialized = np.asarray(serialized, object)
    batched = serialized.ndim == 1
    found = [_parsed_example(b) for b in serialized.reshape(-1)]
    return _results(parse_features(found, features, dense_defaults, batched,
                                   list(np.asarray(names, object).reshape(-1))))


def _results(out: list):
    return out[0] if len(out) == 1 else tuple(out)


# --- SequenceExample -------------------------------------------------------------------------
def _feature_list(steps, key, kind, dtype, shape):
    """One feature list's outputs: rows of its steps' values."""
    rows = []
    for t, (step_kind, values) in enumerate(steps):
        if step_kind is not None and step_kind is not dtype:
            _fail(f"Name: <unknown>, Feature list: {key}, Index: {t}.  Data types don't match. "
                  f"Expected type: {TF_NAMES[dtype]}", "ParseSequenceExampleV2")
        rows.append(_as_array(dtype, values))
    if kind == "sparse":
        return list(_sparse(rows, dtype, batched=True))
    if kind == "ragged":
        return [np.concatenate(rows) if rows else _as_array(dtype, []),
                np.cumsum([0] + [len(r) for r in rows], dtype=np.int64)]
    stride = int(np.prod(shape, dtype=np.int64))
    total = sum(len(r) for r in rows)
    if any(len(r) != stride for r in rows):
        _fail(f"Feature list '{key}' has an unexpected number of values.  Total values size: "
              f"{total} is not consistent with output shape: {_shape_text(shape, '?')}",
              "ParseSequenceExampleV2")
    flat = np.concatenate(rows) if rows else _as_array(dtype, [])
    return [flat.reshape((len(rows),) + tuple(shape))]


def _sequence_example(data: bytes):
    """The context's features and the feature lists' steps of a SequenceExample."""
    try:
        found = _features_of(_submessage(data, 1))
        lists = {k: [_feature(f) for n, w, f in W.fields(v) if n == 1 and w == W.BYTES]
                 for k, v in _map(_submessage(data, 2), 1).items()}
    except W.WireError:
        _fail(f"Could not parse example input, value: '{data.decode('utf-8', 'replace')}'",
              "ParseSequenceExampleV2")
    return found, lists


def _steps(lists, key, kind, pad):
    steps = lists.get(key.encode())
    if steps is None and kind == "sequence" and np.asarray(pad).size == 0:
        _fail(f"Name: <unknown>, Feature list '{key}' is required but could not be found.  "
              f"Did you mean to include it in feature_list_dense_missing_assumed_empty or "
              f"feature_list_dense_defaults?", "ParseSequenceExampleV2")
    return steps or []


def _batched_list(per_example, kind, dtype, shape, pad):
    """One feature list's outputs over a batch, from each example's own outputs."""
    if kind == "sequence":
        return [_padded([p[0] for p in per_example], dtype, shape, np.asarray(pad))]
    indices = [np.concatenate([np.full((len(p[0]), 1), b, np.int64), p[0]], 1)
               for b, p in enumerate(per_example)]
    widths = [p[2] for p in per_example] or [np.zeros(2, np.int64)]
    return [np.concatenate(indices) if indices else np.zeros((0, 3), np.int64),
            np.concatenate([p[1] for p in per_example]) if per_example else
            _as_array(dtype, []),
            np.array([len(per_example), *np.max(widths, 0)], np.int64)]


@kernel("parse_sequence_example")
def parse_sequence_example(serialized, *dense_defaults, context, sequence):
    serialized = np.asarray(serialized, object)
    batched = serialized.ndim == 1
    parsed = [_sequence_example(b) for b in serialized.reshape(-1)]
    n_context = sum(kind in ("dense", "sequence") for kind, *_ in context)
    out = parse_features([found for found, _ in parsed], context,
                         dense_defaults[:n_context], batched, [], True)
    pads, lengths = iter(dense_defaults[n_context:]), []
    for kind, key, dtype, shape in sequence:
        pad = next(pads) if kind == "sequence" else None
        per_example = [_feature_list(_steps(lists, key, kind, pad), key, kind, dtype, shape)
                       for _, lists in parsed]
        out.extend(_batched_list(per_example, kind, dtype, shape, pad) if batched
                   else per_example[0])
        if kind == "sequence":
            counts = np.array([len(p[0]) for p in per_example], np.int64)
            lengths.append(counts if batched else counts.reshape(()))
    return _results(out + lengths)


# --- TensorProto -----------------------------------------------------------------------------
def _tensor_bytes(x: np.ndarray) -> bytes:
    dtype = D.from_numpy(x.dtype)
    shape = b"".join(W.length_delimited(2, W.varint_field(1, d)) for d in x.shape)
    out = W.varint_field(1, TF_ENUM[dtype]) + W.length_delimited(2, shape)
    if dtype is D.string:
        return out + b"".join(W.length_delimited(8, bytes(v)) for v in x.reshape(-1))
    content = np.ascontiguousarray(x, x.dtype.newbyteorder("<")).tobytes()
    return out + (W.length_delimited(4, content) if content else b"")


@kernel("serialize_tensor")
def serialize_tensor(tensor):
    return np.array(_tensor_bytes(np.asarray(tensor)), object)


# TensorProto's typed value fields (float_val, double_val; int_val, int64_val, bool_val,
# uint32_val, uint64_val), read where a proto has no tensor_content
_FIXED = {5: ("<f4",), 6: ("<f8",)}
_VARINT = (7, 10, 11, 16, 17)


class _Unfit(ValueError):
    """A well-formed TensorProto whose values do not make its tensor."""


def _dim_size(dim: bytes) -> int:
    sizes = [W.signed64(v) for n, w, v in W.fields(dim) if n == 1 and w == W.VARINT]
    return sizes[-1] if sizes else 0


def _tensor_from(data: bytes):
    dtype, dims, content, typed = None, [], None, []
    for number, wire, value in W.fields(data):
        if number == 1 and wire == W.VARINT:
            dtype = _BY_ENUM.get(value)
        elif number == 2 and wire == W.BYTES:
            dims = [_dim_size(d) for n, w, d in W.fields(value) if n == 2 and w == W.BYTES]
        elif number == 4 and wire == W.BYTES:
            content = value
        elif number == 8 and wire == W.BYTES:
            typed.append(value)
        elif number in _FIXED:
            fmt = _FIXED[number][0]
            if len(value) % np.dtype(fmt).itemsize:
                raise W.WireError("packed values")
            typed.extend(np.frombuffer(value, fmt).tolist())
        elif number in _VARINT:
            if wire == W.BYTES:
                typed.extend(W.signed64(v) for v in W.packed_varints(value))
            elif wire == W.VARINT:
                typed.append(W.signed64(value))
    if dtype is None or any(d < 0 for d in dims):
        raise W.WireError("dtype or shape")
    shape_text = f"shape {dims} of {TF_NAMES[dtype]}"
    try:
        check_allocation("ParseTensor", dtype, dims)
    except ResourceExhaustedError:
        raise _Unfit(f"{shape_text} is too large") from None
    count = int(np.prod(dims, dtype=np.int64))
    np_dtype = object if dtype is D.string else dtype.np
    if content is not None and dtype is not D.string:
        if len(content) != count * dtype.size:
            raise _Unfit(f"{len(content)} bytes of tensor_content for {shape_text}")
        return dtype, np.frombuffer(content, dtype.np.newbyteorder("<")).astype(
            dtype.np).reshape(dims)
    out = np.zeros(count, np_dtype) if dtype is not D.string else np.full(count, b"", object)
    if typed and count:   # as TF's FromProto: the last value repeats, extra ones are dropped
        typed = typed[:count]
        out[:len(typed)] = typed
        out[len(typed):] = typed[-1]
    return dtype, out.reshape(dims)


@kernel("parse_tensor")
def parse_tensor(serialized, out_type):
    data = np.asarray(serialized, object).item()
    try:
        dtype, value = _tensor_from(data)
    except _Unfit as e:
        raise InvalidArgumentError(None, "ParseTensor",
                                   f"Cannot parse tensor from proto: {e}") from None
    except (W.WireError, TypeError, ValueError, OverflowError):
        raise InvalidArgumentError(None, "ParseTensor",
                                   f"Could not parse `serialized` as TensorProto, base64: "
                                   f"{base64.b64encode(data).decode()}") from None
    if dtype is not out_type:
        raise InvalidArgumentError(None, "ParseTensor", f"Type mismatch between parsed tensor "
                                   f"({TF_NAMES[dtype]}) and dtype ({TF_NAMES[out_type]})")
    return value


# --- decode_raw ------------------------------------------------------------------------------
@kernel("decode_raw")
def decode_raw(input_bytes, out_type, little_endian, fixed_length):
    strings = np.asarray(input_bytes, object)
    flat = list(strings.reshape(-1))
    size = out_type.size
    order = out_type.np.newbyteorder("<" if little_endian else ">")
    if fixed_length:
        width = fixed_length // size
        check_allocation("DecodeRaw", out_type, (len(flat), width))
        rows = [np.frombuffer(s[:width * size].ljust(width * size, b"\0"), order) for s in flat]
    else:
        width = len(flat[0]) // size if flat else 0
        for i, s in enumerate(flat):
            if len(s) % size:
                raise InvalidArgumentError(None, "DecodeRaw", f"Input to DecodeRaw has length "
                                           f"{len(s)} that is not a multiple of {size}, the "
                                           f"size of {TF_NAMES[out_type]}")
            if len(s) != len(flat[0]):
                raise InvalidArgumentError(None, "DecodeRaw", f"DecodeRaw requires input "
                                           f"strings to all be the same size, but element {i} "
                                           f"has size {len(flat[0])} != {len(s)}")
        rows = [np.frombuffer(s, order) for s in flat]
    out = np.empty((len(flat), width), out_type.np)
    for i, r in enumerate(rows):
        out[i] = r
    return out.reshape(strings.shape + (width,))
