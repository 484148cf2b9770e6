"""Kernel of `fingerprint`: FarmHash's Fingerprint64 of each row's bytes (text.py's, which
`strings.to_hash_bucket_fast` uses too). A row of numbers is its elements' bytes in memory
order; a row of one string is the string's bytes; a row of several strings is the
concatenation of their fingerprints (TF's rule, which keeps ["ab", "c"] apart from
["a", "bc"])."""
from __future__ import annotations

import numpy as np

from . import kernel
from .text import fingerprint64


def _bytes_of(value: int) -> bytes:
    return value.to_bytes(8, "little")


def _row_bytes(row: np.ndarray) -> bytes:
    if row.dtype != object:
        return np.ascontiguousarray(row).tobytes()
    strings = [s if isinstance(s, bytes) else str(s).encode() for s in row]
    if len(strings) == 1:
        return strings[0]
    return b"".join(_bytes_of(fingerprint64(s)) for s in strings)


@kernel("fingerprint")
def fingerprint(data, method):
    data = np.asarray(data)
    rows = data.reshape(data.shape[0], int(np.prod(data.shape[1:], dtype=np.int64)))
    out = np.empty((rows.shape[0], 8), np.uint8)
    for i, row in enumerate(rows):
        out[i] = np.frombuffer(_bytes_of(fingerprint64(_row_bytes(row))), np.uint8)
    return out
