"""TFRecord files: `tf.io.TFRecordWriter`, `tf.io.TFRecordOptions` and `tf.data.TFRecordDataset`.

A file is a sequence of records, each
    uint64 length (little-endian) | uint32 masked CRC-32C of the length | data | masked CRC-32C
of the data, optionally inside one GZIP or ZLIB stream. Reading is a load path: a record's
claimed length is never allocated, the data is read in bounded chunks and a file that ends
first is TF's DataLossError ("truncated record"); a wrong checksum is TF's DataLossError
("corrupted record"). As TF's reader, a file that ends inside a record's 12-byte header ends
the records silently.
"""
from __future__ import annotations

import os
import re
import struct
import zlib

import google_crc32c
import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ..export import tf_export
from ..function.specs import TensorSpec
from . import structure
from .dataset import AUTOTUNE, Dataset, file_names

_HEADER = 12           # the length and its checksum
_CHUNK = 1 << 20       # the most read at once: a corrupt length never becomes one allocation
_COMPRESSIONS = ("", "ZLIB", "GZIP")
_WBITS = {"ZLIB": zlib.MAX_WBITS, "GZIP": 16 + zlib.MAX_WBITS}


def masked_crc(data: bytes) -> int:
    """TF's masked CRC-32C: rotated right by 15 bits plus a constant, so a checksum of bytes
    that hold checksums is not trivially related to them."""
    crc = google_crc32c.value(data)
    return ((crc >> 15 | crc << 17) + 0xA282EAD8) & 0xFFFFFFFF


def encode_record(data: bytes) -> bytes:
    length = struct.pack("<Q", len(data))
    return (length + struct.pack("<I", masked_crc(length)) + data
            + struct.pack("<I", masked_crc(data)))


def _read_exactly(f, size: int, offset: int) -> bytes:
    parts, left = [], size
    while left:
        part = f.read(min(left, _CHUNK))
        if not part:   # TF's text names how its stream ended
            how = "EOF reached" if isinstance(f, _Inflated) else \
                "Read less bytes than requested"
            raise errors.DataLossError(None, None,
                                       f"truncated record at {offset}' failed with {how}")
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def read_records(f):
    """The records of a binary stream of a TFRecord file's (uncompressed) bytes."""
    offset = 0
    while True:
        header = f.read(_HEADER)
        if len(header) < _HEADER:
            return
        length_bytes, crc = header[:8], struct.unpack("<I", header[8:])[0]
        if masked_crc(length_bytes) != crc:
            raise errors.DataLossError(None, None, f"corrupted record at {offset}"
                                       + (" (Is this even a TFRecord file?)" if offset == 0
                                          else ""))
        (length,) = struct.unpack("<Q", length_bytes)
        body = _read_exactly(f, length + 4, offset)
        data = body[:length]
        if masked_crc(data) != struct.unpack("<I", body[length:])[0]:
            raise errors.DataLossError(None, None, f"corrupted record at {offset + _HEADER}")
        yield data
        offset += _HEADER + length + 4


class _Inflated:
    """A read-only stream of a zlib/gzip stream's bytes, inflated as they are read (with
    `max_length`, so a small compressed file cannot expand into one large allocation). A
    stream cut short ends there; another gzip member may follow one that ended."""

    def __init__(self, f, wbits: int):
        self._f, self._wbits = f, wbits
        self._inflate = zlib.decompressobj(wbits)

    def read(self, size: int) -> bytes:
        out = bytearray()
        while len(out) < size:
            if self._inflate.eof:
                rest = self._inflate.unused_data or self._f.read(_CHUNK)
                if not rest:
                    break
                self._inflate = zlib.decompressobj(self._wbits)
                src = rest
            else:
                src = self._inflate.unconsumed_tail or self._f.read(_CHUNK)
            if not src:
                break
            try:
                out += self._inflate.decompress(src, size - len(out))
            except zlib.error as e:
                raise errors.DataLossError(None, None, _inflate_message(str(e))) from None
        return bytes(out)

    def close(self):
        self._f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _inflate_message(text: str) -> str:
    """zlib's error as TF's reader words it."""
    found = re.match(r"Error (-?\d+) while decompressing data: (.*)", text)
    return f"inflate() failed with error {found[1]}: {found[2]}" if found else text


def _open(name: str, compression: str):
    if not os.path.exists(name):
        raise errors.NotFoundError(None, None, f"{name}; No such file or directory")
    f = open(name, "rb")
    return _Inflated(f, _WBITS[compression]) if compression in _WBITS else f


def _compression_of(options) -> str:
    if isinstance(options, TFRecordOptions):
        options = options.compression_type
    kind = "" if options is None else options
    if kind not in _COMPRESSIONS:
        raise ValueError(f'Not a valid compression_type: "{kind}"')
    return kind


@tf_export("io.TFRecordOptions")
class TFRecordOptions:
    """The options of a TFRecord writer: its compression (None, "", "ZLIB" or "GZIP") and
    zlib's settings (`compression_level`, `window_bits`, `mem_level`, `compression_strategy`
    are used; the buffer sizes and flush mode are recorded)."""

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None):
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @staticmethod
    def get_compression_type_string(options):
        """"", "ZLIB" or "GZIP" for options, a compression type string or None."""
        return _compression_of(options)


@tf_export("io.TFRecordWriter")
class TFRecordWriter:
    """Writes records to a TFRecord file (`write`, `flush`, `close`; a context manager)."""

    def __init__(self, path, options=None):
        path = os.fspath(path)
        compression = _compression_of(options)
        if not os.path.isdir(os.path.dirname(path) or "."):
            raise errors.NotFoundError(None, None, f"{path}; No such file or directory")
        self._file = open(path, "wb")
        self._deflate = None
        if compression:
            opts = options if isinstance(options, TFRecordOptions) else TFRecordOptions()
            level = -1 if opts.compression_level is None else opts.compression_level
            bits = _WBITS[compression] if opts.window_bits is None else (
                opts.window_bits + (16 if compression == "GZIP" else 0))
            self._deflate = zlib.compressobj(
                level, zlib.DEFLATED, bits,
                8 if opts.mem_level is None else opts.mem_level,
                0 if opts.compression_strategy is None else opts.compression_strategy)

    def _put(self, data: bytes):
        if self._file is None:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")
        self._file.write(self._deflate.compress(data) if self._deflate else data)

    def write(self, record):
        """Append one record (bytes, or a str written as UTF-8)."""
        if isinstance(record, str):
            record = record.encode()
        if not isinstance(record, (bytes, bytearray, memoryview)):
            raise TypeError(f"write(): incompatible function arguments: a record is bytes or "
                            f"str, got {type(record).__name__}")
        self._put(encode_record(bytes(record)))

    def flush(self):
        if self._file is None:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")
        if self._deflate:
            self._file.write(self._deflate.flush(zlib.Z_SYNC_FLUSH))
        self._file.flush()

    def close(self):
        if self._file is not None:
            if self._deflate:
                self._file.write(self._deflate.flush())
            self._file.close()
            self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@tf_export("data.TFRecordDataset")
class TFRecordDataset(Dataset):
    """The records of TFRecord files, file after file (scalar strings). `filenames` is a
    string, a list or tensor of them, or a dataset of them; `num_parallel_reads` interleaves
    that many files record by record, in a fixed order."""

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        # TF's reader reads an unknown compression type as an uncompressed file
        kind = "" if compression_type is None else structure.host(compression_type).numpy()
        self._compression = kind.decode() if isinstance(kind, bytes) else str(kind)
        self.element_spec = TensorSpec([], D.string)
        if isinstance(filenames, Dataset):
            self._files = None
            self._per_file = _files_dataset(filenames, self._compression, num_parallel_reads)
            return
        self._files = file_names(filenames, "The `filenames` argument must contain "
                                            "`tf.string` elements. Got `{!r}` elements.")
        self._per_file = (None if not num_parallel_reads or len(self._files) < 2 else
                          _files_dataset(Dataset.from_tensor_slices(self._files),
                                         self._compression, num_parallel_reads))

    def _components(self, ctx):
        if self._per_file is not None:
            yield from self._per_file._components(ctx)
            return
        for name in self._files:
            with _open(name, self._compression) as f:
                for record in read_records(f):
                    yield (np.array(record, object),)


def _files_dataset(files: Dataset, compression: str, parallel_reads):
    spec = files.element_spec
    if not isinstance(spec, TensorSpec) or spec.dtype is not D.string or spec.shape.rank != 0:
        raise TypeError(f"The `filenames` argument must contain `tf.string` elements. Got "
                        f"a dataset of `{spec!r}` elements.")

    def one_file(name):
        return TFRecordDataset(name, compression)
    if not parallel_reads:
        return files.flat_map(one_file)
    if parallel_reads == AUTOTUNE:   # as TF: the runtime's cycle
        return files.interleave(one_file, num_parallel_calls=AUTOTUNE)
    return files.interleave(one_file, cycle_length=parallel_reads, block_length=1)


@tf_export("data.experimental.TFRecordWriter")
class DatasetTFRecordWriter:
    """TF's deprecated `tf.data.experimental.TFRecordWriter`: writes a dataset of scalar
    strings to one TFRecord file."""

    def __init__(self, filename, compression_type=None):
        self._filename, self._compression = filename, compression_type

    def write(self, dataset):
        spec = dataset.element_spec
        if not (isinstance(spec, TensorSpec) and spec.dtype is D.string
                and spec.shape.rank == 0):
            shapes = spec.shape if isinstance(spec, TensorSpec) else spec
            types = str(spec.dtype) if isinstance(spec, TensorSpec) else spec
            raise TypeError(f"Invalid `dataset`. Expected a`dataset` that produces scalar "
                            f"`tf.string` elements, but got a dataset which produces elements "
                            f"with shapes {shapes} and types {types}.")
        with TFRecordWriter(self._filename, self._compression) as writer:
            for record in dataset:
                writer.write(record.numpy())
