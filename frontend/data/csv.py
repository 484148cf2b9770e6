"""`tf.data.experimental.CsvDataset` and `make_csv_dataset`: rows of CSV files as tuples of
scalars (RFC 4180 quoting through Python's csv module), with TF's defaults and errors."""
from __future__ import annotations

import collections
import csv
import io

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ..export import tf_export
from ..function.specs import TensorSpec
from . import structure
from .dataset import Dataset
from .files import check_compression, open_file

# dtype -> the parse of one field's text
_PARSE = {D.int32: int, D.int64: int, D.float32: float, D.float64: float,
          D.string: lambda text: text.encode()}


def _column(default):
    """(dtype, default array or None: a required column) of one record default."""
    if isinstance(default, D.DType) or (isinstance(default, type) and
                                        default in (int, float, str)):
        dtype = D.as_dtype({int: D.int32, float: D.float32, str: D.string}.get(default, default))
        return dtype, None
    t = structure.host(default)
    if t.dtype not in _PARSE:
        raise TypeError(f"Unsupported type {t.dtype.name} in record_defaults.")
    value = np.asarray(t.numpy(), object if t.dtype is D.string else t.dtype.np)
    return t.dtype, (None if value.size == 0 else value.reshape(-1)[0])


def _files(filenames) -> list[str]:
    names = structure.host(filenames)
    return [f.decode() if isinstance(f, bytes) else str(f)
            for f in np.asarray(names.numpy(), object).reshape(-1)]


@tf_export("data.experimental.CsvDataset")
class CsvDataset(Dataset):
    """The rows of CSV files, one scalar per selected column."""

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None,
                 header=False, field_delim=",", use_quote_delim=True, na_value="",
                 select_cols=None, exclude_cols=None, name=None):
        self._files = _files(filenames)
        self._compression = check_compression(compression_type)
        self._columns = [_column(d) for d in record_defaults]
        if select_cols is not None and exclude_cols is not None:
            raise errors.InvalidArgumentError(
                None, None, "Either select_cols or exclude_cols should be empty")
        self._select = None if select_cols is None else [int(c) for c in select_cols]
        if self._select is not None:
            if self._select != sorted(set(self._select)):
                raise errors.InvalidArgumentError(
                    None, None, "select_cols is not monotonically increasing at index 1")
            if len(self._select) != len(self._columns):
                raise errors.InvalidArgumentError(
                    None, None, "Expect 1 dtype for each selected column, got "
                                f"{len(self._columns)} dtypes and {len(self._select)} columns")
        self._exclude = set() if exclude_cols is None else {int(c) for c in exclude_cols}
        self._header = bool(header)
        self._delim, self._quote = field_delim, bool(use_quote_delim)
        self._na = na_value
        self.element_spec = tuple(TensorSpec([], dtype) for dtype, _ in self._columns)

    def _fields(self, row):
        if self._select is not None:
            return [row[i] if i < len(row) else "" for i in self._select]
        return [v for i, v in enumerate(row) if i not in self._exclude]

    def _convert(self, fields, record):
        if len(fields) != len(self._columns):
            raise errors.InvalidArgumentError(
                None, None, f"Expect {len(self._columns)} fields but have {len(fields)} in "
                            f"record {record}")
        out = []
        for i, ((dtype, default), text) in enumerate(zip(self._columns, fields)):
            if text == "" or text == self._na:
                if default is None:
                    raise errors.InvalidArgumentError(
                        None, None, f"Field {i} is required but missing in record!")
                out.append(np.array(default, object if dtype is D.string else dtype.np))
                continue
            try:
                value = _PARSE[dtype](text)
            except ValueError:
                raise errors.InvalidArgumentError(
                    None, None, f"Field {i} in record is not a valid {dtype.name}: "
                                f"{text}") from None
            out.append(np.array(value, object if dtype is D.string else dtype.np))
        return tuple(out)

    def _components(self, ctx):
        for name in self._files:
            with open_file(name, self._compression) as raw:
                text = io.TextIOWrapper(raw, encoding="utf-8", newline="")
                rows = csv.reader(text, delimiter=self._delim,
                                  quoting=csv.QUOTE_MINIMAL if self._quote else csv.QUOTE_NONE)
                if self._header:
                    next(rows, None)
                for record, row in enumerate(rows):
                    if row:
                        yield self._convert(self._fields(row), record)


# --- make_csv_dataset ----------------------------------------------------------------------------
def _inferred_type(values) -> D.DType:
    """TF's inference over a column's first rows: int32, int64, float32, else string."""
    kind = D.int32
    for text in values:
        if text == "":
            continue
        try:
            n = int(text)
            if kind is D.int32 and not -2**31 <= n < 2**31:
                kind = D.int64
            continue
        except ValueError:
            pass
        try:
            float(text)
            if kind in (D.int32, D.int64):
                kind = D.float32
        except ValueError:
            return D.string
    return kind


def _first_rows(path, delim, quote, compression, n):
    with open_file(path, compression) as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8", newline="")
        rows = csv.reader(text, delimiter=delim,
                          quoting=csv.QUOTE_MINIMAL if quote else csv.QUOTE_NONE)
        return [row for _, row in zip(range(n), rows)]


@tf_export("data.experimental.make_csv_dataset")
def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None,
                     label_name=None, select_columns=None, field_delim=",",
                     use_quote_delim=True, na_value="", header=True, num_epochs=None,
                     shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False,
                     num_rows_for_inference=100, compression_type=None, ignore_errors=False,
                     encoding="utf-8"):
    """TF's reader of CSV files into batches of (OrderedDict of features, label)."""
    files = Dataset.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    paths = [p.decode() for p in files.as_numpy_iterator()]
    compression = check_compression(compression_type)
    first = _first_rows(paths[0], field_delim, use_quote_delim, compression,
                        num_rows_for_inference + 1)
    if column_names is None:
        if not header:
            raise ValueError("Expected file to have header, or column_names to be provided.")
        column_names = first[0]
    column_names = list(column_names)
    if len(set(column_names)) != len(column_names):
        raise ValueError("Cannot have duplicate column names.")
    if select_columns is None:
        selected = list(range(len(column_names)))
    else:
        selected = sorted(column_names.index(c) if isinstance(c, str) else int(c)
                          for c in select_columns)
    names = [column_names[i] for i in selected]
    if label_name is not None and label_name not in names:
        raise ValueError(f"`label_name` provided must be one of the columns: {names}. "
                         f"Received: {label_name}.")
    if column_defaults is None:
        body = first[1:] if header else first
        column_defaults = [_inferred_type([row[i] if i < len(row) else "" for row in body])
                           for i in selected]
        # an inferred column may be empty: the type's zero (TF: a default of that dtype)
        column_defaults = [np.array(b"" if t is D.string else 0, object
                                    if t is D.string else t.np) for t in column_defaults]

    def rows_of(path):
        return CsvDataset(path, column_defaults, compression_type=compression_type,
                          header=header, field_delim=field_delim,
                          use_quote_delim=use_quote_delim, na_value=na_value,
                          select_cols=selected)

    dataset = files.interleave(rows_of, cycle_length=num_parallel_reads or 1)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=num_epochs is None)

    def as_features(*columns):
        features = collections.OrderedDict(zip(names, columns))
        if label_name is None:
            return features
        label = features.pop(label_name)
        return features, label

    return dataset.map(as_features).prefetch(prefetch_buffer_size or -1)
