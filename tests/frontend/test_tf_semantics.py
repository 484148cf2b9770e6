"""Tracing keys, ConcreteFunction calls and huge shapes against TF 2.21's recorded behaviour
(tools/record_semantics.py writes tests/data/tf_semantics.json)."""
import json
import math
import os
import re

import numpy as np
import pytest

import flowjit as tf

with open(os.path.join(os.path.dirname(__file__), "..", "data", "tf_semantics.json")) as _f:
    TF = json.load(_f)


def _core(message):
    """TF's message without its runtime decorations ({{function_node ..}}, device, [Op:..])."""
    message = re.sub(r"^\{\{function_node [^}]*\}\} ", "", message)
    message = re.sub(r" on /job:\S+ by allocator \w+", "", message)
    return re.sub(r" \[Op:.*$", "", message).strip()


def _py(text):
    return {"nan": float("nan"), "None": None, "True": True, "False": False}.get(text) \
        if text in ("nan", "None", "True", "False") else eval(text)  # noqa: S307 - literals


def test_python_literals_key_traces_by_value():
    # TF's Literal trace type compares values: 2 and 2.0, 1 and True share a trace; NaNs match
    rec = TF["literal_traces"]
    traces = []

    @tf.function
    def f(x, a):
        traces.append(a)
        return x

    counts = []
    for a in rec["calls"]:
        f(tf.ones([2]), _py(a))
        counts.append(len(traces))
    assert counts == rec["counts"]
    assert type(traces[0]) is int and math.isnan(traces[3])  # the first value of each key


@pytest.mark.parametrize("jit", [False, True], ids=["executor", "xla"])
@pytest.mark.parametrize("case", ["other_width", "other_rank", "float64", "int32"])
def test_concrete_function_called_with_other_shapes_and_dtypes(case, jit):
    want = TF["concrete_function_calls"][case]
    cf = tf.function(lambda x: x * 2, jit_compile=jit).get_concrete_function(
        tf.TensorSpec([None, 3], tf.float32))
    shape, dtype = {"other_width": ([2, 4], tf.float32), "other_rank": ([2], tf.float32),
                    "float64": ([2, 3], tf.float64), "int32": ([2, 3], tf.int32)}[case]
    if "error" in want:
        text = re.sub(r"<lambda>_\d+", "<lambda>", _core(want["message"]))
        with pytest.raises(getattr(tf.errors, want["error"]), match=re.escape(text)):
            cf(tf.ones(shape, dtype))
    else:
        out = cf(tf.ones(shape, dtype))
        assert out.shape.as_list() == want["shape"]
        np.testing.assert_array_equal(out.numpy(), np.array(want["value"], np.float32))


HUGE = {"zeros": lambda: tf.zeros([2**40, 2**40]), "eye": lambda: tf.eye(2**40),
        "ones_1d": lambda: tf.ones([2**45]), "eye_columns": lambda: tf.eye(4, 2**45)}


@pytest.mark.parametrize("case", HUGE)
def test_huge_shapes_raise_tf_classes(case):
    # eagerly, as TF's kernels do; a tf.function raises while tracing (TF 2.21's graphs give
    # an empty tensor for `zeros` and a proto parse error for `eye` instead)
    want = TF["huge_shapes"][case]
    with pytest.raises(getattr(tf.errors, want["error"])) as info:
        HUGE[case]()
    assert _core(want["message"]) in str(info.value)
    with pytest.raises((ValueError, tf.errors.ResourceExhaustedError)):
        tf.function(HUGE[case])()


# --- variables built on a Function's first call (the layer pattern) -------------------------
class _Lazy(tf.Module):
    def __init__(self, jit):
        super().__init__()
        self.v = None
        self.w = None
        self.__call__ = tf.function(self._call, jit_compile=jit)

    def _call(self, x):
        if self.v is None:
            self.v = tf.Variable(tf.zeros_like(x))
            self.w = tf.Variable(tf.random.normal([tf.shape(x)[0], 3], seed=1))
        self.v.assign_add(x)
        return self.v.read_value() + tf.reduce_sum(self.w) * 0


@pytest.mark.parametrize("jit", [False, True], ids=["executor", "xla"])
def test_variables_initialized_from_the_first_calls_inputs(jit, tmp_path):
    # TF 2.21 (init_scope lifts the initializer): [1. 1.], then [2. 2.]; saved_model.save
    # accepts the module; a later trace that would create a Variable raises
    m = _Lazy(jit)
    np.testing.assert_array_equal(m.__call__(tf.ones([2])).numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(m.__call__(tf.ones([2])).numpy(), [2.0, 2.0])
    assert m.w.shape.as_list() == [2, 3]
    tf.saved_model.save(m, str(tmp_path / "lazy"))
    assert tf.saved_model.load(str(tmp_path / "lazy")) is not None
    # TF 2.21: ValueError "Dimension 0 in both shapes must be equal, but are 2 and 3. ..."
    with pytest.raises(ValueError, match="shape"):
        m.__call__(tf.ones([3]))


def test_a_variable_created_on_every_trace_still_raises():
    @tf.function
    def f(x):
        return tf.Variable(tf.zeros_like(x)).read_value()

    # TF 2.21 (already on the first call, whose second trace refuses creation): ValueError
    # "tf.function only supports singleton tf.Variables created on the first call. Make sure
    # the tf.Variable is only created once or created outside tf.function. ..."
    with pytest.raises(ValueError, match="only supports singleton tf.Variables created on "
                                         "the first call"):
        f(tf.ones([2]))


# --- loop variables whose shape changes (AutoGraph and tf.while_loop) -----------------------
def _grow_unknown(n):
    x = tf.constant([1.0])
    i = 0
    while i < n:
        x = tf.concat([x, x[:i]], 0)
        i += 1
    return x


def _grow_unknown_for(n):
    x = tf.constant([1.0])
    for _ in tf.range(n):
        x = tf.boolean_mask(tf.concat([x, x], 0), tf.concat([x, x], 0) > 0)
    return x


@pytest.mark.parametrize("fn", [_grow_unknown, _grow_unknown_for], ids=["while", "for"])
def test_loop_variable_from_known_to_unknown_shape_raises(fn):
    # TF 2.21: ValueError "'x' has shape (1,) before the loop, but shape (None,) after one
    # iteration. Use tf.autograph.experimental.set_loop_options to set shape invariants."
    with pytest.raises(ValueError, match=re.escape(
            "'x' has shape (1,) before the loop, but shape (None,) after one iteration. Use "
            "tf.autograph.experimental.set_loop_options to set shape invariants.")):
        tf.function(fn)(tf.constant(3))


def test_while_loop_variable_from_known_to_unknown_shape_raises():
    # TF 2.21: ValueError "Input tensor 'Const:0' enters the loop with shape (1,), but has
    # shape (None,) after one iteration. To allow the shape to vary across iterations, use
    # the `shape_invariants` argument of tf.while_loop to specify a less-specific shape."
    @tf.function
    def f(n):
        return tf.while_loop(lambda i, x: i < n,
                             lambda i, x: (i + 1, tf.concat([x, x[:i]], 0)),
                             (0, tf.constant([1.0])))

    with pytest.raises(ValueError, match=r"enters the loop with shape \(1,\), but has shape "
                                         r"\(None,\) after one iteration"):
        f(tf.constant(3))


# --- AutoGraph conditionals and string addition ----------------------------------------------
def _none_in_main(x):
    if x > 0:
        y = None
    else:
        y = x
    return y


def _none_in_else(x):
    if x > 0:
        y = x
    else:
        y = None
    return y


@pytest.mark.parametrize("fn,branch", [(_none_in_main, "main"), (_none_in_else, "else")])
def test_none_as_a_branch_value_of_a_tensor_if(fn, branch):
    # TF 2.21: ValueError "'y' is None at the end of the main branch." (else: "... else ...")
    with pytest.raises(ValueError, match=re.escape(f"'y' is None at the end of the {branch} "
                                                   f"branch.")):
        tf.function(fn)(tf.constant(1))


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_plus_concatenates_strings(mode):
    # TF 2.21: tf.constant(["x", "y"]) + tf.constant("b") -> [b'xb', b'yb']; "p" + b -> b'pb'
    def f(a, b):
        return a + b, "p" + b, tf.add(b, b)

    fn = f if mode == "eager" else tf.function(f)
    out = fn(tf.constant(["x", "y"]), tf.constant("b"))
    assert [np.asarray(o.numpy()).tolist() for o in out] == [[b"xb", b"yb"], b"pb", b"bb"]
