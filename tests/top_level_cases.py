"""Scenarios of TF's top-level non-op names (enums, DeviceSpec, gradient registration,
conversion functions, creator scopes, type specs), written once against a `tf` module:
`tools/record_tf_top_level.py` runs them under TF 2.21 into tests/data/tf_top_level.json and
tests/frontend/test_top_level_names.py runs them under flowjit. Each scenario returns plain
data (or raises: its class and text are the outcome)."""


def _enums(tf):
    return {"aggregation": [(m.name, m.value) for m in tf.VariableAggregation],
            "synchronization": [(m.name, m.value) for m in tf.VariableSynchronization],
            "repr": [repr(tf.VariableAggregation.SUM), str(tf.VariableSynchronization.ON_READ)],
            "by_value": str(tf.VariableAggregation(2)),
            "by_name": str(tf.VariableSynchronization["ON_WRITE"]),
            "methods": [tf.AggregationMethod.ADD_N, tf.AggregationMethod.DEFAULT,
                        tf.AggregationMethod.EXPERIMENTAL_TREE,
                        tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N]}


def _variable_policies(tf):
    out = []
    for sync, agg, trainable in [(None, None, None), ("ON_READ", "SUM", None),
                                 ("ON_READ", "MEAN", True), ("ON_WRITE", None, False),
                                 ("NONE", "ONLY_FIRST_REPLICA", None)]:
        v = tf.Variable(1.0, trainable=trainable,
                        synchronization=sync and tf.VariableSynchronization[sync],
                        aggregation=agg and tf.VariableAggregation[agg])
        out.append([v.synchronization.name, v.aggregation.name, v.trainable])
    return out


def _bad_aggregation(tf):
    return tf.Variable(1.0, aggregation="sum").aggregation.name


def _bad_synchronization(tf):
    return tf.Variable(1.0, synchronization=3, name="v").synchronization.name


def _aggregation_methods(tf):
    out = []
    for method in (None, tf.AggregationMethod.ADD_N, tf.AggregationMethod.EXPERIMENTAL_TREE,
                   tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N):
        @tf.function
        def grad(x, method=method):
            y = x * x + 3.0 * x + tf.sin(x)
            return tf.gradients(y, x, aggregation_method=method)[0]
        out.append(float(grad(tf.constant(0.5))))
    return out


def _bad_aggregation_method(tf):
    @tf.function
    def grad(x):
        return tf.gradients(x * x, x, aggregation_method=7)
    try:
        grad(tf.constant(1.0))
    except ValueError as e:   # TF's text adds the user's code before its own line
        return [line.strip() for line in str(e).splitlines()
                if "aggregation_method" in line and "ValueError" in line]


def _device_specs(tf):
    d = tf.DeviceSpec
    strings = ["/job:ps/replica:0/task:1/device:GPU:2", "/cpu:0", "/device:CPU:*",
               "/job:w/task:3", "", "/GPU:1", "gpu:0", "/device:TPU_SYSTEM:0", "/replica:2",
               "/job:a/job:b", "/device:cpu:1", "CPU", "/job:ps/gpu:*"]
    parsed = [[s.to_string(), s.job, s.replica, s.task, s.device_type, s.device_index]
              for s in map(d.from_string, strings)]
    full = d(job="ps", replica=0, task=1, device_type="cpu", device_index=2)
    a, b = d.from_string("/job:ps/cpu:0"), d.from_string("/task:2/device:GPU:1")
    return {"parsed": parsed, "repr": [repr(full), str(full)],
            "replace": full.replace(job="w", device_index=None).to_string(),
            "merged": [a.make_merged_spec(b).to_string(), b.make_merged_spec(a).to_string()],
            "parse_from_string": d.from_string("/job:ps").parse_from_string("/task:1").to_string(),
            "eq": [a == d.from_string("/job:ps/device:CPU:0"), a == "/job:ps/cpu:0", a == b,
                   hash(a) == hash(d.from_string("/job:ps/device:CPU:0"))],
            "coerced": [d(job=3).to_string(), d(task="3").to_string(),
                        d(device_index="1").to_string(), d(device_type="gpu").to_string(),
                        d(replica=-1).to_string()]}


def _device_spec_in_scope(tf):
    with tf.device(tf.DeviceSpec(device_type="CPU", device_index=0)):
        return float(tf.constant(2.0) * 2)


def _device_spec_errors(tf):
    out = []
    for spec in ["/task:x", "/foo:1", "/device:CPU", "/device:GPU:1/CPU:0"]:
        try:
            tf.DeviceSpec.from_string(spec)
        except ValueError as e:
            out.append(str(e))
    return out


def _device_spec_replace_unknown(tf):
    return tf.DeviceSpec().replace(foo=1)


def _device_spec_immutable(tf):
    tf.DeviceSpec(job="a").job = "b"


def _register_gradient(tf):
    @tf.RegisterGradient("FlowjitTestNoSuchOp")
    def _grad(op, grad):
        return grad
    out = [callable(_grad)]
    for op_type in ("FlowjitTestNoSuchOp", 3):
        try:
            tf.RegisterGradient(op_type)(_grad)
        except (KeyError, TypeError) as e:
            out.append([type(e).__name__, str(e).split(" (Previous")[0]])
    for op_type in (3, "FlowjitTestNoSuchOp"):
        try:
            tf.no_gradient(op_type)
        except (KeyError, TypeError) as e:
            out.append([type(e).__name__, str(e).split(" (Previous")[0]])
    out.append(tf.no_gradient("FlowjitTestNoSuchOp2"))
    return out


class _Point:
    def __init__(self, values):
        self.values = values


class _Odd:
    pass


class _Wrong:
    pass


def _conversion_functions(tf):
    calls = []

    def to_tensor(value, dtype=None, name=None, as_ref=False):
        calls.append([None if dtype is None else dtype.name, as_ref])
        return tf.constant(value.values, dtype=dtype)
    tf.register_tensor_conversion_function(_Point, to_tensor)
    tf.register_tensor_conversion_function(
        _Odd, lambda value, dtype=None, name=None, as_ref=False: 5)
    tf.register_tensor_conversion_function(
        _Odd, lambda value, dtype=None, name=None, as_ref=False: NotImplemented, priority=10)
    tf.register_tensor_conversion_function(
        _Wrong, lambda value, dtype=None, name=None, as_ref=False: tf.constant(1))
    p = _Point([1.0, 2.0])
    out = {"convert": tf.convert_to_tensor(p).numpy().tolist(),
           "float64": tf.convert_to_tensor(p, dtype=tf.float64).dtype.name,
           "add": tf.add(p, 1.0).numpy().tolist(), "radd": (tf.constant(1.0) + p).numpy().tolist(),
           "traced": tf.function(lambda x: x * tf.reduce_sum(p))(tf.constant(2.0)).numpy().tolist(),
           "calls": calls[:2]}
    errors = []
    for value, dtype in ((_Odd(), None), (_Wrong(), tf.float32)):
        try:
            tf.convert_to_tensor(value, dtype=dtype)
        except RuntimeError as e:   # the text names the function's repr; keep what follows
            errors.append(str(e).split(">", 1)[0][:36] + str(e).split("returned", 1)[1])
    out["errors"] = errors
    return out


def _conversion_refusals(tf):
    import numpy as np
    out = []
    for base, fn in ((int, len), (np.ndarray, len), ("x", len), ((_Point,), 3)):
        try:
            tf.register_tensor_conversion_function(base, fn)
        except TypeError as e:
            out.append(str(e))
    return out


def _creator_scopes(tf):
    seen = []

    def outer(next_creator, **kwargs):
        seen.append(["outer", kwargs["name"]])
        return next_creator(**kwargs)

    def inner(next_creator, **kwargs):
        seen.append(["inner", sorted(kwargs)])
        kwargs["initial_value"] = 7.0
        kwargs["trainable"] = False
        return next_creator(**kwargs)
    with tf.variable_creator_scope(outer):
        with tf.variable_creator_scope(inner):
            v = tf.Variable(1.0, name="vv")
        w = tf.Variable(2.0, name="ww")
    with tf.variable_creator_scope(lambda next_creator, **kwargs: "not a variable"):
        other = tf.Variable(1.0)
    u = tf.Variable(3.0)
    return [seen, float(v.numpy()), v.name, v.trainable, float(w.numpy()), other,
            float(u.numpy())]


class _Opaque:
    def __repr__(self):
        return "<opaque>"


def _type_specs_of_values(tf):
    import numpy as np
    values = [tf.constant([1, 2]), np.array([1.0, 2.0]), 3, 2.5, [1, 2], "s", None,
              tf.Variable(1.0), tf.SparseTensor([[0]], [1.0], [3]),
              tf.ragged.constant([[1], [2, 3]]), tf.data.Dataset.range(3),
              tf.TensorArray(tf.float32, size=2),
              tf.TensorArray(tf.int32, size=3, element_shape=[2]),
              tf.experimental.Optional.from_value(1.0), {"a": 1}, _Opaque()]
    out = []
    for v in values:
        try:
            out.append(repr(tf.type_spec_from_value(v)))
        except TypeError as e:
            out.append(["TypeError", str(e)])
    return out


def _type_spec_classes(tf):
    specs = [tf.TensorSpec([1]), tf.SparseTensorSpec([2], tf.float32),
             tf.RaggedTensorSpec([2, None], tf.int32), tf.NoneTensorSpec(),
             tf.OptionalSpec(tf.TensorSpec([])), tf.TensorArraySpec(),
             tf.type_spec_from_value(tf.data.Dataset.range(2))]
    # value_type's class names of Optional and datasets are TF's private ones
    return [[isinstance(s, tf.TypeSpec), s.value_type.__name__ if i < 4 else None]
            for i, s in enumerate(specs)]


def _type_spec_is_abstract(tf):
    try:
        tf.TypeSpec()
    except TypeError as e:   # TF lists its internal abstract methods after this
        return str(e).split(" with ")[0]


def _none_tensor_spec(tf):
    n = tf.NoneTensorSpec()
    f = tf.function(lambda x=None: tf.constant(1.0) if x is None else x)
    return [repr(n), n == tf.NoneTensorSpec(), hash(n) == hash(tf.NoneTensorSpec()),
            n == tf.TensorSpec([]), n.is_compatible_with(None),
            n.is_compatible_with(tf.NoneTensorSpec()), n.is_compatible_with(tf.TensorSpec([1])),
            repr(n.most_specific_common_supertype([tf.NoneTensorSpec()])),
            n.most_specific_common_supertype([tf.TensorSpec([])]),
            float(f.get_concrete_function(n)(None))]


def _optional_spec(tf):
    o = tf.OptionalSpec(tf.TensorSpec([2], tf.int32))
    ints = tf.experimental.Optional.from_value(tf.constant([1, 2]))
    floats = tf.experimental.Optional.from_value(tf.constant([1.0, 2.0]))
    return [repr(o), o == tf.OptionalSpec(tf.TensorSpec([2], tf.int32)),
            o == tf.OptionalSpec(tf.TensorSpec([3], tf.int32)),
            o.is_compatible_with(ints), o.is_compatible_with(floats),
            repr(tf.OptionalSpec.from_value(ints)),
            repr(tf.OptionalSpec.from_value(
                tf.experimental.Optional.empty(tf.TensorSpec([None], tf.float32)))),
            o.value_type is type(ints)]


def _tensor_array_spec(tf):
    t = tf.TensorArraySpec([2], tf.float32)
    return [repr(t), repr(tf.TensorArraySpec()),
            repr(tf.TensorArraySpec(None, tf.int64, True, False)),
            t == tf.TensorArraySpec([2], tf.float32, dynamic_size=False, infer_shape=True),
            t == tf.TensorArraySpec([3]),
            t.is_compatible_with(tf.TensorArray(tf.float32, size=3, element_shape=[2])),
            t.is_compatible_with(tf.TensorArray(tf.float32, size=3, element_shape=[None])),
            t.is_compatible_with(tf.TensorArray(tf.float32, size=3, dynamic_size=True)),
            t.is_compatible_with(tf.TensorArraySpec([2], tf.int32)),
            repr(tf.TensorArraySpec.from_value(tf.TensorArray(tf.int32, size=0,
                                                              dynamic_size=True))),
            t.value_type is tf.TensorArray]


def _tensor_array_spec_from_non_array(tf):
    return tf.TensorArraySpec.from_value(3)


def _dynamic_stitch_gradients(tf):
    """TF's gradient reaches data slices a later index overwrites; the recorder's cases
    differentiate single tensors, not this list argument."""
    x, y = tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([[5.0, 6.0], [7.0, 8.0]])
    weights = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])

    def grads(x, y):
        with tf.GradientTape() as tape:
            tape.watch([x, y])
            out = tf.dynamic_stitch([[0, 2], [2, 1]], [x, y])
            total = tf.reduce_sum(out * weights)
        return [out] + tape.gradient(total, [x, y])
    eager = grads(x, y)
    traced = tf.function(grads)(x, y)
    compiled = tf.function(grads, jit_compile=True)(x, y)
    return [[t.numpy().tolist() for t in run] for run in (eager, traced, compiled)]


def _operations_of_a_trace(tf):
    graph = tf.function(lambda x: x * 2 + 1).get_concrete_function(tf.TensorSpec([2])).graph
    ops = graph.get_operations()
    return [len(ops) > 2, all(isinstance(op, tf.Operation) for op in ops),
            all(isinstance(op.name, str) and isinstance(op.type, str) for op in ops)]


def _edit_distances(tf):
    """Strings and ints, several lengths, an empty truth, dense shapes of different sizes;
    eagerly and in a tf.function (TF has no XLA kernel)."""
    h = tf.SparseTensor([[0, 0, 0], [1, 0, 0], [1, 0, 1]], ["a", "b", "c"], [2, 1, 2])
    t = tf.SparseTensor([[0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 0, 2]], ["a", "b", "d", "c"],
                        [2, 2, 3])
    ints = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]], [1, 2, 3, 4, 3], [3, 3])
    truth = tf.SparseTensor([[0, 0], [0, 1], [0, 2], [1, 0], [2, 1]], [2, 1, 2, 4, 5], [3, 4])
    empty = tf.SparseTensor(tf.zeros([0, 2], tf.int64), tf.zeros([0], tf.int32), [1, 0])
    out = [tf.edit_distance(h, t), tf.edit_distance(h, t, normalize=False),
           tf.edit_distance(ints, truth), tf.edit_distance(truth, ints, normalize=False),
           tf.edit_distance(empty, empty),
           tf.function(lambda: tf.edit_distance(ints, truth))()]
    return [[o.dtype.name, o.numpy().tolist()] for o in out]


def _edit_distance_errors(tf):
    ints = tf.SparseTensor([[0, 0]], [1], [1, 1])
    out = []
    for truth in (tf.SparseTensor([[0, 0]], [1.0], [1, 1]), [1, 2],
                  tf.SparseTensor([[0, 0, 0]], [1], [1, 1, 1])):
        try:
            tf.edit_distance(ints, truth)
        except (TypeError, tf.errors.InvalidArgumentError) as e:
            out.append([type(e).__name__, str(e).split(" [Op:")[0].split("}} ")[-1]])
    return out


# (strides, padding, explicit paddings, dilations, out_backprop shape) of conv2d gradients:
# TF 2.21 has no CPU kernel for conv2d_backprop_input_v2/filter_v2, so TF's tape gradients of
# nn.conv2d are recorded and flowjit's v2 functions are checked against them.
CONV2D_GRADIENTS = [([1, 1, 1, 1], "VALID", [], [1, 1, 1, 1], [2, 4, 4, 3]),
                    ([1, 2, 2, 1], "SAME", [], [1, 1, 1, 1], [2, 3, 3, 3]),
                    ([1, 1, 1, 1], "EXPLICIT", [0, 0, 1, 0, 0, 2, 0, 0], [1, 1, 1, 1],
                     [2, 5, 6, 3]),
                    ([1, 2, 1, 1], "VALID", [], [1, 1, 1, 1], [2, 2, 4, 3])]


def conv2d_operands(tf):
    x = tf.reshape(tf.range(2 * 5 * 5 * 2, dtype=tf.float32), [2, 5, 5, 2]) / 10 - 2
    f = tf.reshape(tf.range(2 * 2 * 2 * 3, dtype=tf.float32), [2, 2, 2, 3]) / 7 - 1
    return x, f


def upstream(tf, shape):
    n = 1
    for d in shape:
        n *= d
    return tf.reshape(tf.cast(tf.range(n) % 5, tf.float32) - 2, shape)


def _conv2d_gradients(tf):
    x, f = conv2d_operands(tf)
    out = []
    for strides, padding, explicit, dilations, g_shape in CONV2D_GRADIENTS:
        if padding == "EXPLICIT":
            padding = [explicit[i:i + 2] for i in range(0, 8, 2)]
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([x, f])
            y = tf.nn.conv2d(x, f, strides, padding, dilations=dilations)
        g = upstream(tf, g_shape)
        out.append([y.shape.as_list(),
                    tape.gradient(y, x, output_gradients=g).numpy().tolist(),
                    tape.gradient(y, f, output_gradients=g).numpy().tolist()])
    return out


SCENARIOS = {f.__name__[1:]: f for f in (
    _enums, _variable_policies, _bad_aggregation, _bad_synchronization, _aggregation_methods,
    _bad_aggregation_method, _device_specs, _device_spec_in_scope, _device_spec_errors,
    _device_spec_replace_unknown, _device_spec_immutable, _register_gradient,
    _conversion_functions, _conversion_refusals, _creator_scopes, _type_specs_of_values,
    _type_spec_classes, _type_spec_is_abstract, _none_tensor_spec, _optional_spec,
    _tensor_array_spec, _tensor_array_spec_from_non_array, _dynamic_stitch_gradients,
    _conv2d_gradients, _operations_of_a_trace, _edit_distances, _edit_distance_errors)}


# Scenarios whose float values the tests compare with a tolerance, not exactly.
COMPARED_CLOSE = ("conv2d_gradients",)


def outcome(fn, tf):
    """What `fn(tf)` returned (as JSON data: tuples become lists) or raised."""
    try:
        value = fn(tf)
    except Exception as e:  # noqa: BLE001 - the class and text are the outcome
        return {"error": type(e).__name__, "message": str(e)}
    return {"value": _plain(value)}


def _plain(v):
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v
