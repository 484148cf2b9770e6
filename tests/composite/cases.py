"""Programs over composite tensors, run by TF 2.21 (tools/record_tf_composite.py records the
answers in tests/data/tf_composite.json) and by flowjit (test_recorded.py, in every mode).

Each case is `fn(tf)`: it gets the `tf` module to run on, builds its inputs inside (so a
`tf.function` of it traces them) and returns a nest of tensors and composites. A case that
creates Variables is `fn(tf, stage)` instead (`STAGED`): it passes its steps through `stage`
(identity eagerly, `tf.function` in the other modes). `xla=False` marks a case whose result
size depends on values (XLA compiles static shapes only).
"""
from __future__ import annotations

import numpy as np

CASES: dict = {}
NO_XLA: set = set()
STAGED: set = set()


def case(xla=True, staged=False):
    def mark(fn):
        CASES[fn.__name__] = fn
        if not xla:
            NO_XLA.add(fn.__name__)
        if staged:
            STAGED.add(fn.__name__)
        return fn
    return mark


def _f32(a):
    return np.asarray(a, np.float32)


P = _f32(np.arange(12).reshape(4, 3) / 4 - 1)          # params of the gathers
W = _f32((np.arange(24).reshape(4, 2, 3) % 7 + 1) / 4)  # upstream weights


# --- IndexedSlices ----------------------------------------------------------------------------
@case()
def slices_gather_grad(tf):
    p = tf.constant(P)
    ix = tf.constant([[3, 0], [3, 3], [1, 0], [2, 3]])
    with tf.GradientTape() as tape:
        tape.watch(p)
        y = tf.reduce_sum(tf.gather(p, ix) * tf.constant(W[:, :2]))
    return tape.gradient(y, p)


@case()
def slices_two_gathers(tf):
    p = tf.constant(P)
    with tf.GradientTape() as tape:
        tape.watch(p)
        y = tf.reduce_sum(tf.gather(p, [2, 2, 0]) * 3.0) + tf.reduce_sum(tf.gather(p, [1]))
    return tape.gradient(y, p)


@case(staged=True)
def slices_gather_and_dense(tf, stage):
    v = tf.Variable(P)

    def grad():
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.gather(v, [3, 3]) * 2.0) + tf.reduce_sum(v * v)
        return tape.gradient(y, v)
    return stage(grad)()


@case(staged=True)
def slices_variable(tf, stage):
    v = tf.Variable(P)

    def grad():
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.square(tf.gather(v, [0, 2, 0])))
        return tape.gradient(y, v)
    return stage(grad)()


@case(staged=True)
def slices_embedding_lookup(tf, stage):
    table = tf.Variable(P)

    def grad():
        with tf.GradientTape() as tape:
            rows = tf.nn.embedding_lookup(table, tf.constant([[1, 0], [1, 1]]))
            y = tf.reduce_sum(rows * tf.constant(W[:2, :2]))
        return tape.gradient(y, table)
    return stage(grad)()


@case()
def slices_cast(tf):
    s = tf.cast(_slices(tf), tf.float64)
    return s, tf.cast(_sp(tf), tf.int32), tf.cast(_rt(tf), tf.int64)


def _slices(tf):
    return tf.IndexedSlices(tf.constant(_f32([[3, 4, 0], [1, 2, 2], [-3, -4, 0]])),
                            tf.constant([2, 0, 2]), tf.constant([4, 3]))


@case()
def slices_dense(tf):
    s = _slices(tf)
    return tf.convert_to_tensor(s), tf.add_n([s, s]), tf.add_n([s, tf.ones([4, 3])]), \
        tf.multiply(s, 2.0), -s


@case()
def slices_norms(tf):
    s = _slices(tf)
    dense = tf.constant(_f32([1, 2]))
    clipped, norm = tf.clip_by_global_norm([s, dense, None], 2.0)
    return tf.linalg.global_norm([s, dense]), norm, clipped[0], clipped[1], \
        tf.clip_by_norm(s, 4.0), tf.clip_by_norm(s, 4.0, axes=[1])


@case()
def slices_function_output(tf):
    @tf.function
    def grad(p):
        with tf.GradientTape() as tape:
            tape.watch(p)
            y = tf.reduce_sum(tf.gather(p, [1, 1, 3]) * 2.0)
        return tape.gradient(y, p)
    return grad(tf.constant(P))


def _train(tf, stage, make_optimizer, clip):
    """Three steps of an embedding model whose ids repeat, its gradients clipped by global
    norm: the losses and the final variables."""
    emb = tf.Variable(_f32(np.arange(20).reshape(5, 4) / 10 - 1))
    w = tf.Variable(_f32(np.arange(8).reshape(4, 2) / 8 - 0.5))
    ids = tf.constant([1, 3, 1, 1, 0])
    target = tf.constant(_f32(np.arange(10).reshape(5, 2) / 5))
    opt = make_optimizer()

    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(tf.matmul(tf.gather(emb, ids), w) - target))
        grads = tape.gradient(loss, [emb, w])
        if clip:
            grads, _ = tf.clip_by_global_norm(grads, clip)
        opt.apply_gradients(zip(grads, [emb, w]))
        return loss
    step = stage(step)
    losses = [step() for _ in range(3)]
    return tf.stack(losses), tf.convert_to_tensor(emb), tf.convert_to_tensor(w)


@case(staged=True)
def train_sgd_clipped(tf, stage):
    return _train(tf, stage, lambda: tf.keras.optimizers.SGD(0.1), 1.0)


@case(staged=True)
def train_sgd_momentum_clipped(tf, stage):
    return _train(tf, stage, lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9), 1.0)


@case(staged=True)
def train_adam_clipped(tf, stage):
    return _train(tf, stage, lambda: tf.keras.optimizers.Adam(0.05), 1.0)


@case(staged=True)
def train_adam(tf, stage):
    return _train(tf, stage, lambda: tf.keras.optimizers.Adam(0.05), None)


# --- SparseTensor -----------------------------------------------------------------------------
def _sp(tf):
    """A 3x4 SparseTensor in canonical order, a row without entries."""
    return tf.sparse.SparseTensor([[0, 1], [0, 3], [2, 0], [2, 2]],
                                  tf.constant(_f32([1.5, -2, 3, 0.25])), [3, 4])


def _sp_unordered(tf):
    return tf.sparse.SparseTensor([[2, 3], [0, 1], [1, 0], [0, 0]],
                                  tf.constant(_f32([4, 5, -6, 7])), [3, 4])


@case()
def sparse_to_dense(tf):
    st = _sp(tf)
    return tf.sparse.to_dense(st), tf.sparse.to_dense(st, default_value=-1.0), \
        tf.sparse.to_dense(tf.sparse.reorder(_sp_unordered(tf)))


@case(xla=False)
def sparse_from_dense(tf):
    d = tf.constant(_f32([[0, 1, 0], [np.nan, 0, -2], [0, 0, 0], [np.inf, 0, 3]]))
    return tf.sparse.from_dense(d), tf.sparse.from_dense(tf.constant([[True, False]]))


@case()
def sparse_matmul(tf):
    b = tf.constant(_f32(np.arange(8).reshape(4, 2) - 3))
    st = _sp(tf)
    return tf.sparse.sparse_dense_matmul(st, b), \
        tf.sparse.sparse_dense_matmul(st, tf.transpose(b), adjoint_b=True), \
        tf.sparse.sparse_dense_matmul(tf.constant(_f32(np.ones([2, 3]))), st)


@case()
def sparse_reductions(tf):
    st = _sp(tf)
    return tf.sparse.reduce_sum(st), tf.sparse.reduce_sum(st, axis=1), \
        tf.sparse.reduce_sum(st, axis=0, keepdims=True), tf.sparse.reduce_sum(st, axis=-1), \
        tf.sparse.reduce_max(st, axis=1), tf.sparse.reduce_max(st)


@case()
def sparse_add_dense(tf):
    return tf.sparse.add(_sp(tf), tf.constant(_f32(np.ones([3, 4])))), \
        tf.sparse.add(tf.constant(_f32(np.ones([3, 4]))), _sp(tf))


@case(xla=False)
def sparse_add_sparse(tf):
    return tf.sparse.add(_sp(tf), tf.sparse.reorder(_sp_unordered(tf)))


@case(xla=False)
def sparse_maximum_minimum(tf):
    # overlapping, one-sided and negative entries: an absent entry reads as 0
    a, b = _sp(tf), tf.sparse.reorder(_sp_unordered(tf))
    return tf.sparse.maximum(a, b), tf.sparse.minimum(a, b), \
        tf.sparse.maximum(a, tf.sparse.map_values(tf.negative, a))


@case()
def sparse_reorder_transpose(tf):
    st = _sp_unordered(tf)
    return tf.sparse.reorder(st), tf.sparse.transpose(st), \
        tf.sparse.transpose(tf.sparse.reorder(st), [1, 0])


@case()
def sparse_reshape_expand(tf):
    st = _sp(tf)
    return tf.sparse.reshape(st, [2, 6]), tf.sparse.reshape(st, [-1, 2]), \
        tf.sparse.expand_dims(st, 0), tf.sparse.expand_dims(st, -1)


@case(xla=False)
def sparse_slice_retain(tf):
    st = _sp(tf)
    return tf.sparse.slice(st, [0, 1], [3, 2]), tf.sparse.slice(st, [1, 0], [5, 5]), \
        tf.sparse.retain(st, tf.constant([True, False, False, True]))


@case()
def sparse_concat(tf):
    a, b = _sp(tf), tf.sparse.reorder(_sp_unordered(tf))
    return tf.sparse.concat(0, [a, b]), tf.sparse.concat(1, [a, b]), \
        tf.sparse.concat(-1, [a, b], expand_nonconcat_dims=False)


@case(xla=False)
def sparse_fill_empty_rows(tf):
    st = tf.sparse.SparseTensor([[0, 1], [2, 0], [2, 2]], tf.constant(_f32([1, 2, 3])),
                                [4, 3])
    return tf.sparse.fill_empty_rows(st, -1.0)


@case()
def sparse_to_indicator(tf):
    ids = tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 1]],
                                 tf.constant([3, 0, 3, 1], tf.int64), [3, 2])
    return tf.sparse.to_indicator(ids, 4)


@case()
def sparse_gradients(tf):
    values = tf.constant(_f32([1.5, -2, 3, 0.25]))
    b = tf.constant(_f32(np.arange(8).reshape(4, 2) - 3))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([values, b])
        st = tf.sparse.SparseTensor([[0, 1], [0, 3], [2, 0], [2, 2]], values, [3, 4])
        dense = tf.sparse.to_dense(st)
        y1 = tf.reduce_sum(dense * tf.constant(_f32(np.arange(12).reshape(3, 4))))
        y2 = tf.reduce_sum(tf.sparse.sparse_dense_matmul(st, b) * tf.constant(
            _f32([[1, 2], [3, 4], [5, 6]])))
    return tape.gradient(y1, values), tape.gradient(y2, values), tape.gradient(y2, b)


@case()
def sparse_elementwise(tf):
    st = _sp(tf)
    dense = tf.constant(_f32(np.arange(12).reshape(3, 4) - 5))
    return st * dense, st * tf.constant(_f32([1, 2, 3, 4])), st / 2.0, \
        tf.sparse.map_values(tf.square, st), tf.sparse.map_values(tf.add, st, st)


@case(xla=False)
def sparse_segments(tf):
    data = tf.constant(_f32(np.arange(12).reshape(4, 3) - 4))
    ix, ids = tf.constant([0, 2, 2, 3]), tf.constant([0, 0, 2, 2])
    return tf.sparse.segment_sum(data, ix, ids), tf.sparse.segment_mean(data, ix, ids), \
        tf.sparse.segment_sqrt_n(data, ix, ids), \
        tf.sparse.segment_sum(data, ix, tf.constant([0, 0, 3, 3]), num_segments=5), \
        tf.sparse.segment_mean(data, ix, tf.constant([0, 1, 1, 3]), num_segments=5)


@case(xla=False)
def sparse_from_dense_gradient(tf):
    d = tf.constant(_f32([[0, 1, 0], [2, 0, -2]]))
    with tf.GradientTape() as tape:
        tape.watch(d)
        st = tf.sparse.from_dense(d)
        y = tf.reduce_sum(st.values * tf.constant(_f32([1, 2, 3])))
    return tape.gradient(y, d)


@case()
def sparse_function_argument(tf):
    @tf.function
    def f(st):
        return tf.sparse.reduce_sum(st, axis=1), tf.sparse.transpose(st)
    return f(_sp(tf))


# --- RaggedTensor -----------------------------------------------------------------------------
def _rt(tf):
    return tf.ragged.constant([[1.0, 2.0, 3.0], [], [4.0, 5.0]])


@case()
def ragged_basics(tf):
    rt = _rt(tf)
    return rt, rt.row_lengths(), rt.row_splits, rt.flat_values, rt.values, rt.nrows(), \
        rt.bounding_shape()


@case(xla=False)
def ragged_to_tensor(tf):
    rt = _rt(tf)
    return rt.to_tensor(), rt.to_tensor(default_value=-1.0), rt.to_tensor(shape=[2, 2]), \
        rt.to_tensor(shape=[4, 5]), rt.to_tensor(shape=[None, 2])


@case()
def ragged_to_tensor_static(tf):
    rt = _rt(tf)
    return rt.to_tensor(shape=[2, 2]), rt.to_tensor(default_value=-1.0, shape=[4, 5]), \
        tf.reduce_sum(rt, axis=1), tf.reduce_mean(rt, axis=1), tf.reduce_max(rt, axis=1), \
        tf.reduce_sum(rt)


@case()
def ragged_factories(tf):
    v = tf.constant(_f32([1, 2, 3, 4, 5]))
    R = tf.RaggedTensor
    return R.from_row_lengths(v, [2, 0, 3]), R.from_row_splits(v, [0, 1, 1, 5]), \
        R.from_value_rowids(v, [0, 0, 2, 2, 2], nrows=4), \
        R.from_value_rowids(v, [0, 1, 1, 1, 3])


@case(xla=False)
def ragged_from_tensor(tf):
    t = tf.constant(_f32([[1, 2, 0], [0, 0, 0], [3, 0, 4]]))
    R = tf.RaggedTensor
    return R.from_tensor(t), R.from_tensor(t, lengths=[1, 0, 3]), R.from_tensor(t, padding=0.0)


@case(xla=False)
def ragged_nested(tf):
    rt = tf.ragged.constant([[[1, 2], [3]], [], [[4], [5, 6, 7]]])
    return rt, rt.to_tensor(), rt.flat_values, rt.nested_row_splits


@case(xla=False)
def ragged_getitem(tf):
    rt = _rt(tf)
    return rt[0], rt[2], rt[-1], rt[1:], rt[::2], rt[0, 1], rt[2, -1]


@case()
def ragged_elementwise(tf):
    rt = _rt(tf)
    return rt + rt, rt * 2.0, 1.0 - rt, rt / rt, -rt, \
        tf.ragged.map_flat_values(tf.math.exp, rt), tf.ragged.map_flat_values(tf.square, rt)


@case(xla=False)
def ragged_range(tf):
    starts = tf.constant([4, 0, -2, 3])
    return tf.ragged.range(starts), tf.ragged.range(starts, 6, 2), \
        tf.ragged.range([1, 5], [7, 2], [2, -1]), tf.ragged.range(3), \
        tf.ragged.range([0., 1.], 2.5, 0.5), \
        tf.ragged.range(tf.constant([2, 0], tf.int64), row_splits_dtype=tf.int32)


@case(xla=False)
def ragged_reductions(tf):
    rt = _rt(tf)
    return tf.reduce_sum(rt, axis=1), tf.reduce_mean(rt, axis=1), tf.reduce_max(rt, axis=1), \
        tf.reduce_sum(rt, axis=0), tf.reduce_sum(rt), tf.reduce_max(rt, axis=0), \
        tf.reduce_mean(rt, axis=0)


@case(xla=False)
def ragged_strings_split(tf):
    return tf.strings.split(tf.constant(["a bc d", "", "e"])), \
        tf.strings.split(tf.constant(["a,b,,c", "d"]), sep=",")


@case()
def ragged_gradient(tf):
    flat = tf.constant(_f32([1, 2, 3, 4, 5]))
    with tf.GradientTape() as tape:
        tape.watch(flat)
        rt = tf.RaggedTensor.from_row_lengths(flat, [3, 0, 2])
        dense = (rt * rt).to_tensor(shape=[3, 3])
        y = tf.reduce_sum(dense * tf.constant(_f32([[1, 2, 3], [4, 5, 6], [7, 8, 9]]))) + \
            tf.reduce_sum(tf.reduce_sum(rt, axis=1) * tf.constant(_f32([1, 10, 100])))
    return tape.gradient(y, flat)


@case()
def ragged_function_argument(tf):
    @tf.function
    def f(rt):
        return rt * 2.0, tf.reduce_sum(rt, axis=1)
    return f(_rt(tf))


@case()
def ragged_math_dispatch(tf):
    rt = _rt(tf)
    return tf.math.exp(rt), tf.abs(-rt), tf.math.maximum(rt, 2.5), tf.add(3.0, rt), \
        tf.math.multiply(rt, rt), tf.math.pow(rt, 2.0), tf.math.sqrt(rt), \
        tf.math.greater(rt, 2.0), rt >= 4.0, rt // 2.0, rt % 2.0, rt ** 2.0


@case()
def ragged_dense_broadcast(tf):
    rt = tf.ragged.constant([[[1.0, 2.0], [3.0, 4.0]], [], [[5.0, 6.0]]], ragged_rank=1)
    per_row = tf.constant(_f32([[10], [20], [30]]))
    return rt + tf.constant(_f32([100, 200])), _rt(tf) * per_row, rt * 2.0


@case()
def ragged_more_reductions(tf):
    rt = _rt(tf)
    flags = tf.ragged.constant([[True, False], [], [True, True]])
    return tf.reduce_min(rt, axis=1), tf.reduce_prod(rt, axis=1), \
        tf.reduce_any(flags, axis=1), tf.reduce_all(flags, axis=1), tf.reduce_min(rt)


@case()
def ragged_spec_signature(tf):
    @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.float32)])
    def f(rt):
        return tf.reduce_sum(rt, axis=1), tf.reduce_max(rt, axis=1), tf.math.exp(rt) * 2.0
    return f(_rt(tf)), f(tf.ragged.constant([[1.0], [2.0, 3.0, 4.0], [], [5.0]]))


# --- gradients through each composite function (weights 1..7 / 4 on every float component) ---
def _components(value):
    """The float tensors of a result: a composite's values, a tensor itself."""
    name = type(value).__name__
    if name in ("SparseTensor", "IndexedSlices"):
        return [value.values]
    if name == "RaggedTensor":
        return [value.flat_values]
    if isinstance(value, (list, tuple)):
        return [c for v in value for c in _components(v)]
    return [value] if value.dtype.is_floating else []


def _weighted(tf, t):
    if t.shape.is_fully_defined():   # XLA: the weights' shape must be static
        n = int(np.prod(t.shape.as_list()))
        position = tf.constant(((np.arange(n) % 7 + 1) / 4).astype(t.dtype.as_numpy_dtype))
    else:
        position = tf.cast(tf.range(tf.size(t)) % 7 + 1, t.dtype) / 4
    return tf.reduce_sum(t * tf.reshape(position, tf.shape(t)))


def _grads(tf, fn, *xs):
    """d(sum of each float component * weights)/d(each of xs)."""
    xs = [tf.constant(_f32(x)) for x in xs]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        loss = tf.add_n([_weighted(tf, c) for c in _components(fn(*xs))])
    return tape.gradient(loss, xs)


_IX = [[0, 1], [0, 3], [2, 0], [2, 2]]
_IX_UNORDERED = [[2, 3], [0, 1], [1, 0], [0, 0]]
_IX_OVERLAP = [[0, 0], [0, 1], [1, 0], [2, 2]]   # canonical order, two entries shared with _IX
_V = [1.5, -2, 3, 0.25]


def _st(tf, values, indices=None):
    return tf.sparse.SparseTensor(indices or _IX, values, [3, 4])


@case()
def composite_static_shapes(tf):
    """The static shapes while tracing, as tensors (-1 for an unknown dim)."""
    shapes = (_st(tf, tf.constant(_f32(_V))).get_shape(),
              tf.RaggedTensor.from_row_lengths(tf.constant(_f32([1, 2, 3])), [2, 0, 1])
              .get_shape())
    return [tf.constant([-1 if d is None else d for d in s.as_list()]) for s in shapes]


@case()
def grad_sparse_add(tf):
    dense = _f32(np.arange(12).reshape(3, 4) - 5)
    return _grads(tf, lambda a, d: tf.sparse.add(_st(tf, a), d), _V, dense)


@case(xla=False)
def grad_sparse_add_sparse(tf):
    return _grads(tf, lambda a, b: tf.sparse.add(_st(tf, a), _st(tf, b, _IX_OVERLAP)),
                  _V, [4, 5, -6, 7])


@case()
def grad_sparse_reorder_transpose_reshape(tf):
    return _grads(tf, lambda v: tf.sparse.reorder(_st(tf, v, _IX_UNORDERED)), _V), \
        _grads(tf, lambda v: tf.sparse.transpose(_st(tf, v, _IX_UNORDERED), [1, 0]), _V), \
        _grads(tf, lambda v: tf.sparse.reshape(_st(tf, v), [2, 6]), _V), \
        _grads(tf, lambda v: tf.sparse.expand_dims(_st(tf, v), -1), _V)


@case()
def grad_sparse_concat_map_values(tf):
    return _grads(tf, lambda a, b: tf.sparse.concat(1, [_st(tf, a), _st(tf, b)]), _V,
                  [4, 5, -6, 7]), \
        _grads(tf, lambda v: tf.sparse.map_values(tf.square, _st(tf, v)), _V), \
        _grads(tf, lambda v: _st(tf, v).with_values(v * v), _V), \
        _grads(tf, lambda v: tf.SparseTensor.from_value(_st(tf, v)), _V)


@case()
def grad_sparse_reduce(tf):
    return _grads(tf, lambda v: tf.sparse.reduce_sum(_st(tf, v), axis=1), _V), \
        _grads(tf, lambda v: tf.sparse.reduce_sum(_st(tf, v)), _V)


@case(xla=False)
def grad_sparse_slice(tf):
    return _grads(tf, lambda v: tf.sparse.slice(_st(tf, v), [0, 1], [3, 2]), _V)


@case(xla=False)
def grad_sparse_retain_fill_empty_rows(tf):
    return _grads(tf, lambda v: tf.sparse.retain(_st(tf, v), [True, False, False, True]), _V), \
        _grads(tf, lambda v: tf.sparse.fill_empty_rows(_st(tf, v), -1.0)[0], _V)


@case()
def grad_sparse_segments(tf):
    data = _f32(np.arange(12).reshape(4, 3) - 4)
    ix, ids = tf.constant([0, 2, 2, 3]), tf.constant([0, 0, 2, 2])
    return [_grads(tf, lambda d: f(d, ix, ids, num_segments=4), data) for f in (
        tf.sparse.segment_sum, tf.sparse.segment_mean, tf.sparse.segment_sqrt_n)]


@case()
def grad_ragged_constructors(tf):
    flat = [1, 2, 3, 4, 5]
    return _grads(tf, lambda v: tf.RaggedTensor.from_row_splits(v, [0, 3, 3, 5]) * 2.0, flat), \
        _grads(tf, lambda v: tf.RaggedTensor.from_value_rowids(v, [0, 0, 2, 2, 2]), flat), \
        _grads(tf, lambda d: tf.RaggedTensor.from_tensor(d), [[1, 2], [3, 4]]), \
        _grads(tf, lambda v: tf.RaggedTensor.from_row_lengths(v, [2, 3]).with_values(v * v),
               flat), \
        _grads(tf, lambda v: tf.ragged.map_flat_values(
            tf.sin, tf.RaggedTensor.from_row_lengths(v, [1, 4])), flat)


def encode(value):
    """A result as JSON: tensors as {dtype, shape, value}; composites by their components;
    shapes as lists; Python values as they are."""
    name = type(value).__name__
    if name in ("IndexedSlices", "SparseTensor"):
        kind = "slices" if name == "IndexedSlices" else "sparse"
        return {kind: [encode(value.values), encode(value.indices),
                       encode(value.dense_shape)]}
    if name == "RaggedTensor":
        return {"ragged": [encode(value.flat_values),
                           [encode(s) for s in value.nested_row_splits]]}
    if name == "TensorShape":
        return {"shape": None if value.rank is None else value.as_list()}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if hasattr(value, "numpy") and hasattr(value, "dtype"):
        a = value.numpy()
        if a.dtype.kind in "SO":
            v = np.vectorize(lambda b: b.decode(), otypes=[object])(a).tolist() if a.size \
                else a.tolist()
        else:
            v = a.tolist()
        return {"dtype": value.dtype.name, "shape": list(a.shape), "value": v}
    return value


@case(xla=False)
def sparse_reduce_output_is_sparse(tf):
    # The positions some entry reduced into, a zero sum (row 0: 1.5 - 1.5) kept; every axis form.
    st = tf.sparse.SparseTensor(_IX, _f32([1.5, -1.5, 3, -2]), [3, 4])
    return [reduction(st, axis, keepdims=keep, output_is_sparse=True)
            for reduction in (tf.sparse.reduce_sum, tf.sparse.reduce_max)
            for axis, keep in ((1, None), (0, None), (-1, True), (None, None))]


@case(xla=False)
def sparse_fill_empty_rows_of_a_batch_unknown_while_tracing(tf):
    # Keras's sparse matmul fills the rows of a batch traced as [None, 3]; rows 0, 2, 4 empty
    fill = tf.function(lambda s: tf.sparse.fill_empty_rows(s, -1.0),
                       input_signature=[tf.SparseTensorSpec([None, 3], tf.float32)])
    filled, empty = fill(tf.SparseTensor([[1, 2], [3, 0], [3, 1]], _f32([1, 2, 3]), [5, 3]))
    return [filled, empty]


@case()
def sparse_shape_size_rank(tf):
    # the dense shape's, not the components'
    st = tf.SparseTensor([[0, 1], [2, 0]], _f32([1, 2]), [3, 4])
    return [tf.shape(st), tf.shape(st, out_type=tf.int64), tf.size(st), tf.rank(st)]


@case()
def row_partition_encodings(tf):
    # empty rows first, between and last; int32 kept from the splits or asked for
    rp = tf.experimental.RowPartition
    ids = rp.from_value_rowids(tf.constant([0, 0, 2, 3], tf.int64), nrows=5)
    lengths = rp.from_row_lengths([2, 0, 1])
    splits = rp.from_row_splits(tf.constant([0, 3, 3], tf.int32))
    empty = rp.from_value_rowids(tf.constant([], tf.int64), nrows=2)
    return [ids.row_splits(), ids.row_lengths(), ids.value_rowids(), ids.nrows(), ids.nvals(),
            lengths.row_splits(), splits.row_lengths(), splits.nrows(),
            empty.row_splits(), empty.value_rowids(),
            rp.from_row_lengths([2, 1], dtype=tf.int32).row_splits(),
            rp.from_value_rowids([1, 1, 1]).row_splits()]


@case(xla=False)
def row_partition_rows_of_lengths(tf):
    # how many values there are is the lengths' sum: a value, so no static shape for XLA
    rp = tf.experimental.RowPartition
    return [rp.from_row_lengths([2, 0, 1]).value_rowids(), rp.from_row_lengths([]).nvals(),
            rp.from_row_splits(tf.constant([0, 0, 3], tf.int32)).value_rowids()]


@case(xla=False)
def ragged_gather_rows(tf):
    # repeated, empty and reordered rows; one row (its values); no rows; a nested ragged;
    # the gradient reaches each gathered value once per pick
    rt = tf.RaggedTensor.from_row_lengths(_f32([1, 2, 3, 4, 5]), [2, 0, 3])
    nested = tf.RaggedTensor.from_row_lengths(rt, [1, 2])
    return [tf.gather(rt, [2, 0, 2, 1]), tf.gather(rt, 2), tf.gather(rt, tf.constant([], tf.int32)),
            tf.gather(nested, [1, 1, 0]), tf.gather(rt, tf.constant(0, tf.int64)),
            _grads(tf, lambda v: tf.gather(tf.RaggedTensor.from_row_lengths(v, [2, 0, 3]),
                                           [2, 0, 2]), [1, 2, 3, 4, 5])]


@case(xla=False)
def unicode_of_a_vector_is_ragged(tf):
    # one row per string: an empty string between, two- and three-byte characters, UTF-16
    # input, an empty vector; encoding the ragged code points back
    x = tf.constant(["h\u00e9llo", "", "\u20acb"])
    points = tf.strings.unicode_decode(x, "UTF-8")
    return [tf.strings.unicode_split(x, "UTF-8"), points,
            list(tf.strings.unicode_decode_with_offsets(x, "UTF-8")),
            list(tf.strings.unicode_split_with_offsets(x, "UTF-8")),
            tf.strings.unicode_decode(tf.constant([b"\x00h\x20\xac", b""]), "UTF-16-BE"),
            tf.strings.unicode_encode(points, "UTF-8"),
            tf.strings.unicode_split(tf.constant([], tf.string), "UTF-8")]
