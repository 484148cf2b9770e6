"""Record TF 2.21's tf.data behaviour for tests/tfdata: run with a Python that has
`tensorflow-cpu==2.21`, `python tools/record_tfdata.py`; it writes tests/data/tfdata.json.

Each case is a Python expression over `tf` and `np` that both TF and flowjit evaluate: a
dataset (its elements, element_spec and cardinality are recorded) or, under "errors", an
expression whose exception class and message are recorded. Only orders TF fixes are used
(no unseeded shuffles, no TF-seeded random orders).
"""
import json
import os
import re
import sys

import numpy as np
import tensorflow as tf

DATASETS = {
    "slices_tuple": "tf.data.Dataset.from_tensor_slices(([1, 2, 3], [[1., 2.], [3., 4.], [5., 6.]]))",
    "slices_dict": "tf.data.Dataset.from_tensor_slices({'a': np.arange(4), 'b': np.array([b'w', b'x', b'y', b'z'])})",
    "slices_empty": "tf.data.Dataset.from_tensor_slices(np.zeros([0, 3], np.float32))",
    "tensors": "tf.data.Dataset.from_tensors(([1, 2], 3.5))",
    "range_step": "tf.data.Dataset.range(10, 0, -3)",
    "range_empty": "tf.data.Dataset.range(5, 5)",
    "range_int32": "tf.data.Dataset.range(3, output_type=tf.int32)",
    "map_tuple": "tf.data.Dataset.range(5).map(lambda x: (x, tf.cast(x, tf.float32) * 0.5))",
    "map_unpack": "tf.data.Dataset.from_tensor_slices(([1, 2], [3, 4])).map(lambda a, b: a * b)",
    "map_dict": "tf.data.Dataset.from_tensor_slices({'a': [1, 2], 'b': [3, 4]}).map(lambda d: d['a'] - d['b'])",
    "map_parallel": "tf.data.Dataset.range(20).map(lambda x: x * x, num_parallel_calls=tf.data.AUTOTUNE)",
    "filter": "tf.data.Dataset.range(10).filter(lambda x: x % 3 == 0)",
    "batch": "tf.data.Dataset.range(7).batch(3)",
    "batch_drop": "tf.data.Dataset.range(7).batch(3, drop_remainder=True)",
    "batch_tuple": "tf.data.Dataset.range(5).map(lambda x: (x, [x, x])).batch(2)",
    "padded_batch": "tf.data.Dataset.range(1, 6).map(lambda x: tf.fill([x], x)).padded_batch(2)",
    "padded_batch_shape": "tf.data.Dataset.range(1, 4).map(lambda x: tf.fill([x], x)).padded_batch(2, padded_shapes=[5], padding_values=tf.constant(-1, tf.int64))",
    "unbatch": "tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4], [5, 6]]).unbatch()",
    "rebatch": "tf.data.Dataset.range(8).batch(4).rebatch(3)",
    "repeat": "tf.data.Dataset.range(3).repeat(2)",
    "repeat_empty_forever": "tf.data.Dataset.range(0).repeat()",
    "take_skip": "tf.data.Dataset.range(10).skip(2).take(5)",
    "take_all": "tf.data.Dataset.range(4).take(-1)",
    "skip_all": "tf.data.Dataset.range(4).skip(-1)",
    "take_while": "tf.data.Dataset.range(10).take_while(lambda x: x < 4)",
    "prefetch": "tf.data.Dataset.range(6).prefetch(2)",
    "cache_memory": "tf.data.Dataset.range(4).cache()",
    "interleave": "tf.data.Dataset.range(1, 4).interleave(lambda x: tf.data.Dataset.from_tensors(x).repeat(x), cycle_length=2, block_length=2)",
    "flat_map": "tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4]]).flat_map(tf.data.Dataset.from_tensor_slices)",
    "enumerate": "tf.data.Dataset.from_tensor_slices([7, 8, 9]).enumerate(start=5)",
    "window": "tf.data.Dataset.range(7).window(3, shift=2).flat_map(lambda w: w.batch(3))",
    "window_stride_drop": "tf.data.Dataset.range(10).window(3, shift=1, stride=2, drop_remainder=True).flat_map(lambda w: w.batch(3))",
    "group_by_window": "tf.data.Dataset.range(10).group_by_window(lambda x: x % 2, lambda k, w: w.batch(3), window_size=3)",
    "bucket": "tf.data.Dataset.range(1, 8).map(lambda x: tf.fill([x], x)).bucket_by_sequence_length(lambda x: tf.shape(x)[0], [3, 5], [2, 2, 2])",
    "scan": "tf.data.Dataset.range(6).scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s * 2))",
    "unique": "tf.data.Dataset.from_tensor_slices([1, 2, 1, 3, 2, 0]).unique()",
    "zip": "tf.data.Dataset.zip((tf.data.Dataset.range(3), tf.data.Dataset.range(10, 20)))",
    "zip_nested": "tf.data.Dataset.zip({'a': tf.data.Dataset.range(2), 'b': (tf.data.Dataset.range(3), tf.data.Dataset.range(4))})",
    "concatenate": "tf.data.Dataset.range(2).concatenate(tf.data.Dataset.range(5, 7))",
    "choose": "tf.data.Dataset.choose_from_datasets([tf.data.Dataset.range(3), tf.data.Dataset.range(10, 12)], tf.data.Dataset.from_tensor_slices(np.array([0, 1, 1, 1, 0], np.int64)))",
    "choose_no_stop": "tf.data.Dataset.choose_from_datasets([tf.data.Dataset.range(3), tf.data.Dataset.range(10, 12)], tf.data.Dataset.from_tensor_slices(np.array([1, 1, 1, 0, 1], np.int64)), stop_on_empty_dataset=False)",
    "generator": "tf.data.Dataset.from_generator(lambda: ((i, [i] * i) for i in range(4)), output_signature=(tf.TensorSpec([], tf.int32), tf.TensorSpec([None], tf.int32)))",
    "generator_casts": "tf.data.Dataset.from_generator(lambda: iter([1.5, -2.7]), output_signature=tf.TensorSpec([], tf.int32))",
    "assert_cardinality": "tf.data.Dataset.range(5).filter(lambda x: True).apply(tf.data.experimental.assert_cardinality(5))",
    "shuffle_buffer_1": "tf.data.Dataset.range(5).shuffle(1)",
    "repeat_infinite_take": "tf.data.Dataset.range(3).repeat().take(7)",
    "interleave_parallel_autotune": "tf.data.Dataset.range(4).interleave(lambda x: tf.data.Dataset.range(3).map(lambda y: y + 10 * x), num_parallel_calls=tf.data.AUTOTUNE)",
    "interleave_parallel_2": "tf.data.Dataset.range(4).interleave(lambda x: tf.data.Dataset.range(3).map(lambda y: y + 10 * x), num_parallel_calls=2)",
    "interleave_parallel_block": "tf.data.Dataset.range(4).interleave(lambda x: tf.data.Dataset.range(3).map(lambda y: y + 10 * x), cycle_length=3, block_length=2, num_parallel_calls=2)",
    "batch_parallel": "tf.data.Dataset.range(7).batch(3, num_parallel_calls=2)",
    "batch_parallel_autotune_drop": "tf.data.Dataset.range(7).map(lambda x: (x, -x)).batch(2, drop_remainder=True, num_parallel_calls=tf.data.AUTOTUNE)",
}

# datasets whose cardinality (not elements) is the point
CARDINALITY = {
    "repeat_forever": "tf.data.Dataset.range(3).repeat()",
    "filter": "tf.data.Dataset.range(3).filter(lambda x: True)",
    "filter_forever": "tf.data.Dataset.range(3).repeat().filter(lambda x: True)",
    "take_forever": "tf.data.Dataset.range(3).repeat().take(4)",
    "skip": "tf.data.Dataset.range(3).skip(5)",
    "batch": "tf.data.Dataset.range(10).batch(4)",
    "batch_drop": "tf.data.Dataset.range(10).batch(4, drop_remainder=True)",
    "zip": "tf.data.Dataset.zip((tf.data.Dataset.range(3), tf.data.Dataset.range(3).repeat()))",
    "concat_unknown": "tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(3).filter(lambda x: True))",
    "unbatch": "tf.data.Dataset.range(4).batch(2).unbatch()",
    "window": "tf.data.Dataset.range(10).window(3, 2)",
    "assert": "tf.data.Dataset.range(3).filter(lambda x: True).apply(tf.data.experimental.assert_cardinality(3))",
}

ERRORS = {
    "slices_scalar": "tf.data.Dataset.from_tensor_slices(1)",
    "slices_mismatch": "tf.data.Dataset.from_tensor_slices(([1, 2, 3], [1, 2]))",
    "batch_zero": "list(tf.data.Dataset.range(3).batch(0))",
    "shuffle_zero": "list(tf.data.Dataset.range(3).shuffle(0))",
    "filter_not_bool": "tf.data.Dataset.range(3).filter(lambda x: x)",
    "zip_list": "tf.data.Dataset.zip([tf.data.Dataset.range(2), tf.data.Dataset.range(2)])",
    "get_next_end": "(lambda it: (it.get_next(), it.get_next()))(iter(tf.data.Dataset.range(1)))",
    "next_end": "(lambda it: (next(it), next(it)))(iter(tf.data.Dataset.range(1)))",
    "batch_ragged": "list(tf.data.Dataset.range(1, 3).map(lambda x: tf.fill([x], x)).batch(2))",
    "generator_bad_shape": "list(tf.data.Dataset.from_generator(lambda: iter([[1, 2]]), output_signature=tf.TensorSpec([3], tf.int32)))",
    "len_infinite": "len(tf.data.Dataset.range(3).repeat())",
    "len_unknown": "len(tf.data.Dataset.range(3).filter(lambda x: True))",
    "assert_cardinality_short": "list(tf.data.Dataset.range(3).apply(tf.data.experimental.assert_cardinality(5)))",
    "assert_cardinality_long": "list(tf.data.Dataset.range(6).apply(tf.data.experimental.assert_cardinality(5)))",
    "choose_bad_choice": "tf.data.Dataset.choose_from_datasets([tf.data.Dataset.range(3)], tf.data.Dataset.range(2).map(lambda x: tf.cast(x, tf.int32)))",
    "optional_empty": "tf.experimental.Optional.empty(tf.TensorSpec([], tf.int32)).get_value()",
    "list_files_none": "tf.data.Dataset.list_files('/nonexistent-flowjit/*.txt')",
    "interleave_calls_over_cycle": "list(tf.data.Dataset.range(2).interleave(lambda x: tf.data.Dataset.range(3), cycle_length=2, num_parallel_calls=3))",
    "concat_dtype": "tf.data.Dataset.range(2).concatenate(tf.data.Dataset.range(2).map(lambda x: tf.cast(x, tf.int32)))",
}

# TF batches elements in parallel: which two shapes its message names varies between runs,
# so only the text before them is recorded.
UNSTABLE_TAIL = {"batch_ragged": "Shapes are:"}


def as_json(x):
    if isinstance(x, dict):
        return {k: as_json(v) for k, v in sorted(x.items())}
    if isinstance(x, (tuple, list)):
        return [as_json(v) for v in x]
    a = np.asarray(x, object) if isinstance(x, bytes) else np.asarray(x)
    if a.dtype.kind in "OS":
        return {"bytes": [b.decode() for b in a.reshape(-1)], "shape": list(a.shape)}
    return {"dtype": a.dtype.name, "shape": list(a.shape), "value": a.reshape(-1).tolist()}


def record():
    out = {"datasets": {}, "cardinality": {}, "errors": {}}
    for name, expr in DATASETS.items():
        ds = eval(expr)
        out["datasets"][name] = {"expr": expr, "spec": repr(ds.element_spec),
                                 "cardinality": int(ds.cardinality()),
                                 "elements": as_json(list(ds.as_numpy_iterator()))}
    for name, expr in CARDINALITY.items():
        out["cardinality"][name] = {"expr": expr, "cardinality": int(eval(expr).cardinality())}
    for name, expr in ERRORS.items():
        try:
            eval(expr)
        except Exception as e:
            msg = (getattr(e, "message", None) or str(e)).strip()
            # TF's run-time errors wrap the message: "{{function_node ...}} text [Op:Name]"
            msg = re.sub(r"^\{\{function_node [^}]*\}\}\s*", "", msg)
            msg = re.sub(r"\s*\[Op:\w+\].*$", "", msg, flags=re.S)
            msg = msg.splitlines()[0] if msg else ""
            if name in UNSTABLE_TAIL:
                msg = msg[:msg.index(UNSTABLE_TAIL[name]) + len(UNSTABLE_TAIL[name])]
            out["errors"][name] = {"expr": expr, "class": type(e).__name__, "message": msg}
        else:
            print("no error:", name, file=sys.stderr)
    return out


def write_grouped(path, groups: dict):
    """{group: {case name: record}} as JSON with one case per line: small diffs when a
    case changes."""
    with open(path, "w") as f:
        f.write("{\n" + ",\n".join(
            f'{json.dumps(group)}: {{\n' + ",\n".join(
                f"{json.dumps(name)}: {json.dumps(case, sort_keys=True)}"
                for name, case in sorted(cases.items())) + "\n}"
            for group, cases in sorted(groups.items())) + "\n}\n")


if __name__ == "__main__":
    write_grouped(os.path.join(os.path.dirname(__file__), "..", "tests", "data", "tfdata.json"),
                  record())
