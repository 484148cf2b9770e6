"""Files for input pipelines: `tf.io.read_file` / `tf.io.write_file`, and the opening of a
possibly compressed file that TextLineDataset and CsvDataset share.

The file ops are host functions (`numpy_function`): they run eagerly, inside a traced
dataset function and on the graph executor, as TF's ReadFile/WriteFile kernels do on the CPU.
"""
from __future__ import annotations

import gzip
import io
import os
import zlib

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ..export import tf_export


def _name(value) -> str:
    value = value.item() if isinstance(value, np.ndarray) else value
    return value.decode() if isinstance(value, bytes) else str(value)


def _not_found(name):
    return errors.NotFoundError(None, None, f"{name}; No such file or directory")


@tf_export("io.read_file")
def read_file(filename, name=None):
    """The whole file as one string scalar."""
    from ..ops.script import numpy_function

    def read(path):
        path = _name(path)
        if not os.path.isfile(path):
            raise _not_found(path)
        with open(path, "rb") as f:
            return np.array(f.read(), object)

    out = numpy_function(read, [filename], D.string)
    return _scalar(out)


@tf_export("io.write_file")
def write_file(filename, contents, name=None):
    """Write the string scalar `contents` to `filename` (its folder must exist)."""
    from ..ops.script import numpy_function

    def write(path, data):
        path = _name(path)
        data = data.item() if isinstance(data, np.ndarray) else data
        if not os.path.isdir(os.path.dirname(path) or "."):
            raise _not_found(path)
        with open(path, "wb") as f:
            f.write(data if isinstance(data, bytes) else str(data).encode())
        return np.bool_(True)

    numpy_function(write, [filename, contents], D.bool_)


def _scalar(t):
    from ..ops.checks import ensure_shape
    return ensure_shape(t, [])


# compression_type -> opener of a binary stream
_COMPRESSION = {
    "": lambda f: f,
    "GZIP": lambda f: gzip.GzipFile(fileobj=f),
    "ZLIB": lambda f: io.BytesIO(zlib.decompress(f.read())),
}


def check_compression(compression_type) -> str:
    kind = "" if compression_type is None else _name(
        compression_type.numpy() if hasattr(compression_type, "numpy") else compression_type)
    if kind not in _COMPRESSION:
        raise errors.InvalidArgumentError(None, None,
                                          f"Unsupported compression_type: {kind}.")
    return kind


def open_file(name: str, compression: str):
    """A binary stream of the file's (uncompressed) bytes; TF's NotFoundError if missing."""
    if not os.path.exists(name):
        raise _not_found(name)
    return _COMPRESSION[compression](open(name, "rb"))
