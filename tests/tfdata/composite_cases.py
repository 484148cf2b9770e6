"""tf.data over SparseTensor and RaggedTensor elements: cases that TF 2.21
(tools/record_tfdata_composite.py -> tests/data/tfdata_composite.json) and flowjit
(test_composite_elements.py) both evaluate.

Each case is an expression over `tf`, `np` and the values below: under DATASETS a dataset
(its element_spec, value_type, cardinality and elements are recorded), under ERRORS an
expression whose exception class and message are recorded.
"""
import re

import numpy as np

SPARSE = "tf.sparse.SparseTensor(indices=[[0, 0], [1, 2], [3, 1]], values=[1, 2, 3], dense_shape=[5, 4])"
SPARSE3 = ("tf.sparse.SparseTensor(indices=[[0, 0, 1], [0, 1, 2], [2, 1, 0]], "
           "values=[1.5, -2.0, 4.0], dense_shape=[3, 2, 3])")
RAGGED = "tf.ragged.constant([[1, 2], [3], [], [4, 5, 6], [7]])"
RAGGED3 = "tf.ragged.constant([[[1], [2, 3]], [], [[4]], [[], [5, 6, 7]]])"
VARYING = "tf.data.Dataset.range(5).map(lambda x: tf.range(x))"

DATASETS = {
    # sources and specs
    "sparse_tensors": f"tf.data.Dataset.from_tensors({SPARSE})",
    "sparse_slices": f"tf.data.Dataset.from_tensor_slices({SPARSE})",
    "sparse_slices_rank3": f"tf.data.Dataset.from_tensor_slices({SPARSE3})",
    "sparse_slices_tuple": f"tf.data.Dataset.from_tensor_slices(({SPARSE}, np.arange(5)))",
    "ragged_tensors": f"tf.data.Dataset.from_tensors({RAGGED})",
    "ragged_slices": f"tf.data.Dataset.from_tensor_slices({RAGGED})",
    "ragged_slices_rank3": f"tf.data.Dataset.from_tensor_slices({RAGGED3})",
    "ragged_slices_dict": f"tf.data.Dataset.from_tensor_slices({{'r': {RAGGED3}, 'n': [1., 2., 3., 4.]}})",
    # batching: several sizes, a last partial batch, empty rows
    "sparse_batch_2": f"tf.data.Dataset.from_tensor_slices({SPARSE}).batch(2)",
    "sparse_batch_3_drop": f"tf.data.Dataset.from_tensor_slices({SPARSE}).batch(3, drop_remainder=True)",
    "sparse_batch_all": f"tf.data.Dataset.from_tensor_slices({SPARSE3}).batch(7)",
    "sparse_unbatch": f"tf.data.Dataset.from_tensor_slices({SPARSE3}).batch(2).unbatch()",
    "sparse_rebatch": f"tf.data.Dataset.from_tensors({SPARSE}).unbatch().batch(4)",
    "ragged_batch_1": f"tf.data.Dataset.from_tensor_slices({RAGGED}).batch(1)",
    "ragged_batch_2": f"tf.data.Dataset.from_tensor_slices({RAGGED}).batch(2)",
    "ragged_batch_3_drop": f"tf.data.Dataset.from_tensor_slices({RAGGED3}).batch(3, drop_remainder=True)",
    "ragged_batch_rank3": f"tf.data.Dataset.from_tensor_slices({RAGGED3}).batch(3)",
    "ragged_unbatch": f"tf.data.Dataset.from_tensor_slices({RAGGED3}).batch(3).unbatch()",
    "ragged_unbatch_tensors": f"tf.data.Dataset.from_tensors({RAGGED}).unbatch()",
    "ragged_inner_dims": "tf.data.Dataset.from_tensor_slices(tf.RaggedTensor.from_row_lengths(tf.reshape(tf.range(12.), [6, 2]), [2, 0, 3, 1])).batch(3)",
    "ragged_inner_dims_unbatch": "tf.data.Dataset.from_tensors(tf.RaggedTensor.from_row_lengths(tf.reshape(tf.range(12.), [6, 2]), [2, 0, 3, 1])).unbatch().map(lambda r: r * 2.0)",
    "ragged_strings": "tf.data.Dataset.from_tensor_slices(tf.ragged.constant([['a', 'bc'], [], ['d']])).ragged_batch(2)",
    "ragged_int32_splits": "tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[1., 2.], [3.]], row_splits_dtype=tf.int32)).batch(2)",
    # functions receiving and returning composites
    "sparse_map_scale": f"tf.data.Dataset.from_tensor_slices({SPARSE}).map(lambda x: x * 10)",
    "sparse_map_dense": f"tf.data.Dataset.from_tensor_slices({SPARSE}).map(tf.sparse.to_dense)",
    "sparse_batch_map_dense": f"tf.data.Dataset.from_tensor_slices({SPARSE}).batch(2).map(tf.sparse.to_dense)",
    "sparse_map_make": "tf.data.Dataset.range(4).map(lambda x: tf.sparse.SparseTensor([[x]], [x * 2], [5])).batch(3)",
    "sparse_map_tuple": f"tf.data.Dataset.from_tensor_slices(({SPARSE}, np.arange(5))).map(lambda s, i: (i, tf.sparse.reduce_sum(s)))",
    "sparse_filter": f"tf.data.Dataset.from_tensor_slices({SPARSE}).filter(lambda x: tf.size(x.values) > 0)",
    "ragged_map_dense_rows": f"tf.data.Dataset.from_tensor_slices({RAGGED}).map(lambda x: tf.reduce_sum(x))",
    "ragged_map_ragged": f"tf.data.Dataset.from_tensor_slices({RAGGED3}).map(lambda x: x * 2)",
    "ragged_map_returns": "tf.data.Dataset.range(4).map(lambda x: tf.RaggedTensor.from_row_lengths(tf.range(x), [x])).batch(3)",
    "ragged_filter": f"tf.data.Dataset.from_tensor_slices({RAGGED3}).filter(lambda x: x.nrows() > 1)",
    # order, counting, combining
    "sparse_repeat_take_cache": f"tf.data.Dataset.from_tensor_slices({SPARSE}).repeat(2).take(7).cache().prefetch(2)",
    "sparse_skip": f"tf.data.Dataset.from_tensor_slices({SPARSE}).skip(3)",
    "sparse_zip": f"tf.data.Dataset.zip((tf.data.Dataset.from_tensor_slices({SPARSE}), tf.data.Dataset.range(3)))",
    "sparse_concatenate": f"tf.data.Dataset.from_tensor_slices({SPARSE}).concatenate(tf.data.Dataset.from_tensor_slices({SPARSE}).take(1))",
    "sparse_concatenate_relaxed": f"tf.data.Dataset.from_tensor_slices({SPARSE}).take(2).concatenate(tf.data.Dataset.from_tensor_slices(tf.sparse.SparseTensor([[0, 0, 1], [1, 1, 0]], [8, 9], [2, 2, 3])))",
    "ragged_zip_dict": f"tf.data.Dataset.zip({{'a': tf.data.Dataset.from_tensor_slices({RAGGED3}), 'b': tf.data.Dataset.range(10, 20)}})",
    "ragged_concatenate": f"tf.data.Dataset.from_tensor_slices({RAGGED3}).concatenate(tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[[8, 9]]])))",
    "ragged_enumerate": f"tf.data.Dataset.from_tensor_slices({RAGGED}).enumerate()",
    # generators
    "sparse_generator": "tf.data.Dataset.from_generator(lambda: iter([tf.sparse.SparseTensor([[0]], [1], [2]), tf.sparse.SparseTensor([[4], [5]], [5, 6], [6]), tf.sparse.SparseTensor(np.zeros([0, 1], np.int64), tf.zeros([0], tf.int32), [1])]), output_signature=tf.SparseTensorSpec([None], tf.int32)).batch(2)",
    "ragged_generator": "tf.data.Dataset.from_generator(lambda: (tf.ragged.constant([[1.] * i, [2.]]) for i in range(3)), output_signature=tf.RaggedTensorSpec([2, None], tf.float32)).batch(2)",
    # dense elements of varying shape
    "ragged_batch": f"{VARYING}.ragged_batch(2)",
    "ragged_batch_drop": f"{VARYING}.ragged_batch(3, drop_remainder=True)",
    "ragged_batch_int32": f"{VARYING}.ragged_batch(4, row_splits_dtype=tf.int32)",
    "ragged_batch_rank2": "tf.data.Dataset.range(4).map(lambda x: tf.fill([x, 2], x)).ragged_batch(3)",
    "ragged_batch_rank2_unknown": "tf.data.Dataset.range(4).map(lambda x: tf.fill([x, x], x)).ragged_batch(3)",
    "ragged_batch_fixed": "tf.data.Dataset.range(5).ragged_batch(2)",
    "ragged_batch_of_ragged": f"tf.data.Dataset.from_tensor_slices({RAGGED3}).ragged_batch(2)",
    "dense_to_ragged_batch": f"{VARYING}.apply(tf.data.experimental.dense_to_ragged_batch(3))",
    "sparse_batch": f"{VARYING}.sparse_batch(2, [5])",
    "sparse_batch_rank2": "tf.data.Dataset.range(4).map(lambda x: tf.fill([x, 2], x)).sparse_batch(3, [3, 2])",
    "dense_to_sparse_batch": f"{VARYING}.apply(tf.data.experimental.dense_to_sparse_batch(4, [6]))",
}

ERRORS = {
    "padded_batch_sparse": f"tf.data.Dataset.from_tensor_slices({SPARSE}).padded_batch(2)",
    "padded_batch_ragged": f"tf.data.Dataset.from_tensor_slices({RAGGED3}).padded_batch(2)",
    "padded_batch_ragged_rows": f"tf.data.Dataset.from_tensor_slices({RAGGED}).padded_batch(2)",
    "concatenate_sparse_dense": f"tf.data.Dataset.from_tensor_slices({SPARSE}).concatenate(tf.data.Dataset.range(3))",
    "concatenate_ragged_ranks": f"tf.data.Dataset.from_tensors({RAGGED}).concatenate(tf.data.Dataset.from_tensors({RAGGED3}))",
    "slices_mismatched_rows": f"tf.data.Dataset.from_tensor_slices(({SPARSE}, [1, 2]))",
    "generator_sparse_shape": "list(tf.data.Dataset.from_generator(lambda: iter([tf.sparse.SparseTensor([[0, 0]], [1], [2, 2])]), output_signature=tf.SparseTensorSpec([None], tf.int32)))",
    "generator_sparse_list": "list(tf.data.Dataset.from_generator(lambda: iter([[1, 2]]), output_signature=tf.SparseTensorSpec([None], tf.int32)))",
    "generator_ragged_dense": "list(tf.data.Dataset.from_generator(lambda: iter([[1, 2]]), output_signature=tf.RaggedTensorSpec([None, None], tf.int32)))",
    "generator_ragged_list": "list(tf.data.Dataset.from_generator(lambda: iter([[[1], [2, 3]]]), output_signature=tf.RaggedTensorSpec([None, None], tf.int32)))",
    "batch_sparse_ranks": "list(tf.data.Dataset.from_generator(lambda: iter([tf.sparse.SparseTensor([[0]], [1], [2]), tf.sparse.SparseTensor([[0, 1]], [5], [3, 6])]), output_signature=tf.SparseTensorSpec(None, tf.int32)).batch(2))",
    "sparse_batch_too_wide": f"list({VARYING}.sparse_batch(2, [3]))",
    "sparse_batch_unknown_dim": f"{VARYING}.sparse_batch(3, [-1])",
    "sparse_batch_tuple": "tf.data.Dataset.range(3).map(lambda x: (x, x)).sparse_batch(2, [1])",
    "slices_sparse_rank1": "tf.data.Dataset.from_tensor_slices(tf.sparse.SparseTensor([[1], [3]], [5., 6.], [4]))",
    "unique_sparse": f"tf.data.Dataset.from_tensor_slices({SPARSE}).unique()",
    "unique_two_components": "tf.data.Dataset.range(3).map(lambda x: (x, x)).unique()",
    "unique_float": "tf.data.Dataset.range(3).map(lambda x: tf.cast(x, tf.float32)).unique()",
    "unbatch_sparse_rank1": "list(tf.data.Dataset.from_tensors(tf.sparse.SparseTensor([[1]], [5.], [4])).unbatch())",
}


def encode(x):
    """An element as JSON: nests as lists/dicts, a SparseTensor as its three arrays, a
    RaggedTensor as its flat values and row splits, a tensor as dtype, shape and values."""
    if isinstance(x, dict):
        return {str(k): encode(v) for k, v in sorted(x.items())}
    if isinstance(x, (tuple, list)):
        return [encode(v) for v in x]
    if hasattr(x, "dense_shape"):
        return {"sparse": [encode(x.indices), encode(x.values), encode(x.dense_shape)]}
    if hasattr(x, "nested_row_splits"):
        return {"ragged": [encode(x.flat_values)] + [encode(s) for s in x.nested_row_splits]}
    a = np.asarray(x.numpy() if hasattr(x, "numpy") else x)
    if a.dtype.kind in "OS":
        return {"bytes": [b.decode() for b in a.reshape(-1)], "shape": list(a.shape)}
    return {"dtype": a.dtype.name, "shape": list(a.shape), "value": a.reshape(-1).tolist()}


def _namespace(tf):
    return {"tf": tf, "np": np}


def dataset_record(tf, expr):
    ds = eval(expr, _namespace(tf))
    spec = ds.element_spec
    value_types = [s.value_type.__name__ for s in tf.nest.flatten(spec)]
    return {"spec": repr(spec), "value_types": value_types,
            "cardinality": int(ds.cardinality()),
            "elements": [encode(e) for e in ds]}


def error_record(tf, expr):
    try:
        eval(expr, _namespace(tf))
    except Exception as e:  # noqa: BLE001 -- the class and text are what is recorded
        message = (getattr(e, "message", None) or str(e)).strip()
        # TF's run-time errors wrap the text ("{{function_node ...}} text [Op:Name] name:")
        # and follow it with the traceback of its script op
        message = re.sub(r"^\{\{function_node [^}]*\}\}\s*", "", message)
        message = re.sub(r"\s*\[Op:\w+\].*$", "", message, flags=re.S)
        return {"class": type(e).__name__, "message": message.split("\n")[0]}
    return {"class": None, "message": ""}
