"""`Dataset.cache(filename)`'s file: safetensors (never pickle), one file per dataset.

Component `i` of every element is stored as two tensors: `data_i`, the elements' values
raveled and concatenated, and `shape_i`, one row of dims per element (strings: `data_i` is
their bytes, `len_i` each string's length). Reading checks the dtypes against the dataset's
element spec, so a stale cache of another pipeline fails loudly.
"""
from __future__ import annotations

import json
import os

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ...runtime import safetensors

_SUFFIX = ".flowjit-cache.safetensors"
_FORMAT = "flowjit.data.cache/1"


def _path(filename):
    return filename + _SUFFIX


def write_cache(filename, flat_specs, rows):
    tensors = {}
    for i, spec in enumerate(flat_specs):
        parts = [r[i] for r in rows]
        rank = np.ndim(parts[0]) if parts else 0
        tensors[f"shape_{i}"] = np.array([np.shape(p) for p in parts], np.int64).reshape(
            len(parts), rank)
        if spec.dtype is D.string:
            strings = [s if isinstance(s, bytes) else str(s).encode()
                       for p in parts for s in np.asarray(p, object).reshape(-1)]
            tensors[f"len_{i}"] = np.array([len(s) for s in strings], np.int64)
            tensors[f"data_{i}"] = np.frombuffer(b"".join(strings), np.uint8)
        else:
            tensors[f"data_{i}"] = np.concatenate(
                [np.asarray(p).reshape(-1) for p in parts]) if parts else np.zeros(
                    0, spec.dtype.np)
    meta = {"format": _FORMAT, "dtypes": json.dumps([s.dtype.name for s in flat_specs]),
            "count": str(len(rows))}
    folder = os.path.dirname(_path(filename))
    if folder:
        os.makedirs(folder, exist_ok=True)
    safetensors.write(_path(filename), tensors, meta)


def read_cache(filename, flat_specs):
    """The cached rows, or None when no cache file exists yet."""
    if not os.path.isfile(_path(filename)):
        return None
    tensors, meta = safetensors.read(_path(filename))
    dtypes = [s.dtype.name for s in flat_specs]
    if meta.get("format") != _FORMAT or json.loads(meta.get("dtypes", "[]")) != dtypes:
        raise errors.DataLossError(None, None, f"{_path(filename)} is not a cache of a "
                                               f"dataset with dtypes {dtypes}")
    count = int(meta["count"])
    columns = []
    for i, spec in enumerate(flat_specs):
        shapes, data = tensors[f"shape_{i}"], tensors[f"data_{i}"]
        sizes = np.prod(shapes, axis=1, dtype=np.int64) if shapes.shape[1] else \
            np.ones(count, np.int64)
        if spec.dtype is D.string:
            lengths = tensors[f"len_{i}"]
            ends = np.cumsum(lengths)
            raw = data.tobytes()
            strings = np.array([raw[e - n:e] for n, e in zip(lengths, ends)] or [], object)
            data = strings
        offsets = np.concatenate([[0], np.cumsum(sizes)])
        columns.append([data[offsets[k]:offsets[k + 1]].reshape(shapes[k]).astype(
            object if spec.dtype is D.string else spec.dtype.np, copy=False)
            for k in range(count)])
    return [tuple(col[k] for col in columns) for k in range(count)]
