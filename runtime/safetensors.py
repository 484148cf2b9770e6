"""Tensors on disk in the safetensors format, written and read with NumPy alone.

A file is: an 8-byte little-endian header length N, N bytes of JSON
(`{"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, ...,
"__metadata__": {str: str}}`), then the raw little-endian bytes. Reading parses JSON and copies
byte ranges, so a file can never run code; every header field is checked against the file
before any byte is used. Writes go to a temporary file in the same folder, are flushed to disk
and renamed over the target, so a crash mid-write leaves the previous file intact.
"""
from __future__ import annotations

import json
import os
import tempfile

import ml_dtypes
import numpy as np

_CODES = {"F64": np.float64, "F32": np.float32, "F16": np.float16, "BF16": ml_dtypes.bfloat16,
          "I64": np.int64, "I32": np.int32, "I16": np.int16, "I8": np.int8, "U8": np.uint8,
          "BOOL": np.bool_}
_DTYPES = {np.dtype(v): np.dtype(v).newbyteorder("<") for v in _CODES.values()}
_CODE_OF = {np.dtype(v): k for k, v in _CODES.items()}
_MAX_HEADER = 100 << 20   # the format's own limit on the JSON header


class FormatError(ValueError):
    """The file is not a well-formed safetensors file."""


def atomic_write(path: str, data: bytes) -> None:
    """Write `data` to `path` so that readers see the old file or the new one, never a mix."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def dumps(tensors: dict, metadata: dict | None = None) -> bytes:
    """The safetensors bytes of `{name: ndarray}` (names sorted) with string metadata."""
    header, chunks, offset = {}, [], 0
    for name in sorted(tensors):
        a = np.asarray(tensors[name])
        code = _CODE_OF.get(a.dtype)
        if code is None:
            raise TypeError(f"safetensors: tensor {name!r} has unsupported dtype {a.dtype}")
        raw = np.ascontiguousarray(a, dtype=_DTYPES[a.dtype]).tobytes()
        header[name] = {"dtype": code, "shape": list(a.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    head = json.dumps(header, separators=(",", ":")).encode()
    head += b" " * (-len(head) % 8)   # the format aligns the data section to 8 bytes
    return len(head).to_bytes(8, "little") + head + b"".join(chunks)


def write(path: str, tensors: dict, metadata: dict | None = None) -> None:
    atomic_write(path, dumps(tensors, metadata))


def read(path: str) -> tuple[dict, dict]:
    """({name: ndarray}, metadata) of a safetensors file; FormatError if it is malformed."""
    with open(path, "rb") as f:
        data = f.read()
    return loads(data, path)


def loads(data: bytes, where: str = "<bytes>") -> tuple[dict, dict]:
    def bad(why):
        return FormatError(f"{where} is not a valid safetensors file: {why}")

    if len(data) < 8:
        raise bad("shorter than its 8-byte header length")
    n = int.from_bytes(data[:8], "little")
    if n > min(_MAX_HEADER, len(data) - 8):
        raise bad(f"header length {n} exceeds the file")
    try:
        header = json.loads(data[8:8 + n])
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise bad(f"header is not JSON ({e})") from None
    if not isinstance(header, dict):
        raise bad("header is not a JSON object")
    metadata = header.pop("__metadata__", None) or {}
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise bad("__metadata__ must map strings to strings")
    body = memoryview(data)[8 + n:]
    tensors = {}
    for name, entry in header.items():
        try:
            dtype = _DTYPES[np.dtype(_CODES[entry["dtype"]])]
            shape = tuple(int(d) for d in entry["shape"])
            begin, end = (int(o) for o in entry["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise bad(f"tensor {name!r} has a malformed entry {entry!r}") from None
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if min(shape, default=0) < 0 or not 0 <= begin <= end <= len(body) \
                or end - begin != count * dtype.itemsize:
            raise bad(f"tensor {name!r} ({entry['dtype']}{list(shape)}) does not match its "
                      f"byte range {begin}:{end} of {len(body)}")
        tensors[name] = np.frombuffer(body[begin:end], dtype).reshape(shape).astype(
            dtype.newbyteorder("="))
    return tensors, metadata
