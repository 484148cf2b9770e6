"""Tensors on disk in the safetensors format, written and read with NumPy alone.

A file is: an 8-byte little-endian header length N, N bytes of JSON
(`{"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, ...,
"__metadata__": {str: str}}`), then the raw little-endian bytes. Reading parses JSON and copies
byte ranges, so a file can never run code.

Integrity, as TF's CRC32C per tensor: the metadata holds `crc32c` (JSON `{name: crc}` of each
tensor's bytes) and `header_crc32c` (of the header's canonical JSON without that entry), so a
flipped bit anywhere is a DataLossError naming the tensor and the file. Files without them
(written before checksums) still read. Every header field is checked before any tensor is
allocated: known dtypes, shapes of non-negative ints, byte ranges that tile the data section
exactly (no gaps, overlaps or aliases), and a file size equal to what the header describes
(no trailing bytes), so no tensor can be larger than the file.
"""
from __future__ import annotations

import json

import google_crc32c
import numpy as np

from ..ir.dtypes import as_dtype
from ..ir.errors import DataLossError
from . import safe_files

# the format's dtype codes by NumPy dtype name (bfloat16's type exists once ml_dtypes loads)
_CODES = {"F64": "float64", "F32": "float32", "F16": "float16", "BF16": "bfloat16",
          "I64": "int64", "I32": "int32", "I16": "int16", "I8": "int8", "U8": "uint8",
          "BOOL": "bool"}
_CODE_OF = {v: k for k, v in _CODES.items()}


def _little_endian(code: str) -> np.dtype:
    return as_dtype(_CODES[code]).np.newbyteorder("<")
_MAX_HEADER = 100 << 20   # the format's own limit on the JSON header
_MAX_FILE = 1 << 50       # no bound but the header's: the file's size must match it exactly
TENSOR_CRCS = "crc32c"
HEADER_CRC = "header_crc32c"
_ENTRY_FIELDS = {"dtype", "shape", "data_offsets"}


def crc32c(array: np.ndarray) -> int:
    """CRC32C of a contiguous array's bytes, without copying them."""
    view = array.view()
    view.flags.writeable = False   # the C implementation takes read-only buffers only
    return google_crc32c.value(view)


def _canonical(header: dict) -> bytes:
    meta = {k: v for k, v in header.get("__metadata__", {}).items() if k != HEADER_CRC}
    body = {**header, "__metadata__": meta}
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


def _header_crc(header: dict) -> int:
    return google_crc32c.value(_canonical(header))


def encode(tensors: dict, metadata: dict | None = None) -> tuple[list, int]:
    """The safetensors file of `{name: ndarray}` (names sorted) with string metadata, as a
    list of buffers to write in order (the tensors are not copied into one bytes object), and
    its header's CRC32C."""
    header, chunks, crcs, offset = {}, [], {}, 0
    for name in sorted(tensors):
        a = np.asarray(tensors[name])
        code = _CODE_OF.get(a.dtype.name)
        if code is None:
            raise TypeError(f"safetensors: tensor {name!r} has unsupported dtype {a.dtype}")
        raw = np.ascontiguousarray(a, dtype=_little_endian(code)).reshape(-1)
        header[name] = {"dtype": code, "shape": list(a.shape),
                        "data_offsets": [offset, offset + raw.nbytes]}
        crcs[name] = crc32c(raw)
        chunks.append(raw)
        offset += raw.nbytes
    meta = {str(k): str(v) for k, v in (metadata or {}).items()}
    meta[TENSOR_CRCS] = json.dumps(crcs, separators=(",", ":"))
    header["__metadata__"] = meta
    header_crc = _header_crc(header)
    meta[HEADER_CRC] = str(header_crc)
    head = json.dumps(header, separators=(",", ":")).encode()
    head += b" " * (-len(head) % 8)   # the format aligns the data section to 8 bytes
    return [len(head).to_bytes(8, "little") + head] + chunks, header_crc


def write(path: str, tensors: dict, metadata: dict | None = None) -> int:
    """Write the file atomically; returns its header's CRC32C (which covers the tensors')."""
    chunks, header_crc = encode(tensors, metadata)
    safe_files.atomic_write(path, chunks)
    return header_crc


def _bad(where, why):
    return DataLossError(None, None, f"{where} is not a valid safetensors file: {why}")


def _is_int(x) -> bool:
    return type(x) is int


def _layout(header: dict, where: str) -> list:
    """[(name, dtype, shape, begin, end)] sorted by offset, checked to tile the data section."""
    layout = []
    for name, entry in header.items():
        if not isinstance(entry, dict) or set(entry) != _ENTRY_FIELDS:
            raise _bad(where, f"tensor {name!r} has a malformed entry {entry!r}")
        code, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
        if not isinstance(code, str) or code not in _CODES:
            raise _bad(where, f"tensor {name!r} has an unknown dtype {code!r}")
        if not isinstance(shape, list) or not all(_is_int(d) and d >= 0 for d in shape):
            raise _bad(where, f"tensor {name!r} has a malformed shape {shape!r} (dimensions "
                              f"must be non-negative integers)")
        if not isinstance(offsets, list) or len(offsets) != 2 or \
                not all(_is_int(o) and o >= 0 for o in offsets):
            raise _bad(where, f"tensor {name!r} has malformed data_offsets {offsets!r}")
        dtype = _little_endian(code)
        count = 1
        for d in shape:    # Python ints: no wrap-around however large the shape
            count *= d
        begin, end = offsets
        if end - begin != count * dtype.itemsize:
            raise _bad(where, f"tensor {name!r} ({code}{shape}) does not match its byte range "
                              f"{begin}:{end}")
        layout.append((name, dtype, tuple(shape), begin, end))
    layout.sort(key=lambda t: (t[3], t[4]))
    expected = 0
    for name, _, _, begin, end in layout:
        if begin != expected:
            raise _bad(where, f"tensor {name!r} starts at byte {begin} of the data section; "
                              f"the tensors before it end at {expected} (ranges must be "
                              f"contiguous and may not overlap)")
        expected = end
    return layout


def _tensor_crcs(metadata: dict, layout, where: str) -> dict | None:
    if TENSOR_CRCS not in metadata:
        return None
    crcs = safe_files.loads_json(metadata[TENSOR_CRCS].encode(), f"{where} (checksums)")
    names = {t[0] for t in layout}
    if not isinstance(crcs, dict) or set(crcs) != names or \
            not all(_is_int(c) for c in crcs.values()):
        raise _bad(where, "its checksum table does not list exactly its tensors")
    return crcs


def read(path: str) -> tuple[dict, dict]:
    """({name: ndarray}, metadata) of a safetensors file; DataLossError naming the file (and
    the tensor) if it is malformed or damaged."""
    with safe_files.open_regular(path, _MAX_FILE, "safetensors file") as (f, size):
        if size < 8:
            raise _bad(path, "shorter than its 8-byte header length")
        n = int.from_bytes(f.read(8), "little")
        if n > min(_MAX_HEADER, size - 8):
            raise _bad(path, f"header length {n} exceeds the file")
        try:
            header = safe_files.loads_json(f.read(n), "its header")
        except DataLossError as e:
            raise _bad(path, e.message) from None
        if not isinstance(header, dict):
            raise _bad(path, "header is not a JSON object")
        metadata = header.pop("__metadata__", None) or {}
        if not isinstance(metadata, dict) or not all(isinstance(v, str)
                                                     for v in metadata.values()):
            raise _bad(path, "__metadata__ must map strings to strings")
        if (HEADER_CRC in metadata) != (TENSOR_CRCS in metadata):
            raise DataLossError(None, None, f"{path}: half of its checksums are missing (the "
                                            f"file is corrupted)")
        if HEADER_CRC in metadata and \
                metadata[HEADER_CRC] != str(_header_crc({**header, "__metadata__": metadata})):
            raise DataLossError(None, None, f"{path}: checksum mismatch in the header "
                                            f"(the file is corrupted)")
        layout = _layout(header, path)
        total = layout[-1][4] if layout else 0
        if 8 + n + total != size:
            raise _bad(path, f"the header describes {8 + n + total} bytes, the file has {size}"
                             f" ({'trailing bytes' if size > 8 + n + total else 'truncated'})")
        crcs = _tensor_crcs(metadata, layout, path)
        tensors = {}
        for name, dtype, shape, begin, end in layout:
            flat = np.empty(end - begin, np.uint8)
            if f.readinto(memoryview(flat)) != end - begin:
                raise _bad(path, f"tensor {name!r} is truncated")
            if crcs is not None and crc32c(flat) != crcs[name]:
                raise DataLossError(None, None, f"{path}: checksum mismatch for tensor {name} "
                                                f"(the file is corrupted)")
            tensors[name] = flat.view(dtype).reshape(shape).astype(
                dtype.newbyteorder("="), copy=False)
    return tensors, metadata
