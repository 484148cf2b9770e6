"""Protocol buffers' wire format, the part TF's records use: varints, length-delimited fields,
fixed 32/64-bit fields, packed repeated scalars.

Reading is a load path: every length is checked against the bytes that remain before
anything is sliced or allocated, a varint is at most ten bytes, and malformed input raises
`WireError` (the callers turn it into TF's error for their message type). A field of an
unexpected wire type is skipped, as protobuf treats it as an unknown field.
"""
from __future__ import annotations

import struct

import numpy as np

VARINT, FIXED64, BYTES, FIXED32 = 0, 1, 2, 5


class WireError(ValueError):
    """The bytes are not a well-formed protocol buffer."""


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    for i in range(pos, min(pos + 10, len(data))):
        byte = data[i]
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result & 0xFFFFFFFFFFFFFFFF, i + 1
        shift += 7
    raise WireError("truncated or overlong varint")


def fields(data: bytes):
    """(field number, wire type, value) of each field: an int for varints, bytes otherwise."""
    pos, end = 0, len(data)
    while pos < end:
        key, pos = read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise WireError("field number 0")
        if wire == VARINT:
            value, pos = read_varint(data, pos)
        elif wire == BYTES:
            size, pos = read_varint(data, pos)
            if size > end - pos:
                raise WireError("length past the end")
            value, pos = data[pos:pos + size], pos + size
        elif wire in (FIXED64, FIXED32):
            size = 8 if wire == FIXED64 else 4
            if size > end - pos:
                raise WireError("fixed field past the end")
            value, pos = data[pos:pos + size], pos + size
        else:  # groups (3, 4) and the unused types 6, 7
            raise WireError(f"wire type {wire}")
        yield number, wire, value


def signed64(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def packed_varints(data: bytes) -> list:
    out, pos = [], 0
    while pos < len(data):
        value, pos = read_varint(data, pos)
        out.append(value)
    return out


def repeated_int64(values: list, wire: int, value) -> None:
    """Append a repeated int64 field's values: packed (BYTES) or one varint."""
    if wire == BYTES:
        values.extend(signed64(v) for v in packed_varints(value))
    elif wire == VARINT:
        values.append(signed64(value))


def repeated_float(values: list, wire: int, value) -> None:
    """Append a repeated float field's values: packed (BYTES) or one fixed32."""
    if wire == BYTES:
        if len(value) % 4:
            raise WireError("packed floats not a multiple of 4 bytes")
        values.extend(np.frombuffer(value, "<f4").tolist())
    elif wire == FIXED32:
        values.append(struct.unpack("<f", value)[0])


# --- writing ------------------------------------------------------------------------------
def varint(value: int) -> bytes:
    value &= 0xFFFFFFFFFFFFFFFF   # negative int64s are ten bytes, as protobuf writes them
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def key(number: int, wire: int) -> bytes:
    return varint(number << 3 | wire)


def length_delimited(number: int, payload: bytes) -> bytes:
    return key(number, BYTES) + varint(len(payload)) + payload


def varint_field(number: int, value: int) -> bytes:
    """A singular proto3 varint: absent when zero."""
    return key(number, VARINT) + varint(value) if value else b""
