"""Programs over tf.nn's functions that take or return SparseTensors (the sparse embedding
lookups, the CTC decoders), run by TF 2.21 (tools/record_tf_nn_composite.py records the
answers in tests/data/tf_nn_composite.json) and by flowjit (test_nn_recorded.py, in every
mode). Same conventions as cases.py: `fn(tf)` builds its inputs and returns a nest of
tensors and composites; `xla=False` marks a case whose result size depends on values,
`eager_only` one that returns Python values (an error's text)."""
from __future__ import annotations

import numpy as np

CASES: dict = {}
NO_XLA: set = set()
EAGER_ONLY: set = set()


def case(xla=True, eager_only=False):
    def mark(fn):
        CASES[fn.__name__] = fn
        if not xla:
            NO_XLA.add(fn.__name__)
        if eager_only:
            EAGER_ONLY.add(fn.__name__)
        return fn
    return mark


TABLE = np.asarray((np.arange(15).reshape(5, 3) % 7 - 3) / 4, np.float32)


def _ids(tf, dtype="int64"):
    """Rows 0 and 2 hold ids (a repeated one in row 2), row 1 and the last row none."""
    return tf.SparseTensor([[0, 0], [0, 2], [2, 0], [2, 1], [2, 3]],
                           tf.constant([1, 4, 3, 3, 0], dtype), [4, 4])


def _weights(tf, values=(2.0, 0.5, 1.0, -3.0, 0.25)):
    return tf.SparseTensor([[0, 0], [0, 2], [2, 0], [2, 1], [2, 3]],
                           tf.constant(values, tf.float32), [4, 4])


def _lookup_grad(tf, lookup):
    """A lookup's result and the gradient of a weighted sum of it by the table."""
    table = tf.constant(TABLE)
    with tf.GradientTape() as tape:
        tape.watch(table)
        out = lookup(table)
        weights = tf.cumsum(tf.ones_like(tf.reshape(out, [-1])))   # 1, 2, 3, ...
        y = tf.reduce_sum(out * tf.reshape(weights, tf.shape(out)))
    return [out, tf.convert_to_tensor(tape.gradient(y, table))]


def _each_combiner(tf, weighted, **kwargs):
    return [_lookup_grad(tf, lambda t: tf.nn.embedding_lookup_sparse(
        t, _ids(tf), _weights(tf) if weighted else None, combiner=c, **kwargs))
        for c in (None, "sum", "sqrtn")]


@case(xla=False)
def embedding_sparse_unweighted(tf):
    return _each_combiner(tf, False)


@case(xla=False)
def embedding_sparse_weighted(tf):
    return _each_combiner(tf, True)


@case(xla=False)
def embedding_sparse_max_norm_shards(tf):
    shards = [tf.constant(TABLE[:3]), tf.constant(TABLE[3:])]
    return [tf.nn.embedding_lookup_sparse(shards, _ids(tf, "int32"), _weights(tf),
                                          max_norm=0.5),
            tf.nn.embedding_lookup_sparse(tf.constant(TABLE), _ids(tf), None, max_norm=0.6,
                                          combiner="sqrtn")]


@case(xla=False)
def embedding_sparse_half(tf):
    table = tf.constant(TABLE, tf.float16)
    return tf.nn.embedding_lookup_sparse(table, _ids(tf), _weights(tf, (3, 5, 7, 0, 1)))


@case(eager_only=True)
def embedding_sparse_bad_combiner(tf):
    try:
        tf.nn.embedding_lookup_sparse(tf.constant(TABLE), _ids(tf), None, combiner="max")
    except ValueError as e:
        return str(e)


@case(xla=False)
def safe_embedding_defaults(tf):
    ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [3, 2]], tf.constant([1, -1, -4, 2],
                                                                        tf.int64), [4, 3])
    return [_lookup_grad(tf, lambda t: tf.nn.safe_embedding_lookup_sparse(t, ids)),
            tf.nn.safe_embedding_lookup_sparse(tf.constant(TABLE), ids, default_id=4,
                                               combiner="sum")]


@case(xla=False)
def safe_embedding_weights_pruned(tf):
    ids, w = _ids(tf), _weights(tf, (2.0, 0.0, 1.0, -3.0, 0.25))
    return [tf.nn.safe_embedding_lookup_sparse(tf.constant(TABLE), ids, w, combiner=c)
            for c in ("mean", "sum", "sqrtn")]


@case(xla=False)
def safe_embedding_rank3(tf):
    ids = tf.SparseTensor([[0, 0, 1], [0, 1, 0], [1, 1, 0], [1, 1, 1]],
                          tf.constant([0, 2, 3, 1], tf.int64), [2, 3, 2])
    w = tf.SparseTensor(ids.indices, tf.constant([1.0, 2.0, 0.5, 4.0]), ids.dense_shape)
    return _lookup_grad(tf, lambda t: tf.nn.safe_embedding_lookup_sparse(
        [t[:3], t[3:]], ids, w, combiner="sqrtn", default_id=1))


# Logits [time 4, batch 3, classes 3] with ties (b2 t0) and repeats across blanks.
LOGITS = np.asarray([[[1, 2, 0.5], [0, 0, 3], [1, 1, 1]], [[2, 1, 0], [3, 0, 0], [0, 3, 1]],
                     [[2, 1, 0], [0, 1, 3], [0, 3, 1]], [[0, 1, 0], [0, 1, 3], [5, 3, 1]]],
                    np.float32) / 4


def _greedy(tf, lengths=(4, 2, 3), dtype="float32", **kwargs):
    decoded, score = tf.nn.ctc_greedy_decoder(tf.constant(LOGITS, dtype),
                                              tf.constant(lengths, tf.int32), **kwargs)
    return [decoded, score]


@case(xla=False)
def ctc_greedy_blanks(tf):
    return [_greedy(tf), _greedy(tf, blank_index=0), _greedy(tf, blank_index=-2),
            _greedy(tf, merge_repeated=False, dtype="float64")]


@case(xla=False)
def ctc_greedy_short(tf):
    return [_greedy(tf, (0, 0, 0)), _greedy(tf, (1, 0, 4), blank_index=1)]


@case(xla=False)
def ctc_greedy_no_gradient(tf):
    x = tf.constant(LOGITS)
    with tf.GradientTape() as tape:
        tape.watch(x)
        _, score = tf.nn.ctc_greedy_decoder(x, tf.constant([4, 2, 3]))
    return tf.constant(tape.gradient(score, x) is None)


@case(eager_only=True)
def ctc_greedy_errors(tf):
    found = []
    for inputs, lengths, blank in ((LOGITS, [5, 2, 3], None), (LOGITS, [1, 2], None),
                                   (LOGITS[0], [1, 2, 3], None), (LOGITS, [1, 2, 3], 3),
                                   (LOGITS, [1, 2, 3], -4), (LOGITS[:0], [0, 0, 0], None)):
        try:
            tf.nn.ctc_greedy_decoder(tf.constant(inputs), tf.constant(lengths), blank_index=blank)
        except Exception as e:  # noqa: BLE001 - the class and TF's text are compared
            found.append([type(e).__name__, str(e).split(" [Op:")[0].split("} ")[-1]])
    return found
