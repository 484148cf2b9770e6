"""TF's `tf.lookup`: key -> value tables, and the vocabulary table over one.

A `StaticHashTable` holds its entries as constants sorted by key (string keys by their 64-bit
FarmHash fingerprint), so a lookup is a `searchsorted`, a `gather` and an equality check that
makes a hash collision with a missing key harmless: it runs eagerly, in the graph executor and,
for numeric keys, under XLA. A `MutableHashTable` is host state (a Python dict) that changes
between calls, so it runs eagerly only.
"""
from __future__ import annotations

import enum

import numpy as np

from ...ir import dtypes as D
from ...ir.errors import FailedPreconditionError, InvalidArgumentError
from ..eager.dispatch import apply, convert_to_tensor
from ..export import tf_export
from ..function import func_graph
from ..state.resource import TrackableResource
from . import array as A
from . import math as M
from .counting import searchsorted
from .strings import as_string

# to_hash_bucket_fast's bucket count that keeps (almost) the whole fingerprint
_FINGERPRINT_BUCKETS = 2 ** 63 - 1


def _keys_of(keys, key_dtype):
    """`keys` as a tensor of `key_dtype`, refused with TF's text when a tensor of another."""
    if hasattr(keys, "dtype") and D.as_dtype(keys.dtype) is not key_dtype:
        raise TypeError(f"Dtype of argument `keys` must be {key_dtype}, received: "
                        f"{D.as_dtype(keys.dtype)}")
    return convert_to_tensor(keys, dtype=key_dtype)


def _order_keys(keys):
    """What a table sorts its keys by: the key, or a string key's fingerprint."""
    if keys.dtype is D.string:
        return apply("string_to_hash_bucket_fast", (keys,),
                     {"num_buckets": _FINGERPRINT_BUCKETS})
    return keys


@tf_export("lookup.KeyValueTensorInitializer")
class KeyValueTensorInitializer:
    """A table's entries from a tensor of keys and one of values."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        self._keys = convert_to_tensor(keys, dtype=key_dtype)
        self._values = convert_to_tensor(values, dtype=value_dtype)
        self._key_dtype, self._value_dtype = self._keys.dtype, self._values.dtype

    @property
    def key_dtype(self):
        return self._key_dtype

    @property
    def value_dtype(self):
        return self._value_dtype

    def initialize(self, table):
        table._import(self._keys, self._values)


class TextFileIndex(enum.IntEnum):
    """Which part of a vocabulary file's line a key or value is."""
    WHOLE_LINE = -2
    LINE_NUMBER = -1


tf_export("lookup.TextFileIndex")(TextFileIndex)


@tf_export("lookup.TextFileInitializer")
class TextFileInitializer:
    """A table's entries from a text file: per line, the whole line, its number (plus
    `value_index_offset` for values) or its `delimiter`-separated column `index`."""

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index,
                 vocab_size=None, delimiter="\t", name=None, value_index_offset=0):
        self._filename = filename.decode() if isinstance(filename, bytes) else \
            filename.numpy().decode() if hasattr(filename, "numpy") else str(filename)
        self._key_dtype, self._value_dtype = D.as_dtype(key_dtype), D.as_dtype(value_dtype)
        self._key_index, self._value_index = int(key_index), int(value_index)
        self._vocab_size, self._delimiter = vocab_size, delimiter
        self._offset = int(value_index_offset)

    key_dtype = property(lambda self: self._key_dtype)
    value_dtype = property(lambda self: self._value_dtype)

    def _column(self, lines, index, dtype, offset=0):
        if index == TextFileIndex.LINE_NUMBER:
            column = [n + offset for n in range(len(lines))]
        elif index == TextFileIndex.WHOLE_LINE:
            column = lines
        else:
            column = [line.split(self._delimiter)[index] for line in lines]
        if dtype is D.string:
            return convert_to_tensor(np.array(column, dtype=object), dtype=D.string)
        return convert_to_tensor(np.array([dtype.as_numpy_dtype(v) for v in column]),
                                 dtype=dtype)

    def initialize(self, table):
        with open(self._filename, encoding="utf-8") as f:
            lines = f.read().splitlines()
        if self._vocab_size is not None:
            lines = lines[:int(self._vocab_size)]
        table._import(self._column(lines, self._key_index, self._key_dtype),
                      self._column(lines, self._value_index, self._value_dtype, self._offset))


@tf_export("lookup.StaticHashTable")
class StaticHashTable(TrackableResource):
    """An immutable table filled once by `initializer`; keys not in it give `default_value`."""

    def __init__(self, initializer, default_value, name=None,
                 experimental_is_anonymous=False):
        super().__init__()
        self._key_dtype = D.as_dtype(initializer.key_dtype)
        self._value_dtype = D.as_dtype(initializer.value_dtype)
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._keys = convert_to_tensor(np.array([], dtype=object if self._key_dtype is
                                                D.string else self._key_dtype.as_numpy_dtype),
                                       dtype=self._key_dtype)
        self._values = A.zeros([0], self._value_dtype)
        self._order = _order_keys(self._keys)
        with func_graph.init_scope():
            initializer.initialize(self)

    def _create_resource(self):
        return self

    def _import(self, keys, values):
        """Fill the table: TF's checks, then the entries sorted by their order keys."""
        keys, values = convert_to_tensor(keys), convert_to_tensor(values)
        if keys.shape.as_list() != values.shape.as_list()[:keys.shape.rank]:
            raise InvalidArgumentError(None, "LookupTableImportV2",
                                       f"Expected shape {keys.shape.as_list()} for value, got "
                                       f"{values.shape.as_list()}")
        k, v = keys.numpy().reshape(-1), values.numpy().reshape(-1)
        if not k.size:
            raise InvalidArgumentError(None, "LookupTableImportV2",
                                       "keys and values cannot be empty tensors.")
        seen = {}
        for key, value in zip(k.tolist(), v.tolist()):
            if seen.setdefault(key, value) != value:
                shown = key.decode() if isinstance(key, bytes) else key
                raise FailedPreconditionError(
                    None, "LookupTableImportV2", f"HashTable has different value for same "
                    f"key. Key {shown} has {seen[key]} and trying to add value {value}")
        unique_keys = convert_to_tensor(np.array(list(seen), dtype=k.dtype),
                                        dtype=self._key_dtype)
        order = _order_keys(unique_keys).numpy()
        if len(set(order.tolist())) != len(order):
            raise NotImplementedError("StaticHashTable: two keys share a 64-bit fingerprint")
        rank = np.argsort(order, kind="stable")
        self._order = convert_to_tensor(order[rank])
        self._keys = A.gather(unique_keys, rank)
        self._values = convert_to_tensor(np.array(list(seen.values()), dtype=v.dtype)[rank],
                                         dtype=self._value_dtype)

    key_dtype = property(lambda self: self._key_dtype)
    value_dtype = property(lambda self: self._value_dtype)
    default_value = property(lambda self: self._default_value)

    def size(self, name=None):
        return convert_to_tensor(np.int64(self._keys.shape[0]))

    def export(self, name=None):
        """(keys, values) of every entry."""
        return self._keys, self._values

    def lookup(self, keys, name=None):
        """The value of each key (`default_value` for a missing one); a SparseTensor's or
        RaggedTensor's values are looked up in place."""
        if getattr(keys, "_tf_composite", False) and hasattr(keys, "with_values"):
            return keys.with_values(self.lookup(keys.values))
        if getattr(keys, "_tf_composite", False) and hasattr(keys, "with_flat_values"):
            return keys.with_flat_values(self.lookup(keys.flat_values))
        wanted = _keys_of(keys, self._key_dtype)
        flat = A.reshape(wanted, [-1])
        count = self._keys.shape[0]
        if count == 0:
            return A.fill(A.shape(wanted), self._default_value)
        at = M.minimum(searchsorted(self._order, _order_keys(flat)), count - 1)
        hit = M.equal(A.gather(self._keys, at), flat)
        picked = M.where(hit, A.gather(self._values, at), self._default_value)
        return A.reshape(picked, A.shape(wanted))

    def __getitem__(self, keys):
        return self.lookup(keys)


@tf_export("lookup.experimental.MutableHashTable")
class MutableHashTable(TrackableResource):
    """A table whose entries change by `insert` and `remove`: host state, so it runs eagerly
    (inside a `tf.function` it raises NotImplementedError)."""

    def __init__(self, key_dtype, value_dtype, default_value, name="MutableHashTable",
                 checkpoint=True, experimental_is_anonymous=False):
        super().__init__()
        self._key_dtype, self._value_dtype = D.as_dtype(key_dtype), D.as_dtype(value_dtype)
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._entries: dict = {}

    def _create_resource(self):
        return self

    key_dtype = property(lambda self: self._key_dtype)
    value_dtype = property(lambda self: self._value_dtype)
    default_value = property(lambda self: self._default_value)

    def _host_keys(self, keys, what):
        if func_graph.current() is not None:
            raise NotImplementedError(f"MutableHashTable.{what}: flowjit's mutable tables are "
                                      f"host state and run eagerly only")
        return _keys_of(keys, self._key_dtype).numpy()

    def insert(self, keys, values, name=None):
        k = self._host_keys(keys, "insert")
        v = convert_to_tensor(values, dtype=self._value_dtype).numpy()
        if list(k.shape) != list(v.shape)[:k.ndim]:
            raise InvalidArgumentError(None, "LookupTableInsertV2",
                                       f"Expected shape {list(k.shape)} for value, got "
                                       f"{list(v.shape)}")
        rows = v.reshape((k.size,) + v.shape[k.ndim:])
        for key, row in zip(k.reshape(-1).tolist(), rows):
            self._entries[key] = row

    def remove(self, keys, name=None):
        for key in self._host_keys(keys, "remove").reshape(-1).tolist():
            self._entries.pop(key, None)

    def lookup(self, keys, dynamic_default_values=None, name=None):
        k = self._host_keys(keys, "lookup")
        default = self._default_value.numpy()
        rows = [self._entries.get(key, default) for key in k.reshape(-1).tolist()]
        out = np.array(rows, dtype=self._value_dtype.as_numpy_dtype).reshape(
            k.shape + default.shape)
        return convert_to_tensor(out, dtype=self._value_dtype)

    def size(self, name=None):
        return convert_to_tensor(np.int64(len(self._entries)))

    def export(self, name=None):
        """(keys, values) of every entry, in insertion order."""
        keys = list(self._entries)
        values = np.array([self._entries[k] for k in keys],
                          dtype=self._value_dtype.as_numpy_dtype)
        key_array = np.array(keys, dtype=object if self._key_dtype is D.string else
                             self._key_dtype.as_numpy_dtype)
        shape = (0,) + tuple(self._default_value.shape.as_list()) if not keys else values.shape
        return (convert_to_tensor(key_array, dtype=self._key_dtype),
                convert_to_tensor(values.reshape(shape), dtype=self._value_dtype))


@tf_export("lookup.StaticVocabularyTable")
class StaticVocabularyTable(TrackableResource):
    """A vocabulary table of int64 ids: a key in `initializer`'s table gets its value, any
    other key one of `num_oov_buckets` ids after the vocabulary, by the fingerprint of its
    string (TF's `to_hash_bucket_fast` of `as_string`)."""

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None,
                 experimental_is_anonymous=False):
        super().__init__()
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        if initializer is None:
            key_dtype, self._table = D.as_dtype(lookup_key_dtype or D.string), None
        else:
            key_dtype = D.as_dtype(lookup_key_dtype or initializer.key_dtype)
            table_dtype = D.as_dtype(initializer.key_dtype)
            if table_dtype not in (D.int64, D.string):
                raise TypeError(f"Invalid `key_dtype`, expected one of ({D.int64}, "
                                f"{D.string}), but got {table_dtype}.")
            if table_dtype.is_integer != key_dtype.is_integer:
                raise TypeError(f"Invalid `key_dtype`, expected "
                                f"{'integer' if key_dtype.is_integer else 'non-integer'} but "
                                f"got {table_dtype}.")
            if D.as_dtype(initializer.value_dtype) is not D.int64:
                raise TypeError(f"Invalid `value_dtype`, expected {D.int64} but got "
                                f"{D.as_dtype(initializer.value_dtype)}.")
            self._table = StaticHashTable(initializer, -1)
        if not key_dtype.is_integer and key_dtype is not D.string:
            raise TypeError(f"Invalid `key_dtype`, expected integer or string, got "
                            f"{key_dtype}")
        self._key_dtype, self._buckets = key_dtype, int(num_oov_buckets)

    def _create_resource(self):
        return self

    key_dtype = property(lambda self: self._key_dtype)
    value_dtype = property(lambda self: D.int64)

    def size(self, name=None):
        known = 0 if self._table is None else int(self._table.size())
        return convert_to_tensor(np.int64(known + self._buckets))

    def lookup(self, keys, name=None):
        if getattr(keys, "_tf_composite", False) and hasattr(keys, "with_values"):
            return keys.with_values(self.lookup(keys.values))
        values = _keys_of(keys, self._key_dtype)
        if self._table is not None and self._table.key_dtype is D.int64:
            values = M.cast(values, D.int64)
        text = values if values.dtype is D.string else as_string(values)
        buckets = apply("string_to_hash_bucket_fast", (text,), {"num_buckets": self._buckets})
        if self._table is None:
            return buckets
        ids = self._table.lookup(values)
        buckets = M.add(buckets, self._table.size())
        return M.where(M.not_equal(ids, self._table.default_value), ids, buckets)
