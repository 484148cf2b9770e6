"""The everyday TF2 idioms that compute shapes in the graph (`tf.shape(x)[0]`, ...), run in
eager mode, in the graph executor and under XLA, with static, partly and fully unknown input
shapes; values against NumPy, static shapes at trace time against TF 2.21's."""
import numpy as np
import pytest

import flowjit as tf

X = np.arange(12, dtype=np.float32).reshape(4, 3) - 5.5
LABELS = np.array([0, 2, 1, 2], np.int32)
V = np.array([1.0, 2.0, 3.0], np.float32)
SEED = [1, 2]

# name: (idiom, NumPy reference, TF 2.21's static output shape when x is traced as
# [4, 3], [None, 3] and [None, None]).
IDIOMS = {
    "reshape_batch": (lambda x, l: tf.reshape(x, [tf.shape(x)[0], -1]),
                      lambda x, l: x.reshape(4, -1),
                      [(4, 3), (None, None), (None, None)]),
    "zeros_shape": (lambda x, l: tf.zeros(tf.shape(x)), lambda x, l: np.zeros_like(x),
                    [(4, 3), (None, 3), (None, None)]),
    "ones_prefix": (lambda x, l: tf.ones(tf.shape(x)[:1]), lambda x, l: np.ones(4, np.float32),
                    [(4,), (None,), (None,)]),
    "fill": (lambda x, l: tf.fill(tf.shape(x), 2.0), lambda x, l: np.full_like(x, 2.0),
             [(4, 3), (None, 3), (None, None)]),
    "broadcast_to": (lambda x, l: tf.broadcast_to(tf.constant(V), tf.shape(x)),
                     lambda x, l: np.broadcast_to(V, x.shape),
                     [(4, 3), (None, 3), (None, 3)]),
    "tile": (lambda x, l: tf.tile(x, [tf.shape(x)[0], 1]), lambda x, l: np.tile(x, (4, 1)),
             [(16, 3), (None, 3), (None, None)]),
    "slice": (lambda x, l: tf.slice(x, [0, 0], [tf.shape(x)[0], 2]), lambda x, l: x[:, :2],
              [(4, 2), (None, 2), (None, 2)]),
    "index_half": (lambda x, l: x[:, :tf.shape(x)[1] // 2], lambda x, l: x[:, :1],
                   [(4, 1), (None, 1), (None, None)]),
    "index_tail": (lambda x, l: x[tf.shape(x)[0] - 2:], lambda x, l: x[2:],
                   [(2, 3), (None, 3), (None, None)]),
    # TF 2.21 gives an unknown rank for the last case; flowjit keeps the rank (more precise).
    "index_step": (lambda x, l: x[::tf.shape(x)[1] - 1], lambda x, l: x[::2],
                   [(2, 3), (None, 3), None]),
    "index_mixed": (lambda x, l: x[1:tf.shape(x)[0]:2, tf.shape(x)[1] - 1],
                    lambda x, l: x[1:4:2, 2], [(2,), (None,), (None,)]),
    "range": (lambda x, l: tf.range(tf.shape(x)[0]), lambda x, l: np.arange(4, dtype=np.int32),
              [(4,), (None,), (None,)]),
    "one_hot": (lambda x, l: tf.one_hot(l, tf.shape(x)[1]),
                lambda x, l: np.eye(3, dtype=np.float32)[l], [(4, 3), (4, 3), (4, None)]),
    "zeros_mixed": (lambda x, l: tf.zeros([tf.shape(x)[0], 3]),
                    lambda x, l: np.zeros((4, 3), np.float32), [(4, 3), (None, 3), (None, 3)]),
    "mean_by_hand": (lambda x, l: tf.reduce_sum(x, 0) / tf.cast(tf.shape(x)[0], tf.float32),
                     lambda x, l: x.mean(0), [(3,), (3,), (None,)]),
    "expand_dims": (lambda x, l: tf.expand_dims(x, tf.rank(x)), lambda x, l: x[..., None],
                    [(4, 3, 1), (None, 3, 1), (None, None, 1)]),
    "pad": (lambda x, l: tf.pad(x, [[0, tf.shape(x)[1]], [1, 1]]),
            lambda x, l: np.pad(x, [(0, 3), (1, 1)]), [(7, 5), (None, 5), (None, None)]),
    "reshape_concat": (lambda x, l: tf.reshape(x, tf.concat([tf.shape(x)[:1], [-1]], 0)),
                       lambda x, l: x.reshape(4, -1), [(4, 3), (None, None), (None, None)]),
    # The same samples as with a Python shape (flowjit's stream differs from TF's).
    "stateless_random": (lambda x, l: tf.random.stateless_normal(tf.shape(x), SEED),
                         lambda x, l: tf.random.stateless_normal([4, 3], SEED).numpy(),
                         [(4, 3), (None, 3), (None, None)]),
}
SIGNATURES = {"static": [4, 3], "batch": [None, 3], "unknown": [None, None]}


def _specs(shape):
    return [tf.TensorSpec(shape, tf.float32), tf.TensorSpec([4], tf.int32)]


@pytest.mark.parametrize("name", IDIOMS)
def test_idiom_values_in_every_mode(name):
    fn, ref, _ = IDIOMS[name]
    expected = ref(X, LABELS)
    runs = {"eager": fn}
    for sig, shape in SIGNATURES.items():
        runs[f"graph-{sig}"] = tf.function(fn, input_signature=_specs(shape))
        runs[f"xla-{sig}"] = tf.function(fn, input_signature=_specs(shape), jit_compile=True)
    for mode, run in runs.items():
        got = run(tf.constant(X), tf.constant(LABELS)).numpy()
        assert got.dtype == expected.dtype, mode
        np.testing.assert_allclose(got, expected, rtol=1e-6, err_msg=mode)


@pytest.mark.parametrize("name", IDIOMS)
def test_idiom_static_shapes_match_tf(name):
    fn, _, tf_shapes = IDIOMS[name]
    for shape, want in zip(SIGNATURES.values(), tf_shapes):
        out = tf.function(fn).get_concrete_function(*_specs(shape)).outputs[0]
        got = out.shape.as_tuple()
        if want is None:  # TF lost the rank; flowjit must agree on every known dim
            assert got is not None and all(d is None for d in got[:1]), got
        else:
            assert got == want, (shape, got, want)


def test_executor_runs_new_shapes_without_retracing():
    f = tf.function(IDIOMS["tile"][0], input_signature=_specs([None, 3]))
    for n in (1, 2, 5):
        x = np.ones((n, 3), np.float32) * n
        np.testing.assert_array_equal(f(x, LABELS).numpy(), np.tile(x, (n, 1)))
    assert f.experimental_get_tracing_count() == 1


def test_xla_compiles_once_per_shape():
    f = tf.function(IDIOMS["reshape_concat"][0], input_signature=_specs([None, 3]),
                    jit_compile=True)
    for n in (2, 3, 2):
        x = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
        np.testing.assert_array_equal(f(x, LABELS).numpy(), x)
    assert f.experimental_get_tracing_count() == 1
    assert f.compile_count() == 2  # the shape values fold to constants per concrete shape


@pytest.mark.parametrize("jit", [False, True], ids=["executor", "xla"])
def test_random_normal_with_a_computed_shape(jit):
    @tf.function(input_signature=[tf.TensorSpec([None, 50], tf.float32)], jit_compile=jit)
    def f(x):
        return tf.random.normal(tf.shape(x), seed=3)

    out = f(np.zeros((40, 50), np.float32)).numpy()
    assert out.shape == (40, 50) and out.dtype == np.float32
    assert abs(out.mean()) < 0.1 and abs(out.std() - 1) < 0.1
    assert f(np.zeros((3, 50), np.float32)).shape == (3, 50)
    assert f.get_concrete_function().outputs[0].shape.as_tuple() == (None, 50)


# --- errors: TF's classes; messages name the op, the shapes and the user's line ------------
def _bad_reshape(x, l):
    return tf.reshape(x, [tf.shape(x)[0], 5])


def test_static_shape_error_raises_valueerror_while_tracing():
    # TF 2.21: ValueError "Cannot reshape a tensor with 6 elements to shape [2,5] ..."
    # (the user's line in the "in user code:" block, then TF's text, then the node and inputs)
    with pytest.raises(ValueError, match=r"(?s)test_shape_idioms.py.*Cannot reshape a tensor "
                                         r"with 6 elements to shape \[2,5\] \(10 elements\)"
                                         r".*reshape.*float32\[2,3\]"):
        tf.function(_bad_reshape)(np.zeros((2, 3), np.float32), LABELS)


@pytest.mark.parametrize("jit", [False, True], ids=["executor", "xla"])
def test_run_time_shape_error_raises_invalidargument(jit):
    # TF 2.21: InvalidArgumentError "Input to reshape is a tensor with 6 values, but the
    # requested shape has 10" (executor and XLA)
    f = tf.function(_bad_reshape, input_signature=_specs([None, 3]), jit_compile=jit)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"(?s)reshape.*6 values.*has 10.*test_shape_idioms.py"):
        f(np.zeros((2, 3), np.float32), LABELS)


def test_data_dependent_shape_under_xla_is_not_a_compile_time_constant():
    # TF 2.21: InvalidArgumentError "Input 0 to node `zeros` with op Fill must be a
    # compile-time constant."
    @tf.function(jit_compile=True)
    def f(x):
        return tf.zeros([tf.cast(tf.reduce_sum(x), tf.int32)])

    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"(?s)broadcast_to.*test_shape_idioms.py.*compile-time constant"
                             r".*reduce_sum"):
        f(np.ones((2, 3), np.float32))
    # the executor runs it: the size is known at run time
    assert tf.function(f.python_function)(np.ones((2, 3), np.float32)).shape == (6,)


@pytest.mark.parametrize("fn,cls,pattern", [
    # TF 2.21: TypeError "Value passed to parameter 'shape' has DataType float32 not in list
    # of allowed values: int32, int64"
    (lambda x: tf.reshape(x, tf.cast(tf.shape(x), tf.float32)), TypeError, "float32"),
    (lambda x: tf.zeros(tf.cast(tf.shape(x), tf.float32)), TypeError, "float32"),
    # TF 2.21: ValueError "Shape must be rank 2 but is rank 1 for '{{node Tile}} ..."
    (lambda x: tf.tile(x, [tf.shape(x)[0]]), ValueError, "tile"),
    # TF 2.21: ValueError "Shape must be rank 0 but is rank 1 for 'limit' ..."
    (lambda x: tf.range(tf.shape(x)), ValueError, "rank 0"),
], ids=["reshape-float", "zeros-float", "tile-rank", "range-rank"])
def test_bad_shape_arguments_while_tracing(fn, cls, pattern):
    with pytest.raises(cls, match=rf"(?s)test_shape_idioms.py.*{pattern}"):
        tf.function(fn)(np.zeros((4, 3), np.float32))


def test_bad_shape_argument_dtype_eagerly():
    # TF 2.21: InvalidArgumentError "Value for attr 'Tshape' of float is not in the list of
    # allowed values: int32, int64"
    with pytest.raises(tf.errors.InvalidArgumentError, match="reshape"):
        tf.reshape(tf.zeros([4, 3]), tf.constant([2.0, 6.0]))


# --- idioms whose result shape differs from the input's, against TF 2.21's recorded run -----
# (tools/record_shape_idioms.py runs tests/shape_idiom_cases.py under TF 2.21)
import json  # noqa: E402
import os  # noqa: E402

from shape_idiom_cases import INPUT_SHAPES, idioms  # noqa: E402
from shape_idiom_cases import SIGNATURES as CASE_SIGNATURES  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "..", "data", "shape_idioms.json")) as _f:
    RECORDED = json.load(_f)["idioms"]
NEW_IDIOMS = idioms(tf)


def _leaves(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _accepts(spec, shape):
    return spec is None or (len(spec) == len(shape) and
                            all(d is None or d == s for d, s in zip(spec, shape)))


def _runs(name, spec):
    """(mode, callable) pairs: eager once; the executor and XLA for the signature."""
    fn = NEW_IDIOMS[name]
    sig = [tf.TensorSpec(spec, tf.float32)]
    return [("graph", tf.function(fn, input_signature=sig)),
            ("xla", tf.function(fn, input_signature=sig, jit_compile=True))]


@pytest.mark.parametrize("sig", CASE_SIGNATURES)
@pytest.mark.parametrize("name", NEW_IDIOMS)
def test_reshaping_idioms_match_tf_for_every_batch(name, sig):
    spec = CASE_SIGNATURES[sig]
    cases = list(zip(INPUT_SHAPES, RECORDED[name]["values"]))
    if spec == "input":
        spec = list(INPUT_SHAPES[0])
    runs = _runs(name, spec) + ([("eager", NEW_IDIOMS[name])] if sig == "static" else [])
    ran = 0
    for shape, want in cases:
        if not _accepts(spec, shape):
            continue
        x = tf.constant(np.arange(np.prod(shape), dtype=np.float32).reshape(shape))
        for mode, run in runs:
            got = _leaves(run(x))
            assert [list(t.shape) for t in got] == [w["shape"] for w in want], (mode, shape)
            for t, w in zip(got, want):
                assert t.dtype.name == w["dtype"], (mode, shape)
                np.testing.assert_array_equal(t.numpy(), np.array(w["value"]),
                                              err_msg=f"{mode} {shape}")
        ran += 1
    assert ran >= (1 if sig == "static" else 2)
    assert runs[0][1].experimental_get_tracing_count() == 1


@pytest.mark.parametrize("sig", CASE_SIGNATURES)
@pytest.mark.parametrize("name", NEW_IDIOMS)
def test_reshaping_idioms_static_shapes_match_tf(name, sig):
    spec = CASE_SIGNATURES[sig]
    spec = list(INPUT_SHAPES[0]) if spec == "input" else spec
    cf = tf.function(NEW_IDIOMS[name]).get_concrete_function(tf.TensorSpec(spec, tf.float32))
    got = [None if t.shape.rank is None else t.shape.as_list()
           for t in _leaves(cf.structured_outputs)]
    assert got == RECORDED[name]["static_shapes"][sig]
