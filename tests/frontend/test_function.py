"""`function`: tracing, the cache key (TF's trace types), signatures, outputs, captures."""
import collections
import logging

import numpy as np
import pytest

import flowjit as tf
from helpers import shown


def test_seed_dense_layer_eager_traced_and_run_eagerly():
    rng = np.random.default_rng(0)
    w_init = rng.normal(size=(784, 10)).astype(np.float32) * 0.05
    w = tf.Variable(w_init)
    b = tf.Variable(np.zeros(10, np.float32))

    def dense(x):
        return tf.nn.relu(tf.matmul(x, w) + b)

    traced = tf.function(dense, input_signature=[tf.TensorSpec([None, 784], tf.float32)])
    for batch in (3, 7):
        x = rng.normal(size=(batch, 784)).astype(np.float32)
        expected = np.maximum(x @ w_init, 0)
        np.testing.assert_allclose(dense(tf.constant(x)).numpy(), expected, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(traced(tf.constant(x)).numpy(), expected, rtol=1e-5,
                                   atol=1e-6)
    assert traced.experimental_get_tracing_count() == 1
    tf.config.run_functions_eagerly(True)
    try:
        assert tf.config.functions_run_eagerly()
        x = rng.normal(size=(2, 784)).astype(np.float32)
        np.testing.assert_allclose(traced(tf.constant(x)).numpy(), np.maximum(x @ w_init, 0),
                                   rtol=1e-5, atol=1e-6)
        assert traced.experimental_get_tracing_count() == 1  # no trace while eager
    finally:
        tf.config.run_functions_eagerly(False)


def test_trace_count_per_trace_type():
    calls = []

    @tf.function
    def f(x, scale=1.0, opts=None):
        calls.append(1)
        return x * scale

    f(tf.constant([1.0, 2.0]))
    f(tf.constant([3.0, 4.0]))                      # same shape/dtype: cached
    assert f.experimental_get_tracing_count() == 1
    f(tf.constant([1.0, 2.0, 3.0]))                 # new shape
    assert f.experimental_get_tracing_count() == 2
    f(tf.constant([1.0, 2.0], tf.float64), 2.0)     # new dtype (scale float64 const)
    assert f.experimental_get_tracing_count() == 3
    f(tf.constant([1.0, 2.0]), 2.0)                 # Python scalar by value
    f(tf.constant([1.0, 2.0]), 2.0)
    assert f.experimental_get_tracing_count() == 4
    f(tf.constant([1.0, 2.0]), scale=3.0)           # kwargs are keyed like positional
    assert f.experimental_get_tracing_count() == 5
    f(tf.constant([1.0, 2.0]), 3.0)
    assert f.experimental_get_tracing_count() == 5
    f(tf.constant([1.0, 2.0]), 3.0, {"a": 1})       # dict structure and leaves
    f(tf.constant([1.0, 2.0]), 3.0, {"a": 1})
    f(tf.constant([1.0, 2.0]), 3.0, {"a": 2})
    assert f.experimental_get_tracing_count() == 7
    assert len(calls) == 7


def test_numpy_arrays_are_keyed_like_tensors():
    @tf.function
    def f(x):
        return x + 1

    a = np.arange(3, dtype=np.int32)
    np.testing.assert_array_equal(f(a).numpy(), a + 1)
    np.testing.assert_array_equal(f(a * 2).numpy(), a * 2 + 1)
    assert f.experimental_get_tracing_count() == 1


def test_nested_structures_and_outputs():
    Point = collections.namedtuple("Point", "x y")

    @tf.function
    def f(p, pair, d):
        return {"sum": p.x + p.y, "list": [pair[0] * 2, None, "tag"], "n": 3,
                "pt": Point(d["a"], d["b"])}

    out = f(Point(tf.constant(1.0), tf.constant(2.0)), (tf.constant(3.0), 7),
            {"a": tf.constant(4), "b": tf.constant(5)})
    assert float(out["sum"]) == 3.0
    assert float(out["list"][0]) == 6.0 and out["list"][1] is None and out["list"][2] == "tag"
    assert out["n"] == 3
    assert isinstance(out["pt"], Point) and int(out["pt"].x) == 4 and int(out["pt"].y) == 5


def test_input_signature_none_dims_one_trace_and_mismatch_errors():
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def f(x):
        assert x.shape.as_list() == [None, 3]
        return tf.reduce_sum(x, axis=1)

    for n in (1, 4, 9):
        x = np.random.default_rng(n).normal(size=(n, 3)).astype(np.float32)
        np.testing.assert_allclose(f(x).numpy(), x.sum(1), rtol=1e-5)
    assert f.experimental_get_tracing_count() == 1
    # TF 2.21: TypeError "Binding inputs to tf.function failed due to `Can not cast
    # TensorSpec(shape=(2, 4), ...) to TensorSpec(shape=(None, 3), ...)`" (shape and dtype alike)
    with pytest.raises(TypeError, match=r"Can not cast TensorSpec\(shape=\(2, 4\).*'x'"):
        f(tf.zeros([2, 4]))
    with pytest.raises(TypeError, match=r"Can not cast .*int32.*'x'"):
        f(tf.zeros([2, 3], tf.int32))
    with pytest.raises(TypeError):
        f(tf.zeros([2, 3]), tf.zeros([2, 3]))


def test_get_concrete_function_with_specs_and_signature():
    @tf.function
    def f(x, y):
        return x @ y

    cf = f.get_concrete_function(tf.TensorSpec([None, 4]), tf.TensorSpec([4, 2]))
    a = np.ones((5, 4), np.float32)
    b = np.ones((4, 2), np.float32)
    np.testing.assert_allclose(cf(tf.constant(a), tf.constant(b)).numpy(), a @ b)
    assert f.experimental_get_tracing_count() == 1
    np.testing.assert_allclose(f(tf.constant(a), tf.constant(b)).numpy(), a @ b)
    assert f.experimental_get_tracing_count() == 1   # the general trace serves the call
    args, kwargs = cf.structured_input_signature
    assert args[0].shape.as_list() == [None, 4] and args[1].dtype == tf.float32
    assert [t.shape.as_list() for t in cf.inputs] == [[None, 4], [4, 2]]
    assert cf.outputs[0].shape.as_list() == [None, 2]
    text = f.pretty_printed_concrete_signatures()
    assert "x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(None, 4)" in text


def test_reduce_retracing_relaxes_dims():
    @tf.function(reduce_retracing=True)
    def f(x):
        return x * 2

    f(tf.zeros([2]))
    f(tf.zeros([3]))      # second distinct shape: the trace relaxes to [None]
    f(tf.zeros([4]))
    f(tf.zeros([10]))
    assert f.experimental_get_tracing_count() == 2
    cf = f.get_concrete_function(tf.zeros([5]))
    assert cf.inputs[0].shape.as_list() == [None]


def test_retracing_warning_names_the_argument(caplog):
    @tf.function
    def f(x, n):
        return x * n

    with caplog.at_level(logging.WARNING, logger="flowjit"):
        for i in range(6):
            f(tf.constant(1.0), i)
    msgs = [r.getMessage() for r in caplog.records if "retracing" in r.getMessage()]
    assert msgs, "expected TF's frequent-retracing warning"
    assert "5 out of the last 5 calls" in msgs[0] and "'n'" in msgs[0]
    assert "argument 'n' changed from int(4) to int(5)" in f.explain_retrace()


def test_clear_cache_and_bounded_cache():
    @tf.function
    def f(x):
        return x + 1

    f(tf.constant(1))
    f.clear_cache()
    f(tf.constant(1))
    assert f.experimental_get_tracing_count() == 2
    for i in range(80):
        f(tf.zeros([i + 1]))
    assert len(f._traces) <= 64 and len(f._cache) <= 64


def test_captures_bind_outer_tensors():
    c = tf.constant([10.0, 20.0])

    @tf.function
    def f(x):
        return x + c

    np.testing.assert_allclose(f(tf.constant([1.0, 2.0])).numpy(), [11.0, 22.0])
    cf = f.get_concrete_function(tf.constant([1.0, 2.0]))
    assert len(cf.captured_inputs) == 1 and cf.captured_inputs[0] is c


def test_bool_of_symbolic_tensor_raises_pointing_to_cond():
    @tf.function(autograph=False)
    def f(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match=r"cond.*AutoGraph"):
        f(tf.constant(1.0))
    try:
        f(tf.constant(1.0))
    except TypeError as e:
        assert __file__ in shown(e)


def test_shape_errors_raise_at_trace_time_with_user_line():
    @tf.function
    def f(x, y):
        return x + y  # the failing line

    # TF 2.21: ValueError "Dimensions must be equal, but are 3 and 4 for '{{node add}} = ..."
    with pytest.raises(ValueError, match=r"Dimensions must be equal, but are 3 and 4 for "
                                         r"'{{node add}}'") as info:
        f(tf.zeros([3]), tf.zeros([4]))
    assert f'File "{__file__}", line {f.python_function.__code__.co_firstlineno + 2}, in f' \
        in str(info.value)
    # TF 2.21: TypeError "Input 'y' of 'AddV2' Op has type int32 that does not match ..."
    with pytest.raises(TypeError, match=r"float32.*int32"):
        f(tf.zeros([3]), tf.zeros([3], tf.int32))


def test_symbolic_tensor_surface():
    seen = {}

    @tf.function(autograph=False)  # AutoGraph would turn len() into a tensor op
    def f(x):
        seen["shape"] = x.shape.as_list()
        seen["repr"] = repr(x)
        y = x * 2
        seen["dtype"] = y.dtype
        # TF 2.21: AttributeError "'SymbolicTensor' object has no attribute 'numpy'"
        with pytest.raises(AttributeError, match="'SymbolicTensor' object has no attribute"):
            y.numpy()
        seen["has_numpy"] = hasattr(y, "numpy")
        with pytest.raises(TypeError):
            len(y)
        return y

    f(tf.zeros([2, 3]))
    assert seen["shape"] == [2, 3] and seen["dtype"] == tf.float32
    assert seen["has_numpy"] is False  # TF 2.21: hasattr(symbolic, "numpy") is False
    assert seen["repr"].startswith("<tf.Tensor 'x:0' shape=(2, 3) dtype=float32>")


def test_methods_trace_per_instance():
    class Model:
        def __init__(self, k):
            self.k = tf.Variable(float(k))

        @tf.function
        def __call__(self, x):
            return x * self.k

    a, b = Model(2), Model(3)
    assert float(a(tf.constant(1.0))) == 2.0
    assert float(b(tf.constant(1.0))) == 3.0
    a.k.assign(5.0)
    assert float(a(tf.constant(1.0))) == 5.0


def test_nested_function_calls_inline():
    @tf.function
    def inner(x):
        return x * 3

    @tf.function
    def outer(x):
        return inner(x) + 1

    assert float(outer(tf.constant(2.0))) == 7.0
    assert float(inner(tf.constant(2.0))) == 6.0


def test_compiler_ir_graph_and_dataflow_stages():
    @tf.function
    def f(x):
        return tf.nn.relu(x * 2.0)

    ir = f.experimental_get_compiler_ir(tf.zeros([2, 3]))
    graph = ir(stage="graph")
    assert "relu(mul)" in graph and "float32[2,3]" in graph
    df = ir(stage="dataflow")
    assert "func.func @f(%0: tensor<2x3xf32>)" in df and "df.relu" in df
    assert 'loc("f/relu"' in df
    with pytest.raises(ValueError, match=r"Unknown compiler IR stage 'nope'.*graph.*dataflow"):
        ir(stage="nope")


def test_compiler_ir_with_none_dims():
    @tf.function(input_signature=[tf.TensorSpec([None, 4])])
    def f(x):
        return x + 1.0

    assert "tensor<?x4xf32>" in f.experimental_get_compiler_ir()(stage="dataflow")


def test_name_scopes_prefix_node_names():
    @tf.function
    def f(x):
        with tf.name_scope("dense"):
            y = x * 2.0
            with tf.name_scope("act"):
                y = tf.nn.relu(y)
        return y + 1.0

    graph = f.experimental_get_compiler_ir(tf.ones([2]))(stage="graph")
    assert "dense/mul = mul(" in graph and "dense/act/relu = relu(" in graph
    assert "\n  add = add(" in graph
    with tf.name_scope("eager"):           # a no-op eagerly
        assert float(tf.constant(1.0) + 1.0) == 2.0
