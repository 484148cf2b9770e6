"""Kernels of the text ops: RE2 replacement with RE2's rewrite rules, the three hashes TF
buckets strings with (FarmHash's Fingerprint64, SipHash-2-4, TF's legacy Hash64) in 64-bit
unsigned arithmetic, and splitting one string into characters."""
from __future__ import annotations

import struct

import numpy as np

from ...ir.errors import InvalidArgumentError
from ...ir.regex import compile_regex
from . import kernel
from .strings import _map

_M64 = (1 << 64) - 1


def _u64(data: bytes, at: int) -> int:
    return struct.unpack_from("<Q", data, at)[0]


def _u32(data: bytes, at: int) -> int:
    return struct.unpack_from("<I", data, at)[0]


def _ror(v: int, shift: int) -> int:
    return ((v >> shift) | (v << (64 - shift))) & _M64 if shift else v


def _rol(v: int, shift: int) -> int:
    return ((v << shift) | (v >> (64 - shift))) & _M64


# --- FarmHash Fingerprint64 (farmhash's "na" Hash64) ---------------------------------------
_K0, _K1, _K2 = 0xC3A5C85C97CB3127, 0xB492B66FBE98F273, 0x9AE16A3B2F90404F


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _len16(u: int, v: int, mul: int) -> int:
    a = ((u ^ v) * mul) & _M64
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M64
    b ^= b >> 47
    return (b * mul) & _M64


def _len0to16(s: bytes) -> int:
    n = len(s)
    if n >= 8:
        mul = _K2 + n * 2
        a = (_u64(s, 0) + _K2) & _M64
        b = _u64(s, n - 8)
        c = (_ror(b, 37) * mul + a) & _M64
        d = ((_ror(a, 25) + b) * mul) & _M64
        return _len16(c, d, mul)
    if n >= 4:
        mul = _K2 + n * 2
        return _len16(n + (_u32(s, 0) << 3), _u32(s, n - 4), mul)
    if n:
        y = (s[0] + (s[n >> 1] << 8)) & 0xFFFFFFFF
        z = (n + (s[n - 1] << 2)) & 0xFFFFFFFF
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _M64) * _K2) & _M64
    return _K2


def _len17to32(s: bytes) -> int:
    n = len(s)
    mul = _K2 + n * 2
    a = (_u64(s, 0) * _K1) & _M64
    b = _u64(s, 8)
    c = (_u64(s, n - 8) * mul) & _M64
    d = (_u64(s, n - 16) * _K2) & _M64
    return _len16((_ror((a + b) & _M64, 43) + _ror(c, 30) + d) & _M64,
                  (a + _ror((b + _K2) & _M64, 18) + c) & _M64, mul)


def _len33to64(s: bytes) -> int:
    n = len(s)
    mul = _K2 + n * 2
    a = (_u64(s, 0) * _K2) & _M64
    b = _u64(s, 8)
    c = (_u64(s, n - 8) * mul) & _M64
    d = (_u64(s, n - 16) * _K2) & _M64
    y = (_ror((a + b) & _M64, 43) + _ror(c, 30) + d) & _M64
    z = _len16(y, (a + _ror((b + _K2) & _M64, 18) + c) & _M64, mul)
    e = (_u64(s, 16) * mul) & _M64
    f = _u64(s, 24)
    g = ((y + _u64(s, n - 32)) * mul) & _M64
    h = ((z + _u64(s, n - 24)) * mul) & _M64
    return _len16((_ror((e + f) & _M64, 43) + _ror(g, 30) + h) & _M64,
                  (e + _ror((f + a) & _M64, 18) + g) & _M64, mul)


def _weak32(s: bytes, at: int, a: int, b: int):
    w, x, y, z = (_u64(s, at + 8 * i) for i in range(4))
    a = (a + w) & _M64
    b = _ror((b + a + z) & _M64, 21)
    c = a
    a = (a + x + y) & _M64
    b = (b + _ror(a, 44)) & _M64
    return (a + z) & _M64, (b + c) & _M64


def fingerprint64(s: bytes) -> int:
    n = len(s)
    if n <= 16:
        return _len0to16(s)
    if n <= 32:
        return _len17to32(s)
    if n <= 64:
        return _len33to64(s)
    seed = 81
    y = (seed * _K1 + 113) & _M64
    z = (_shift_mix((y * _K2 + 113) & _M64) * _K2) & _M64
    v, w = (0, 0), (0, 0)
    x = (seed * _K2 + _u64(s, 0)) & _M64
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63

    def round_(at, x, y, z, v, w, mul, last):
        x = (_ror((x + y + v[0] + _u64(s, at + 8)) & _M64, 37) * mul) & _M64
        y = (_ror((y + v[1] + _u64(s, at + 48)) & _M64, 42) * mul) & _M64
        x ^= (w[1] * 9) & _M64 if last else w[1]
        y = (y + (v[0] * 9 if last else v[0]) + _u64(s, at + 40)) & _M64
        z = (_ror((z + w[0]) & _M64, 33) * mul) & _M64
        v = _weak32(s, at, (v[1] * mul) & _M64, (x + w[0]) & _M64)
        w = _weak32(s, at + 32, (z + w[1]) & _M64, (y + _u64(s, at + 16)) & _M64)
        return z, y, x, v, w          # x and z swap

    for at in range(0, end, 64):
        x, y, z, v, w = round_(at, x, y, z, v, w, _K1, False)
    mul = _K1 + ((z & 0xFF) << 1)
    w = ((w[0] + ((n - 1) & 63)) & _M64, w[1])
    v = ((v[0] + w[0]) & _M64, v[1])
    w = ((w[0] + v[0]) & _M64, w[1])
    x, y, z, v, w = round_(last64, x, y, z, v, w, mul, True)
    return _len16((_len16(v[0], w[0], mul) + _shift_mix(y) * _K0 + z) & _M64,
                  (_len16(v[1], w[1], mul) + x) & _M64, mul)


# --- SipHash-2-4 (TF's StrongKeyedHash) ----------------------------------------------------
def _sip_rounds(v, n):
    v0, v1, v2, v3 = v
    for _ in range(n):
        v0 = (v0 + v1) & _M64
        v1 = _rol(v1, 13) ^ v0
        v0 = _rol(v0, 32)
        v2 = (v2 + v3) & _M64
        v3 = _rol(v3, 16) ^ v2
        v0 = (v0 + v3) & _M64
        v3 = _rol(v3, 21) ^ v0
        v2 = (v2 + v1) & _M64
        v1 = _rol(v1, 17) ^ v2
        v2 = _rol(v2, 32)
    return [v0, v1, v2, v3]


def siphash24(k0: int, k1: int, s: bytes) -> int:
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D,
         k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573]
    full = len(s) - len(s) % 8
    tail = int.from_bytes(s[full:], "little") | ((len(s) & 0xFF) << 56)
    for m in [_u64(s, at) for at in range(0, full, 8)] + [tail]:
        v[3] ^= m
        v = _sip_rounds(v, 2)
        v[0] ^= m
    v[2] ^= 0xFF
    v = _sip_rounds(v, 4)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


# --- TF's legacy Hash64 (a MurmurHash64A with TF's seed) -----------------------------------
def legacy_hash64(s: bytes, seed: int = 0xDECAFCAFFE) -> int:
    m = 0xC6A4A7935BD1E995
    h = (seed ^ (len(s) * m)) & _M64
    full = len(s) - len(s) % 8
    for at in range(0, full, 8):
        k = (_u64(s, at) * m) & _M64
        k = ((k ^ (k >> 47)) * m) & _M64
        h = ((h ^ k) * m) & _M64
    if len(s) > full:
        h = ((h ^ int.from_bytes(s[full:], "little")) * m) & _M64
    h = ((h ^ (h >> 47)) * m) & _M64
    return h ^ (h >> 47)


def _bucketed(hash_fn, x, num_buckets):
    return _map(lambda b: hash_fn(b) % num_buckets, x, dtype=np.int64)


@kernel("string_to_hash_bucket_fast")
def string_to_hash_bucket_fast(x, num_buckets):
    return _bucketed(fingerprint64, x, num_buckets)


@kernel("string_to_hash_bucket_strong")
def string_to_hash_bucket_strong(x, num_buckets, key):
    k0, k1 = (k & _M64 for k in key)
    return _bucketed(lambda b: siphash24(k0, k1, b), x, num_buckets)


@kernel("string_to_hash_bucket")
def string_to_hash_bucket(x, num_buckets):
    return _bucketed(legacy_hash64, x, num_buckets)


# --- regex_replace: RE2's Replace/GlobalReplace ----------------------------------------------
def _utf8_width(lead: int) -> int:
    return 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


def _rewrite_parts(rewrite: bytes):
    """The rewrite as literal bytes and group numbers; parsing stops at an invalid escape
    (RE2 logs it and writes what came before)."""
    parts, i, literal = [], 0, bytearray()
    while i < len(rewrite):
        c = rewrite[i:i + 1]
        nxt = rewrite[i + 1:i + 2]
        if c != b"\\":
            literal += c
        elif nxt.isdigit():
            parts += [bytes(literal), int(nxt)]
            literal = bytearray()
            i += 1
        elif nxt == b"\\":
            literal += b"\\"
            i += 1
        else:
            break
        i += 1
    return parts + [bytes(literal)]


def _replace(s: bytes, regex, parts, max_group: int, replace_global: bool) -> bytes:
    if max_group > regex.groups:   # RE2 refuses to rewrite with groups the pattern lacks
        return s
    out, p, last_end, count = bytearray(), 0, None, 0
    while p <= len(s):
        m = regex.search(s, p)
        if m is None:
            break
        start, end = m.span()
        out += s[p:start]
        if start == end and start == last_end:   # no empty match right after a match
            step = _utf8_width(s[p]) if p < len(s) else 1
            out += s[p:p + step]
            p += step
            continue
        for part in parts:
            out += part if isinstance(part, bytes) else (m.group(part) or b"")
        p = last_end = end
        count += 1
        if not replace_global:
            break
    if not count:
        return s
    return bytes(out + s[p:])


@kernel("regex_replace")
def regex_replace(x, pattern, rewrite, replace_global=True):
    regex = compile_regex(pattern)
    parts = _rewrite_parts(rewrite.encode())
    max_group = max([p for p in parts if isinstance(p, int)], default=0)
    return _map(lambda b: _replace(b, regex, parts, max_group, replace_global), x)


# --- unicode_split --------------------------------------------------------------------------
_CODECS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}


@kernel("unicode_split")
def unicode_split(x, input_encoding, errors="replace", replacement_char=0xFFFD):
    codec = _CODECS[input_encoding]
    data = np.asarray(x).item()
    try:
        text = data.decode(codec, "replace" if errors == "replace" else errors)
    except UnicodeDecodeError:
        raise InvalidArgumentError(None, "unicode_split",
                                   "Invalid formatting on input string") from None
    if errors == "replace" and replacement_char != 0xFFFD:
        text = text.replace("\ufffd", chr(replacement_char))
    out = np.empty(len(text), object)
    out[:] = [ch.encode(codec) for ch in text]
    return out


# --- unicode_decode / encode / transcode ----------------------------------------------------
def _is_scalar_value(cp: int) -> bool:
    return 0 <= cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF


def _decode_points(data: bytes, encoding, errors, replacement_char, replace_control, opname):
    try:
        text = data.decode(_CODECS[encoding], errors)
    except UnicodeDecodeError:
        raise InvalidArgumentError(None, opname, "Invalid formatting on input string") from None
    points = [ord(ch) for ch in text]
    if errors == "replace" and replacement_char != 0xFFFD:
        points = [replacement_char if p == 0xFFFD else p for p in points]
    if replace_control:
        points = [replacement_char if p < 0x20 else p for p in points]
    return points


def _encode_points(points, encoding, errors, replacement_char, opname) -> bytes:
    out = []
    for p in (int(v) for v in points):
        if not _is_scalar_value(p):
            if errors == "strict":
                raise InvalidArgumentError(None, opname, "Code point is out of range for "
                                                         "Unicode, or is a surrogate.")
            if errors == "ignore":
                continue
            p = replacement_char
        out.append(chr(p))
    return "".join(out).encode(_CODECS[encoding])


@kernel("unicode_decode")
def unicode_decode(x, input_encoding, errors="replace", replacement_char=0xFFFD,
                   replace_control_characters=False):
    return np.asarray(_decode_points(np.asarray(x).item(), input_encoding, errors,
                                     replacement_char, replace_control_characters,
                                     "unicode_decode"), np.int32)


def _decoded_pieces(data: bytes, codec: str):
    """(text, None) for each valid run of `data` and (None, (start, end)) for each byte span
    that does not decode, in order: Python's spans, one per replacement character."""
    position = 0
    while position < len(data):
        try:
            yield data[position:].decode(codec), None
            return
        except UnicodeDecodeError as e:
            if e.start:
                yield data[position:position + e.start].decode(codec), None
            yield None, (position + e.start, position + e.end)
            position += e.end


@kernel("unicode_decode_with_offsets")
def unicode_decode_with_offsets(x, input_encoding, errors="replace", replacement_char=0xFFFD,
                                replace_control_characters=False):
    codec = _CODECS[input_encoding]
    points, offsets, position = [], [], 0
    for text, bad in _decoded_pieces(np.asarray(x).item(), codec):
        if bad is not None:
            if errors == "strict":
                raise InvalidArgumentError(None, "unicode_decode_with_offsets",
                                           "Invalid formatting on input string")
            if errors == "replace":
                points.append(replacement_char)
                offsets.append(bad[0])
            position = bad[1]
            continue
        for ch in text:
            point = ord(ch)
            points.append(replacement_char if replace_control_characters and point < 0x20
                          else point)
            offsets.append(position)
            position += len(ch.encode(codec))
    return np.asarray(points, np.int32), np.asarray(offsets, np.int64)


@kernel("unicode_encode")
def unicode_encode(x, output_encoding, errors="replace", replacement_char=0xFFFD):
    rows = np.asarray(x)
    out = np.empty(rows.shape[:-1], object)
    for index in np.ndindex(out.shape):
        out[index] = _encode_points(rows[index], output_encoding, errors, replacement_char,
                                    "unicode_encode")
    return out


@kernel("unicode_transcode")
def unicode_transcode(x, input_encoding, output_encoding, errors="replace",
                      replacement_char=0xFFFD, replace_control_characters=False):
    def transcode(b):
        points = _decode_points(b, input_encoding, errors, replacement_char,
                                replace_control_characters, "unicode_transcode")
        return _encode_points(points, output_encoding, "replace", 0xFFFD, "unicode_transcode")
    return _map(transcode, x)


@kernel("unsorted_segment_join")
def unsorted_segment_join(x, segment_ids, num_segments, separator=""):
    x, ids = np.asarray(x), np.asarray(segment_ids)
    if ids.size and (ids.min() < 0 or ids.max() >= num_segments):
        raise InvalidArgumentError(None, "unsorted_segment_join",
                                   "segment_ids are not allowed to exceed num_segments or to "
                                   "have negative values.")
    rows = x.reshape(ids.size, int(np.prod(x.shape[ids.ndim:], dtype=np.int64)))
    sep = separator.encode()
    out = np.empty((num_segments, rows.shape[1]), object)
    for seg in range(num_segments):
        members = rows[ids.reshape(-1) == seg]
        for cell in range(rows.shape[1]):
            out[seg, cell] = sep.join(members[:, cell])
    return out.reshape((num_segments,) + x.shape[ids.ndim:])
