"""The composite tensors' Python API as TF 2.21 has it (values taken from TF): type checks,
specs, `tf.nest` with and without `expand_composites`, trace types and `input_signature`,
the densifying warning, Variables' sparse updates."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import flowjit as tf


def _st(nnz=2, shape=(3, 3)):
    return tf.sparse.SparseTensor([[0, 0], [1, 1], [2, 2]][:nnz], [1.0, 2.0, 3.0][:nnz],
                                  list(shape))


def test_plain_tensors_are_no_composites():
    t = tf.constant(1.0)
    for cls in (tf.SparseTensor, tf.RaggedTensor, tf.IndexedSlices):
        assert not isinstance(t, cls)
    assert tf.sparse.SparseTensor is tf.SparseTensor


def test_specs_as_tf_prints_them():
    assert repr(tf.SparseTensorSpec.from_value(_st())) == \
        "SparseTensorSpec(TensorShape([3, 3]), tf.float32)"
    rt = tf.ragged.constant([[1.0, 2.0], [3.0]])
    assert repr(rt._type_spec) == "RaggedTensorSpec(TensorShape([2, None]), tf.float32, 1, " \
        "tf.int64)"
    assert rt.shape.as_tuple() == (2, None) and rt.ragged_rank == 1
    assert tf.ragged.constant([[[1]]]).shape.as_tuple() == (1, None, None)
    assert tf.ragged.constant([[1, 2], [3]]).dtype is tf.int32
    assert repr(rt) == "<tf.RaggedTensor [[1.0, 2.0], [3.0]]>"


def test_nest_keeps_composites_whole_unless_expanded():
    st = _st()
    assert not tf.nest.is_nested(st)
    assert tf.nest.flatten(st)[0] is st
    parts = tf.nest.flatten([st, 1.0], expand_composites=True)
    assert len(parts) == 4 and parts[3] == 1.0
    back = tf.nest.pack_sequence_as([st, 1.0], parts, expand_composites=True)
    np.testing.assert_array_equal(tf.sparse.to_dense(back[0]).numpy(),
                                  tf.sparse.to_dense(st).numpy())
    doubled = tf.nest.map_structure(lambda x: x * 2 if x.dtype == tf.float32 else x, st,
                                    expand_composites=True)
    assert doubled.values.numpy().tolist() == [2.0, 4.0]


def test_trace_type_is_the_spec():
    traces = []

    @tf.function
    def f(st):
        traces.append(1)
        return tf.sparse.reduce_sum(st)
    assert float(f(_st(2))) == 3.0
    assert float(f(_st(1))) == 1.0      # another entry count: no retrace (TF: 1 trace)
    assert float(f(_st(1, (3, 4)))) == 1.0   # another dense shape retraces
    assert len(traces) == 2

    ragged = []

    @tf.function
    def g(rt):
        ragged.append(1)
        return rt * 2.0
    g(tf.ragged.constant([[1.0, 2.0], [3.0]]))
    out = g(tf.ragged.constant([[1.0], [3.0, 4.0, 5.0]]))
    g(tf.ragged.constant([[1.0], [3.0], [4.0]]))
    assert len(ragged) == 2 and out.to_list() == [[2.0], [6.0, 8.0, 10.0]]


@pytest.mark.parametrize("jit", [False, True])
def test_input_signature_with_specs(jit):
    @tf.function(input_signature=[tf.SparseTensorSpec([3, 3], tf.float32),
                                  tf.RaggedTensorSpec([2, None], tf.float32)], jit_compile=jit)
    def f(st, rt):
        return tf.sparse.sparse_dense_matmul(st, tf.ones([3, 1])), tf.reduce_sum(rt, axis=1)
    m, r = f(_st(3), tf.ragged.constant([[1.0, 2.0], [3.0]]))
    assert m.numpy().ravel().tolist() == [1.0, 2.0, 3.0]
    assert r.numpy().tolist() == [3.0, 3.0]
    with pytest.raises(TypeError):
        f(_st(3, (2, 3)), tf.ragged.constant([[1.0, 2.0], [3.0]]))


def test_concrete_function_signature_shows_the_spec():
    f = tf.function(lambda st: tf.sparse.reduce_sum(st))
    cf = f.get_concrete_function(tf.SparseTensorSpec([3, 3], tf.float32))
    assert cf.structured_input_signature[0] == (tf.SparseTensorSpec([3, 3], tf.float32),)
    assert "SparseTensorSpec(TensorShape([3, 3]), tf.float32)" in \
        f.pretty_printed_concrete_signatures()
    assert float(cf(_st(3))) == 6.0


def test_traced_densify_of_unknown_shape_warns_as_tf():
    @tf.function(input_signature=[tf.IndexedSlicesSpec([None, 2], tf.float32, tf.int32,
                                                       tf.int32)])
    def f(s):
        return s.values

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        big = tf.IndexedSlices(tf.zeros([1, 1]), [0], [100_000_000, 1])

        @tf.function
        def dense(s):
            return tf.reduce_sum(tf.convert_to_tensor(s))
        assert float(dense(big)) == 0.0
    assert any("Converting sparse IndexedSlices to a dense Tensor with 100000000 elements"
               in str(w.message) for w in caught)
    f.get_concrete_function()


def test_variable_sparse_updates():
    v = tf.Variable(np.zeros([3, 2], np.float32))
    rows = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([2, 2]),
                            tf.constant([3, 2]))
    v.scatter_add(rows)
    assert v.numpy().tolist() == [[0, 0], [0, 0], [4, 6]]
    v.scatter_sub(tf.IndexedSlices(tf.constant([[1.0, 1.0]]), tf.constant([0]),
                                   tf.constant([3, 2])))
    v.scatter_update(tf.IndexedSlices(tf.constant([[7.0, 8.0]]), tf.constant([1]),
                                      tf.constant([3, 2])))
    assert v.numpy().tolist() == [[-1, -1], [7, 8], [4, 6]]
    assert v.sparse_read([2, 1]).numpy().tolist() == [[4, 6], [7, 8]]
    with pytest.raises(TypeError):
        v.scatter_add(tf.ones([3, 2]))


def test_indexed_slices_refuse_python_arithmetic_as_tf():
    s = tf.IndexedSlices(tf.ones([1, 2]), tf.constant([0]), tf.constant([2, 2]))
    with pytest.raises(TypeError):
        s * 2
    assert s.shape.as_list() == [2, 2] and s.dtype is tf.float32


def test_ragged_numpy_keeps_the_dtype_and_stacks_uniform_rows():
    """TF 2.21: ragged rows are an object array of float32 rows; uniform rows one int32
    array; no rows a (0, 0) array."""
    rows = tf.ragged.constant([[1.0, 2.0], [], [3.0]]).numpy()
    assert rows.dtype == object and rows.shape == (3,)
    assert [(r.dtype.name, r.tolist()) for r in rows] == [
        ("float32", [1.0, 2.0]), ("float32", []), ("float32", [3.0])]
    uniform = tf.ragged.constant([[1, 2], [3, 4]]).numpy()
    assert uniform.dtype == np.int32 and uniform.tolist() == [[1, 2], [3, 4]]
    empty = tf.RaggedTensor.from_row_splits(tf.constant([], tf.float32), [0]).numpy()
    assert empty.shape == (0, 0) and empty.dtype == np.float32


def test_row_partition_is_built_by_its_factories_only():
    """TF 2.21's text for the private constructor, and its repr of the row splits."""
    with pytest.raises(ValueError, match=re.escape(
            "RowPartition constructor is private; please use one of the factory methods "
            "instead (e.g., RowPartition.from_row_lengths())")):
        tf.experimental.RowPartition(tf.constant([0, 1]))
    partition = tf.experimental.RowPartition.from_value_rowids(
        tf.constant([0, 0, 2, 3], tf.int64), nrows=5)
    assert repr(partition) == "tf.RowPartition(row_splits=[0 2 2 3 4 4])"
    assert partition.dtype is tf.int64
