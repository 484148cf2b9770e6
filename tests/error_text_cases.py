"""Bad calls whose TF 2.21 error texts user code matches on, written once against a `tf`
module: `tools/record_semantics.py` runs them under TF (eagerly, in a `tf.function`, and with
`jit_compile=True`) and records each exception's class and text in
`tests/data/tf_semantics.json`; `tests/frontend/test_error_texts.py` runs them under flowjit.
Each failing call is on its own line, so the "in user code:" block names it."""
import os

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cases(tf):
    def reshape(x):
        return tf.reshape(x, [5])

    def matmul(x):
        return tf.matmul(x, x)

    def add_shapes(x):
        return x[0] + tf.ones([4])

    def reduce_axis(x):
        return tf.reduce_sum(x, axis=3)

    def concat_ranks(x):
        return tf.concat([x, tf.ones([2, 2, 2])], 0)

    def transpose_perm(x):
        return tf.transpose(x, [0, 2])

    def gather_index(x):
        return tf.gather(x, 7)

    def add_dtypes(x):
        return x + tf.ones([2, 3], tf.int32)

    def maximum_dtypes(x):
        return tf.maximum(tf.cast(x, tf.float64), x)

    def matmul_dtypes(x):
        return tf.matmul(x, tf.ones([3, 2], tf.float16))

    def floordiv_dtypes(x):
        return tf.math.floordiv(tf.cast(x, tf.int64), tf.cast(x, tf.int32))

    return [reshape, matmul, add_shapes, reduce_axis, concat_ranks, transpose_perm, gather_index,
            add_dtypes, maximum_dtypes, matmul_dtypes, floordiv_dtypes]


def run(tf, fn, mode):
    """(class name, text) of what calling `fn` on a [2, 3] tensor raised in `mode`, or None;
    this file's path in the text reads `<file>` and other paths of the repository `<root>`
    (they differ between machines)."""
    x = tf.ones([2, 3])
    call = fn if mode == "eager" else tf.function(fn, jit_compile=mode == "xla")
    try:
        call(x)
    except Exception as e:  # noqa: BLE001 - the class and text are what is compared
        return [type(e).__name__, str(e).replace(__file__, "<file>").replace(_ROOT, "<root>")]
    return None
