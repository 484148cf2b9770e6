"""tf.lookup tables and tf.compat's string helpers against TF 2.21's recorded values and
texts: static tables in every mode (XLA for numeric keys; TF's XLA has no strings), composite
keys, file initializers, and the eager mutable table."""
import re

import numpy as np
import pytest

import flowjit as tf

MODES = ["eager", "graph"]


def _run(mode, fn, *args):
    return (fn if mode == "eager" else tf.function(fn, jit_compile=mode == "xla"))(*args)


def _letters():
    return tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant(["a", "b", "c"]), tf.constant([7, 8, 9], tf.int64)), -1)


@pytest.mark.parametrize("mode", MODES)
def test_static_table_of_strings(mode):
    table = _letters()
    got = _run(mode, table.lookup, tf.constant([["a", "z"], ["c", "b"]]))
    assert got.dtype == tf.int64 and got.numpy().tolist() == [[7, -1], [9, 8]]
    assert _run(mode, table.lookup, tf.constant(["", "ab"])).numpy().tolist() == [-1, -1]
    assert int(table.size()) == 3
    keys, values = table.export()
    assert sorted(zip(keys.numpy().tolist(), values.numpy().tolist())) == \
        [(b"a", 7), (b"b", 8), (b"c", 9)]
    assert table.key_dtype == tf.string and table.value_dtype == tf.int64
    assert int(table.default_value) == -1


@pytest.mark.parametrize("mode", MODES + ["xla"])
def test_static_table_of_integers(mode):
    table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant([5, 1, 3], tf.int64), tf.constant([0.5, 0.1, 0.3])), -1.0)
    got = _run(mode, table.lookup, tf.constant([3, 4, 5, 1, 0, 9], tf.int64))
    np.testing.assert_allclose(got.numpy(), [0.3, -1.0, 0.5, 0.1, -1.0, -1.0], rtol=1e-7)


def test_static_table_looks_up_composite_values():
    table = _letters()
    ragged = table.lookup(tf.ragged.constant([["a"], ["b", "z"]]))
    assert ragged.to_list() == [[7], [8, -1]]
    sparse = table.lookup(tf.SparseTensor([[0, 0], [1, 1]], tf.constant(["c", "z"]), [2, 2]))
    assert sparse.values.numpy().tolist() == [9, -1]
    assert sparse.indices.numpy().tolist() == [[0, 0], [1, 1]]


def test_static_table_errors_are_tfs():
    with pytest.raises(TypeError, match=re.escape(
            "Dtype of argument `keys` must be <dtype: 'string'>, received: "
            "<dtype: 'int32'>")):
        _letters().lookup(tf.constant([1]))
    with pytest.raises(tf.errors.FailedPreconditionError, match=re.escape(
            "HashTable has different value for same key. Key a has 1 and trying to add "
            "value 2")):
        tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a", "a"], [1, 2]), -1)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=re.escape("Expected shape [2] for value, got [3]")):
        tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a", "b"], [1, 2, 3]), -1)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="keys and values cannot be empty tensors"):
        tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
            tf.constant([], tf.string), tf.constant([], tf.int64)), 5)


def test_text_file_initializers(tmp_path):
    lines = tmp_path / "vocab.txt"
    lines.write_text("apple\nbanana\ncherry\n")
    by_line = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        str(lines), tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
        tf.lookup.TextFileIndex.LINE_NUMBER), -1)
    assert by_line.lookup(tf.constant(["cherry", "apple", "x"])).numpy().tolist() == [2, 0, -1]
    columns = tmp_path / "columns.txt"
    columns.write_text("a\t10\nb\t20\n")
    by_column = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        str(columns), tf.string, 0, tf.int64, 1, delimiter="\t"), 0)
    assert by_column.lookup(tf.constant(["b", "a", "c"])).numpy().tolist() == [20, 10, 0]


def test_mutable_table_inserts_overwrites_and_removes():
    table = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, 0)
    table.insert(tf.constant(["x", "y"]), tf.constant([1, 2], tf.int64))
    table.insert(tf.constant(["x"]), tf.constant([5], tf.int64))
    assert table.lookup(tf.constant(["x", "y", "z"])).numpy().tolist() == [5, 2, 0]
    assert int(table.size()) == 2
    table.remove(tf.constant(["y", "w"]))
    keys, values = table.export()
    assert keys.numpy().tolist() == [b"x"] and values.numpy().tolist() == [5]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=re.escape("Expected shape [2] for value, got [1]")):
        table.insert(tf.constant(["x", "y"]), tf.constant([1], tf.int64))
    with pytest.raises(NotImplementedError, match="eagerly only"):
        tf.function(lambda k: table.lookup(k))(tf.constant(["x"]))


def test_compat_string_helpers():
    assert tf.compat.as_text(b"\xc3\xa9") == "\u00e9" and tf.compat.as_str(b"a") == "a"
    assert tf.compat.as_bytes("\u00e9") == b"\xc3\xa9" and tf.compat.as_str_any(3.5) == "3.5"
    for helper in (tf.compat.as_text, tf.compat.as_bytes):
        with pytest.raises(TypeError, match="Expected binary or unicode string, got 3"):
            helper(3)


@pytest.mark.parametrize("mode", MODES)
def test_static_vocabulary_table_hashes_unknown_keys_into_buckets(mode):
    """TF 2.21's ids: the vocabulary's value, else the vocabulary size plus the fingerprint
    bucket of the key's string (integer keys too); no vocabulary at all; ragged keys."""
    words = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant(["emerson", "lake", "palmer"]), tf.constant([0, 1, 2], tf.int64)), 5)
    got = _run(mode, words.lookup, tf.constant([["palmer", "crimson"], ["", "lake"]]))
    assert got.numpy().tolist() == [[2, 7], [6, 1]] and int(words.size()) == 8
    assert _run(mode, words.lookup, tf.constant(["yes", "emerson", "zz"])).numpy().tolist() \
        == [5, 0, 5]
    numbers = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        tf.constant([10, 20], tf.int64), tf.constant([0, 1], tf.int64)), 3)
    assert _run(mode, numbers.lookup, tf.constant([20, 7, 10, -4], tf.int64)).numpy().tolist() \
        == [1, 3, 0, 3]
    hashed = tf.lookup.StaticVocabularyTable(None, 4)
    assert _run(mode, hashed.lookup, tf.constant(["a", "b", "c"])).numpy().tolist() == [3, 2, 0]
    assert words.lookup(tf.ragged.constant([["lake"], ["qq", "palmer"]])).to_list() == \
        [[1], [4, 2]]


def test_static_vocabulary_table_errors_are_tfs():
    with pytest.raises(ValueError, match=re.escape(
            "`num_oov_buckets` must be > 0; use StaticHashTable.")):
        tf.lookup.StaticVocabularyTable(None, 0)
    with pytest.raises(TypeError, match=re.escape(
            "Invalid `value_dtype`, expected <dtype: 'int64'> but got <dtype: 'int32'>.")):
        tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
            tf.constant(["a"]), tf.constant([1], tf.int32)), 2)
