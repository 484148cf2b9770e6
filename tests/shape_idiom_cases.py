"""Shape idioms whose result shape differs from the input's, written once against a `tf`
module: `tools/record_shape_idioms.py` runs them under TF 2.21 and records the static shapes
and values (`tests/data/shape_idioms.json`); `tests/frontend/test_shape_idioms.py` runs them
under flowjit in every mode."""

# Inputs of different batch sizes and widths (widths divisible by 3 for `reshape_scaled`).
INPUT_SHAPES = [(4, 6), (1, 6), (2, 9), (5, 3)]
# Signature name -> the TensorSpec shape (None: unknown rank); "static" uses the input's.
SIGNATURES = {"static": "input", "batch": [None, 6], "unknown": [None, None], "rank": None}


def idioms(tf):
    def range_loop(x):
        total = tf.zeros([], tf.int32)
        for i in tf.range(tf.shape(x)[0]):
            total += (i + 1) * tf.shape(x)[1]
        return total

    def range_tensor(x):
        r = tf.range(1, tf.shape(x)[1], 2)
        return r * tf.shape(r)[0]

    return {
        "reshape_scaled": lambda x: tf.reshape(x, [tf.shape(x)[0] * 3, -1]),
        "reshape_swapped": lambda x: tf.reshape(x, [tf.shape(x)[1], tf.shape(x)[0]]),
        "reshape_flat": lambda x: tf.reshape(x, [-1, tf.size(x) // tf.shape(x)[0] // 3]),
        "split_half": lambda x: tf.split(x, [tf.shape(x)[1] // 2, -1], axis=1),
        "eye_rows": lambda x: tf.eye(tf.shape(x)[0]),
        "eye_batch": lambda x: tf.eye(tf.shape(x)[0], tf.shape(x)[1] // 3, batch_shape=[2]),
        "ones_rank_from_size": lambda x: tf.ones(tf.range(1, tf.shape(x)[0] // 2 + 2)),
        "zeros_of_shape": lambda x: tf.zeros(tf.shape(x)) + 1,
        "tile_rows": lambda x: tf.tile(x, [tf.shape(x)[1] // 3, 2]),
        "range_loop": range_loop,
        "range_tensor": range_tensor,
        "segment_sum_rows": lambda x: tf.math.unsorted_segment_sum(
            x, tf.range(tf.shape(x)[0]) % 2, tf.shape(x)[0] // 2 + 1),
        "segment_max_rows": lambda x: tf.math.unsorted_segment_max(
            x, tf.range(tf.shape(x)[0]) // 2, tf.shape(x)[0] + 1),
    }
