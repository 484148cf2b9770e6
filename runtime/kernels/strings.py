"""Kernels of the string ops. A string tensor is an object array of `bytes`; every kernel maps
Python's bytes methods over the elements and returns arrays (0-d for scalars), never bare
`bytes`."""
from __future__ import annotations

import numpy as np

from ...ir.errors import InvalidArgumentError
from ...ir.regex import compile_regex
from . import kernel
from .logging import fill_template, format_tensor

_WHITESPACE = b" \t\n\v\f\r"  # absl's ASCII whitespace, what TF strips and splits on


def _map(fn, *arrays, dtype=object):
    """`fn` over the broadcast elements of `arrays`, as an array of `dtype`."""
    arrays = np.broadcast_arrays(*[np.asarray(a) for a in arrays])
    out = np.empty(arrays[0].shape, dtype)
    for i, items in enumerate(zip(*[a.flat for a in arrays])):
        out.flat[i] = fn(*items)
    return out


def _utf8_chars(b: bytes) -> int:
    return sum(1 for c in b if c & 0xC0 != 0x80)  # bytes that start a UTF-8 character


def _decode(b: bytes, opname: str) -> str:
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InvalidArgumentError(None, opname, f"Invalid UTF-8 in {b!r}: {e}") from None


@kernel("string_length")
def string_length(x, unit):
    return _map(len if unit == "BYTE" else _utf8_chars, x, dtype=np.int32)


@kernel("string_upper")
def string_upper(x, encoding):
    if encoding:  # TF: "utf-8" case-maps every character, "" only ASCII
        return _map(lambda b: _decode(b, "string_upper").upper().encode(), x)
    return _map(bytes.upper, x)


@kernel("string_lower")
def string_lower(x, encoding):
    if encoding:
        return _map(lambda b: _decode(b, "string_lower").lower().encode(), x)
    return _map(bytes.lower, x)


@kernel("string_strip")
def string_strip(x):
    return _map(lambda b: b.strip(_WHITESPACE), x)


@kernel("regex_full_match")
def regex_full_match(x, pattern):
    match = compile_regex(pattern).fullmatch
    return _map(lambda b: match(b) is not None, x, dtype=np.bool_)


@kernel("string_join")
def string_join(*inputs, separator):
    sep = separator.encode()
    return _map(lambda *parts: sep.join(parts), *inputs)


@kernel("string_split")
def string_split(x, sep, maxsplit):
    pieces = np.asarray(x)[()].split(sep.encode() if sep else None, maxsplit)
    out = np.empty(len(pieces), object)
    out[:] = pieces
    return out


@kernel("string_format")
def string_format(*inputs, template, placeholder, summarize):
    text = fill_template(template, placeholder, (format_tensor(x, summarize) for x in inputs))
    return np.array(text.encode(), dtype=object)


@kernel("as_string")
def as_string(x, precision, scientific, shortest, width, fill):
    x = np.asarray(x)
    if x.dtype == object:
        return x.copy()
    if x.dtype == np.bool_:
        return _map(lambda v: b"true" if v else b"false", x)
    # TF builds one printf format from the attributes, as here.
    spec = "%" + fill + (str(width) if width > -1 else "")
    if x.dtype.kind == "f" or x.dtype.name == "bfloat16":
        spec += (f".{precision}" if precision > -1 else "") + (
            "e" if scientific else "g" if shortest else "f")
        return _map(lambda v: (spec % float(v)).encode(), x)
    return _map(lambda v: ((spec + "d") % int(v)).encode(), x)


def _to_float(b: bytes) -> float:
    text = b.decode("ascii").strip()
    if "_" in text:  # Python takes digit separators, strtod does not
        raise ValueError(text)
    if text.lstrip("+-")[:2] in ("0x", "0X"):
        return float.fromhex(text)  # strtod reads hex floats ("0x10"), only with the prefix
    return float(text)


def _to_int(b: bytes) -> int:
    text = b.decode("ascii").strip()
    if "_" in text:
        raise ValueError(text)
    return int(text, 10)


@kernel("string_to_number")
def string_to_number(x, out_type):
    dt = np.dtype(out_type.np)
    parse = _to_float if dt.kind == "f" else _to_int

    def convert(b):
        try:
            v = parse(b)
            if dt.kind == "i" and not np.iinfo(dt).min <= v <= np.iinfo(dt).max:
                raise ValueError(b)
            return v
        except (ValueError, UnicodeDecodeError):
            raise InvalidArgumentError(None, "string_to_number", f"StringToNumberOp could not "
                                       f"correctly convert string: "
                                       f"{b.decode('utf-8', 'replace')}") from None
    return _map(convert, x, dtype=dt)


@kernel("substr")
def substr(x, pos, length, unit):
    xs, ps, ns = np.broadcast_arrays(np.asarray(x), np.asarray(pos), np.asarray(length))
    out = np.empty(xs.shape, object)
    for i, (b, p, n) in enumerate(zip(xs.flat, ps.flat, ns.flat)):
        seq = b if unit == "BYTE" else _decode(b, "substr")
        if not -len(seq) <= p <= len(seq):
            raise InvalidArgumentError(None, "substr", f"pos {p} out of range for string "
                                       f"{b!r} at index {i}")
        start = p + len(seq) if p < 0 else p
        piece = seq[start:start + max(int(n), 0)]
        out.flat[i] = piece if unit == "BYTE" else piece.encode()
    return out


@kernel("reduce_join")
def reduce_join(x, axis, keepdims, separator):
    x = np.asarray(x)
    axes = list(range(x.ndim)) if axis is None else sorted(a % x.ndim for a in axis)
    kept = [a for a in range(x.ndim) if a not in axes]
    out = np.empty([x.shape[a] for a in kept], object)
    rows = np.transpose(x, kept + axes).reshape(out.size, -1 if out.size else 0)
    sep = separator.encode()
    for i, row in enumerate(rows):
        out.flat[i] = sep.join(row)
    if keepdims:
        out = out.reshape([1 if a in axes else d for a, d in enumerate(x.shape)])
    return out
