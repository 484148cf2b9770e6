"""`tf.train.Example` and the messages it is made of, with protobuf's Python message API.

protobuf itself is an optional dependency, so these messages are written over flowjit's own
wire codec (`runtime/proto_wire.py`): keyword construction, attribute access that creates
sub-messages on first write, map fields that create an entry on `[]`, `SerializeToString`,
`FromString`/`ParseFromString` (packed and unpacked repeated numbers, unknown fields skipped),
`==`, and `str()` in protobuf's text format as TF 2.21 prints it (map entries by key in
descending order). A map is serialized in ascending key order: TF's own order is its hash
table's, different in every process; ascending is what TF writes with `deterministic=True`.
"""
from __future__ import annotations

import math

import numpy as np

from ...runtime import proto_wire as W
from ..export import tf_export

_INT64 = (-(1 << 63), (1 << 63) - 1)


class DecodeError(Exception):
    """protobuf's `google.protobuf.message.DecodeError`: the bytes are not the message."""


# --- repeated scalars ------------------------------------------------------------------------
def _check_bytes(v):
    if not isinstance(v, bytes):
        raise TypeError(f"expected bytes, {type(v).__name__} found")
    return v


def _type_name(v) -> str:
    kind = type(v)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"


def _check_int64(v):
    if isinstance(v, bool):
        raise TypeError("Field tensorflow.Int64List.value: Expected an int, got a boolean.")
    if isinstance(v, (float, np.floating, np.bool_)) or not hasattr(v, "__index__"):
        raise TypeError(f"'{_type_name(v)}' object cannot be interpreted as an integer")
    v = int(v)
    if not _INT64[0] <= v <= _INT64[1]:
        raise ValueError(f"Value out of range: {v}")
    return v


def _check_float(v):
    # as protobuf: what converts to a Python float (a scalar tensor too), but no text
    if isinstance(v, (str, bytes, bytearray, complex, np.complexfloating)) or not (
            hasattr(v, "__float__") or hasattr(v, "__index__")):
        raise TypeError(f"must be real number, not {type(v).__name__}")
    with np.errstate(over="ignore"):   # beyond float32's range is inf, as protobuf stores it
        return float(np.float32(float(v)))


class _Repeated(list):
    """A repeated scalar field: a list that checks what goes in and tells its message."""

    def __init__(self, check, owner):
        super().__init__()
        self._check, self._owner = check, owner

    def append(self, v):
        super().append(self._check(v))
        self._owner._touch()

    def extend(self, vs):
        super().extend([self._check(v) for v in vs])
        self._owner._touch()

    def insert(self, i, v):
        super().insert(i, self._check(v))
        self._owner._touch()

    def __setitem__(self, i, v):
        super().__setitem__(i, [self._check(x) for x in v] if isinstance(i, slice)
                            else self._check(v))
        self._owner._touch()

    def __eq__(self, other):
        return list(self) == list(other)

    __hash__ = None


class _RepeatedMessages(list):
    def __init__(self, cls, owner):
        super().__init__()
        self._cls, self._owner = cls, owner

    def add(self, **fields):
        item = self._cls(**fields)
        super().append(item)
        self._owner._touch()
        return item

    def append(self, item):
        super().append(_as_message(self._cls, item))
        self._owner._touch()

    def extend(self, items):
        for item in items:
            self.append(item)

    def __eq__(self, other):
        return list(self) == list(other)

    __hash__ = None


class _MessageMap(dict):
    """A map<string, message> field: `m[key]` creates the entry, as protobuf's maps do."""

    def __init__(self, cls, owner):
        super().__init__()
        self._cls, self._owner = cls, owner

    def __missing__(self, key):
        if not isinstance(key, str):
            raise TypeError(f"bad argument type for built-in operation: {type(key).__name__}")
        value = self._cls()
        self._put(key, value)
        return value

    def __setitem__(self, key, value):
        raise ValueError("Direct assignment of submessage not allowed")

    def _put(self, key, value):
        dict.__setitem__(self, key, value)
        self._owner._touch()

    def get_or_create(self, key):
        return self[key]

    def __eq__(self, other):
        return dict(self) == dict(other)

    __hash__ = None


def _as_message(cls, value):
    if isinstance(value, cls):
        return value
    if isinstance(value, dict):
        return cls(**value)
    raise TypeError(f"Parameter to initialize message field must be dict or instance of "
                    f"same class: expected {cls.__name__} got {type(value).__name__}.")


# --- the messages ----------------------------------------------------------------------------
class _Field:
    """One field: its name, number, kind (bytes*, float*, int64*, message, messages, map) and
    for message kinds the class (a name, resolved once all classes exist)."""

    def __init__(self, name, number, kind, message=None, oneof=None):
        self.name, self.number, self.kind = name, number, kind
        self.message, self.oneof = message, oneof

    @property
    def cls(self):
        return _CLASSES[self.message]


_SCALARS = {"bytes*": _check_bytes, "float*": _check_float, "int64*": _check_int64}


class _Message:
    _FIELDS: tuple = ()
    _FULL_NAME = ""

    def __init__(self, **fields):
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_parent", None)   # (message, field) until first written
        for name, value in fields.items():
            f = self._field(name, "Message type \"{}\" has no field named \"{}\".")
            if value is None:
                continue
            if f.kind in _SCALARS:
                getattr(self, name).extend(value)
            elif f.kind == "message":
                self._set_child(f, _as_message(f.cls, value).__deepcopy__())
            elif f.kind == "messages":
                getattr(self, name).extend(v.__deepcopy__() if isinstance(v, _Message) else v
                                           for v in value)
            else:
                target = getattr(self, name)
                for key, v in value.items():
                    target._put(key, _as_message(f.cls, v).__deepcopy__())

    @classmethod
    def _field(cls, name, message):
        for f in cls._FIELDS:
            if f.name == name:
                return f
        raise ValueError(message.format(cls._FULL_NAME, name))

    # fields are created on first access and become present when first written
    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        f = self._field(name, "Protocol message {} has no field {}.")
        if name in self._values:
            return self._values[name]
        if f.kind == "message":
            child = f.cls()
            object.__setattr__(child, "_parent", (self, f))
            return child
        value = (_Repeated(_SCALARS[f.kind], self) if f.kind in _SCALARS else
                 _RepeatedMessages(f.cls, self) if f.kind == "messages" else
                 _MessageMap(f.cls, self))
        self._values[name] = value
        return value

    def __setattr__(self, name, value):
        f = self._field(name, "Protocol message {} has no field {}.")
        kind = "field" if f.kind == "message" else "repeated field"
        raise AttributeError(f"Assignment not allowed to {kind} \"{name}\" in protocol message "
                             f"object.")

    def _set_child(self, f, child):
        if f.oneof:
            for other in self._FIELDS:
                if other.oneof == f.oneof and other is not f:
                    self._values.pop(other.name, None)
        self._values[f.name] = child
        object.__setattr__(child, "_parent", None)
        self._touch()

    def _touch(self):
        """Something in this message was written: a lazily made sub-message joins its parent."""
        if self._parent is not None:
            parent, f = self._parent
            parent._set_child(f, self)

    def _present(self, f) -> bool:
        value = self._values.get(f.name)
        return value is not None and (f.kind == "message" or len(value) > 0)

    def HasField(self, name):  # noqa: N802  (protobuf's method names)
        f = self._field(name, "Protocol message {} has no singular \"{}\" field.")
        if f.kind != "message":
            raise ValueError(f"Protocol message {self._FULL_NAME} has no singular \"{name}\" "
                             f"field.")
        return f.name in self._values

    def WhichOneof(self, group):  # noqa: N802
        names = [f.name for f in self._FIELDS if f.oneof == group]
        if not names:
            raise ValueError(f"Protocol message has no oneof \"{group}\" field.")
        return next((n for n in names if n in self._values), None)

    def ClearField(self, name):  # noqa: N802
        self._field(name, "Protocol message {} has no field {}.")
        self._values.pop(name, None)

    def Clear(self):  # noqa: N802
        self._values.clear()

    def ListFields(self):  # noqa: N802
        return [(f, self._values[f.name]) for f in self._FIELDS if self._present(f)]

    # --- wire format ---------------------------------------------------------------------
    def SerializeToString(self, deterministic=None):  # noqa: N802
        out = []
        for f in self._FIELDS:
            if not self._present(f):
                continue
            value = self._values[f.name]
            if f.kind == "bytes*":
                out.extend(W.length_delimited(f.number, v) for v in value)
            elif f.kind == "float*":
                out.append(W.length_delimited(f.number, np.asarray(value, "<f4").tobytes()))
            elif f.kind == "int64*":
                out.append(W.length_delimited(f.number, b"".join(W.varint(v) for v in value)))
            elif f.kind == "message":
                out.append(W.length_delimited(f.number, value.SerializeToString()))
            elif f.kind == "messages":
                out.extend(W.length_delimited(f.number, v.SerializeToString()) for v in value)
            else:
                for key in sorted(value):
                    entry = (W.length_delimited(1, key.encode())
                             + W.length_delimited(2, value[key].SerializeToString()))
                    out.append(W.length_delimited(f.number, entry))
        return b"".join(out)

    def ByteSize(self):  # noqa: N802
        return len(self.SerializeToString())

    def MergeFromString(self, data):  # noqa: N802
        data = bytes(data)
        try:
            self._merge(data)
        except (W.WireError, UnicodeDecodeError):
            raise DecodeError(f"Error parsing message with type '{self._FULL_NAME}': Wire "
                              f"format was corrupt") from None
        return len(data)

    def ParseFromString(self, data):  # noqa: N802
        self.Clear()
        return self.MergeFromString(data)

    @classmethod
    def FromString(cls, data):  # noqa: N802
        message = cls()
        message.MergeFromString(data)
        return message

    def _merge(self, data: bytes):
        by_number = {f.number: f for f in self._FIELDS}
        for number, wire, value in W.fields(data):
            f = by_number.get(number)
            if f is None:
                continue
            if f.kind == "bytes*":
                if wire == W.BYTES:
                    list.append(getattr(self, f.name), value)
            elif f.kind == "float*":
                W.repeated_float(getattr(self, f.name), wire, value)
            elif f.kind == "int64*":
                W.repeated_int64(getattr(self, f.name), wire, value)
            elif wire != W.BYTES:
                continue
            elif f.kind == "message":
                child = self._values.get(f.name) or f.cls()
                child._merge(value)
                self._set_child(f, child)
            elif f.kind == "messages":
                child = f.cls()
                child._merge(value)
                list.append(getattr(self, f.name), child)
            else:
                key, child = "", f.cls()
                for n, w, v in W.fields(value):
                    if n == 1 and w == W.BYTES:
                        key = v.decode("utf-8")
                    elif n == 2 and w == W.BYTES:
                        child = f.cls()
                        child._merge(v)
                getattr(self, f.name)._put(key, child)
        self._touch()

    # --- Python protocol -----------------------------------------------------------------
    def CopyFrom(self, other):  # noqa: N802
        self.Clear()
        self.MergeFromString(other.SerializeToString())

    def MergeFrom(self, other):  # noqa: N802
        self.MergeFromString(other.SerializeToString())

    def __deepcopy__(self, memo=None):
        return type(self).FromString(self.SerializeToString())

    def __eq__(self, other):
        if not isinstance(other, _Message):
            return NotImplemented
        return type(self) is type(other) and \
            self.SerializeToString() == other.SerializeToString()

    __hash__ = None

    def __str__(self):
        return "".join(self._text(0))

    __repr__ = __str__

    def _text(self, indent):
        pad = " " * indent
        for f in self._FIELDS:
            if f.name not in self._values or (f.kind != "message" and not self._present(f)):
                continue
            value = self._values[f.name]
            if f.kind in _SCALARS:
                show = _TEXT[f.kind]
                yield from (f"{pad}{f.name}: {show(v)}\n" for v in value)
            elif f.kind == "message":
                yield from _block(pad, f.name, value._text(indent + 2))
            elif f.kind == "messages":
                for v in value:
                    yield from _block(pad, f.name, v._text(indent + 2))
            else:
                for key in sorted(value, reverse=True):
                    inner = [f'{pad}  key: "{_escape(key.encode(), raw_utf8=True)}"\n',
                             *_block(pad + "  ", "value", value[key]._text(indent + 4))]
                    yield from _block(pad, f.name, inner)


def _block(pad, name, lines):
    yield f"{pad}{name} {{\n"
    yield from lines
    yield f"{pad}}}\n"


_ESCAPES = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord('"'): '\\"',
            ord("'"): "\\'", ord("\\"): "\\\\"}


def _escape(data: bytes, raw_utf8=False) -> str:
    """protobuf's text escaping: C escapes, other bytes outside printable ASCII in octal
    (a string field's UTF-8 stays as it is)."""
    if raw_utf8:
        text = data.decode("utf-8")
        return "".join(_ESCAPES.get(ord(c)) or (f"\\{ord(c):03o}" if ord(c) < 0x20 or
                                                  ord(c) == 0x7F else c) for c in text)
    return "".join(_ESCAPES.get(b) or (chr(b) if 0x20 <= b < 0x7F else f"\\{b:03o}")
                   for b in data)


def _float_text(v: float) -> str:
    """The shortest of 6 or 9 significant digits that reads back as the same float32."""
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    text = "%.6g" % v
    return text if np.float32(float(text)) == np.float32(v) else "%.9g" % v


_TEXT = {"bytes*": lambda v: f'"{_escape(v)}"', "float*": _float_text, "int64*": str}
_CLASSES: dict = {}


def _message(name, *fields):
    cls = type(name, (_Message,), {"_FIELDS": fields, "_FULL_NAME": f"tensorflow.{name}",
                                   "__doc__": f"TF's `tf.train.{name}` protocol message.",
                                   "__module__": __name__})
    cls.DecodeError = DecodeError
    _CLASSES[name] = cls
    return tf_export(f"train.{name}")(cls)


BytesList = _message("BytesList", _Field("value", 1, "bytes*"))
FloatList = _message("FloatList", _Field("value", 1, "float*"))
Int64List = _message("Int64List", _Field("value", 1, "int64*"))
Feature = _message("Feature", _Field("bytes_list", 1, "message", "BytesList", "kind"),
                   _Field("float_list", 2, "message", "FloatList", "kind"),
                   _Field("int64_list", 3, "message", "Int64List", "kind"))
Features = _message("Features", _Field("feature", 1, "map", "Feature"))
FeatureList = _message("FeatureList", _Field("feature", 1, "messages", "Feature"))
FeatureLists = _message("FeatureLists", _Field("feature_list", 1, "map", "FeatureList"))
Example = _message("Example", _Field("features", 1, "message", "Features"))
SequenceExample = _message("SequenceExample", _Field("context", 1, "message", "Features"),
                           _Field("feature_lists", 2, "message", "FeatureLists"))
