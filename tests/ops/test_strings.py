"""String tensors and `tf.strings`, against TF 2.21's recorded results: eagerly and in the graph
executor (`tf.function`); under jit_compile=True TF's InvalidArgumentError naming the op."""
from __future__ import annotations

import numpy as np
import pytest

import flowjit as tf
from flowjit.ir.printing import parse_module, print_module

S = tf.strings


def _modes(fn):
    """fn run eagerly and through the graph executor (one trace)."""
    return {"eager": fn, "graph": tf.function(fn)}


def _obj(*items):
    return np.array(list(items), dtype=object)


# --- the dtype, constants and printing ----------------------------------------------------------
def test_printing_matches_tf():
    # TF 2.21: repr/str/numpy of string tensors
    t = tf.constant("hello")
    assert repr(t) == "<tf.Tensor: shape=(), dtype=string, numpy=b'hello'>"
    assert str(t) == "tf.Tensor(b'hello', shape=(), dtype=string)"
    assert t.numpy() == b"hello" and type(t.numpy()) is bytes
    v = tf.constant(["a", "héllo"])
    assert str(v) == "tf.Tensor([b'a' b'h\\xc3\\xa9llo'], shape=(2,), dtype=string)"
    m = tf.constant([["a", "b"], ["c", "d"]])
    assert repr(m) == ("<tf.Tensor: shape=(2, 2), dtype=string, numpy=\narray([[b'a', b'b'],\n"
                       "       [b'c', b'd']], dtype=object)>")
    assert str(m) == "tf.Tensor(\n[[b'a' b'b']\n [b'c' b'd']], shape=(2, 2), dtype=string)"
    assert m.numpy().dtype == object and m.dtype == tf.string


def test_dtype_and_conversions():
    # TF 2.21: str(tf.string), as_dtype of NumPy string types, bytes kept exactly
    assert str(tf.string) == "<dtype: 'string'>" and repr(tf.string) == "tf.string"
    assert tf.as_dtype(np.object_) is tf.string and tf.as_dtype(np.bytes_) is tf.string
    assert tf.as_dtype("string") is tf.string
    with pytest.raises(TypeError):
        tf.as_dtype(str)
    assert tf.constant(b"a\x00\xff").numpy() == b"a\x00\xff"
    assert tf.constant(np.array(["x", "yz"])).numpy().tolist() == [b"x", b"yz"]
    assert tf.TensorSpec([None], tf.string).dtype is tf.string
    # TF 2.21: the string zero is b""
    assert tf.zeros([2], tf.string).numpy().tolist() == [b"", b""]
    assert tf.zeros_like(tf.constant(["a"])).numpy().tolist() == [b""]
    # a NumPy str array as a tf.function argument is a string tensor (UTF-8 bytes)
    out = tf.function(lambda x: tf.identity(x))(np.array(["ab", "é"]))
    assert out.dtype is tf.string and out.numpy().tolist() == [b"ab", b"\xc3\xa9"]


@pytest.mark.parametrize("make, cls, text", [
    (lambda: tf.constant(["a", 1]), ValueError,
     "Can't convert Python sequence with mixed types to Tensor."),
    (lambda: tf.constant(1, dtype=tf.string), TypeError,
     "Cannot convert 1 to EagerTensor of dtype string"),
    (lambda: tf.equal(tf.constant(["a", "b"]), 1), TypeError,
     "Cannot convert 1 to EagerTensor of dtype string"),
    (lambda: S.length(1), TypeError, "Cannot convert 1 to EagerTensor of dtype string"),
    (lambda: S.length(tf.constant(1)), tf.errors.InvalidArgumentError,
     "cannot compute StringLength as input #0(zero-based) was expected to be a string tensor "
     "but is a int32 tensor"),
    (lambda: S.length("a", unit="X"), tf.errors.InvalidArgumentError,
     "Value for attr 'unit' of \"X\" is not in the list of allowed values: \"BYTE\", "
     "\"UTF8_CHAR\""),
    (lambda: S.to_number(["x"]), tf.errors.InvalidArgumentError,
     "StringToNumberOp could not correctly convert string: x"),
    (lambda: S.to_number(["1.5"], tf.int32), tf.errors.InvalidArgumentError,
     "StringToNumberOp could not correctly convert string: 1.5"),
    (lambda: S.to_number(["99999999999"], tf.int32), tf.errors.InvalidArgumentError,
     "StringToNumberOp could not correctly convert string: 99999999999"),
    (lambda: S.substr(["hi"], 5, 2), tf.errors.InvalidArgumentError,
     "pos 5 out of range for string b'hi' at index 0"),
    (lambda: S.regex_full_match(["abc"], "("), tf.errors.InvalidArgumentError,
     "Invalid pattern: ("),
    (lambda: S.join([tf.constant(["a", "b"]), tf.constant(["c", "d", "e"])]),
     tf.errors.InvalidArgumentError, "Input shapes do not match: [2] vs. [3]"),
    (lambda: S.format("x={} {}", tf.constant(1)), ValueError,
     "The template expects 2 tensors, but the inputs only has 1."),
    (lambda: S.as_string(tf.constant([3]), precision=2), tf.errors.InvalidArgumentError,
     "precision not supported for datatype int32"),
    (lambda: tf.constant("a") < tf.constant("b"), tf.errors.InvalidArgumentError, "string"),
    (lambda: tf.cast(tf.constant("1"), tf.int32), tf.errors.UnimplementedError,
     "Cast string to int32 is not supported"),
    (lambda: tf.cast(tf.constant(1), tf.string), tf.errors.UnimplementedError,
     "Cast int32 to string is not supported"),
    (lambda: tf.ones([2], tf.string), TypeError,
     "Cannot convert 1 to EagerTensor of dtype string"),
])
def test_bad_input_raises_tf_errors(make, cls, text):
    # TF 2.21: these classes and texts (flowjit adds the op, the types and the user's line)
    with pytest.raises(cls) as info:
        make()
    assert text in str(info.value)


# --- the ops, eagerly and in the executor -----------------------------------------------------
CASES = {  # TF 2.21's results
    "length": (lambda x: S.length(x), _obj(b"h\xc3\xa9llo", b"ab"), np.int32([6, 2])),
    "length_utf8": (lambda x: S.length(x, unit="UTF8_CHAR"), _obj(b"h\xc3\xa9llo", b"ab"),
                    np.int32([5, 2])),
    "join": (lambda x: S.join(["a", x], separator="-"), _obj(b"x", b"y"), _obj(b"a-x", b"a-y")),
    "split": (lambda x: S.split(x), np.array(b"a b  c", object), _obj(b"a", b"b", b"c")),
    "split_sep": (lambda x: S.split(x, sep=","), np.array(b"a,b,,c", object),
                  _obj(b"a", b"b", b"", b"c")),
    "split_max": (lambda x: S.split(x, maxsplit=1), np.array(b"a b c", object),
                  _obj(b"a", b"b c")),
    "format": (lambda x: S.format("x={} y={}", (x, tf.constant([1.5, 2.0]))), np.int32(1),
               np.array(b"x=1 y=[1.5 2]", object)),
    "format_str": (lambda x: S.format("x={}", x), _obj(b"s", b"t"),
                   np.array(b'x=["s" "t"]', object)),
    "format_summarize": (lambda x: S.format("{}", x), np.arange(1, 8, dtype=np.int32),
                         np.array(b"[1 2 3 ... 5 6 7]", object)),
    "as_string": (lambda x: S.as_string(x), np.float32([0.1, 1e20, 1e-7, np.inf, np.nan]),
                  _obj(b"0.100000", b"100000002004087734272.000000", b"0.000000", b"inf",
                       b"nan")),
    "as_string_int": (lambda x: S.as_string(x, width=4, fill="0"), np.int32([3, -2]),
                      _obj(b"0003", b"-002")),
    "as_string_bool": (lambda x: S.as_string(x), np.array([True, False]),
                       _obj(b"true", b"false")),
    "as_string_sci": (lambda x: S.as_string(x, scientific=True), np.float32([1.23456]),
                      _obj(b"1.234560e+00")),
    "as_string_prec": (lambda x: S.as_string(x, precision=2), np.float64([1.23456]),
                       _obj(b"1.23")),
    "to_number": (lambda x: S.to_number(x), _obj(b" 1.5 ", b"inf", b"1e3", b"0x10"),
                  np.float32([1.5, np.inf, 1000, 16])),
    "to_number_int": (lambda x: S.to_number(x, out_type=tf.int64), _obj(b"1", b"-2"),
                      np.int64([1, -2])),
    "upper": (lambda x: S.upper(x), _obj(b"h\xc3\xa9llo", b"Ab"), _obj(b"H\xc3\xa9LLO", b"AB")),
    "upper_utf8": (lambda x: S.upper(x, encoding="utf-8"), _obj(b"h\xc3\xa9llo"),
                   _obj(b"H\xc3\x89LLO")),
    "lower": (lambda x: S.lower(x), _obj(b"H\xc3\x89llo"), _obj(b"h\xc3\x89llo")),
    "regex_full_match": (lambda x: S.regex_full_match(x, "ab."), _obj(b"abc", b"abd", b"xabc"),
                         np.array([True, True, False])),
    "substr": (lambda x: S.substr(x, 1, 3), _obj(b"hello", b"hi"), _obj(b"ell", b"i")),
    "substr_neg": (lambda x: S.substr(x, -3, 2), _obj(b"hello"), _obj(b"ll")),
    "substr_utf8": (lambda x: S.substr(x, 1, 2, unit="UTF8_CHAR"), _obj(b"h\xc3\xa9llo"),
                    _obj(b"\xc3\xa9l")),
    "substr_vec": (lambda x: S.substr(x, [0, 1], [1, 2]), _obj(b"hello", b"world"),
                   _obj(b"h", b"or")),
    "reduce_join": (lambda x: S.reduce_join(x), np.array([[b"a", b"b"], [b"c", b"d"]], object),
                    np.array(b"abcd", object)),
    "reduce_join_axis": (lambda x: S.reduce_join(x, axis=1, separator=","),
                         np.array([[b"a", b"b"], [b"c", b"d"]], object), _obj(b"a,b", b"c,d")),
    "reduce_join_keep": (lambda x: S.reduce_join(x, axis=0, keepdims=True),
                         np.array([[b"a", b"b"], [b"c", b"d"]], object),
                         np.array([[b"ac", b"bd"]], object)),
    "strip": (lambda x: S.strip(x), _obj(b"  a b \n", b"\tx"), _obj(b"a b", b"x")),
    "equal": (lambda x: (x == "a", tf.not_equal(x, "a")), _obj(b"a", b"b"),
              (np.array([True, False]), np.array([False, True]))),
    "concat": (lambda x: tf.concat([x, x[:1]], 0), _obj(b"a", b"b"), _obj(b"a", b"b", b"a")),
    "stack": (lambda x: tf.stack([x[1], x[0]]), _obj(b"a", b"b"), _obj(b"b", b"a")),
    "gather": (lambda x: tf.gather(x, [1, 0, 1]), _obj(b"a", b"b"), _obj(b"b", b"a", b"b")),
    "reshape": (lambda x: tf.reshape(x, [2, 1]), _obj(b"a", b"b"),
                np.array([[b"a"], [b"b"]], object)),
    "where": (lambda x: tf.where([True, False], x, ["c", "d"]), _obj(b"a", b"b"),
              _obj(b"a", b"d")),
}


@pytest.mark.parametrize("mode", ["eager", "graph"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_op_matches_tf(case, mode):
    fn, arg, expected = CASES[case]
    out = _modes(fn)[mode](tf.constant(arg))
    outs, wants = (out, expected) if isinstance(expected, tuple) else ((out,), (expected,))
    for o, w in zip(outs, wants):
        if w.dtype == object and w.ndim == 0:  # a string scalar reads back as bytes, as TF's
            assert type(o.numpy()) is bytes and o.numpy() == w[()]
            continue
        got = np.asarray(o.numpy())
        assert got.dtype == w.dtype and got.shape == w.shape, (got, w)
        np.testing.assert_array_equal(got, w)


def test_split_of_a_vector_is_ragged():
    # TF 2.21 returns <tf.RaggedTensor [[b'a', b'b'], [b'c']]>
    for fn in _modes(lambda x: S.split(x)).values():
        parts = fn(tf.constant(["a b", "c"]))
        assert isinstance(parts, tf.RaggedTensor)
        assert parts.to_list() == [[b"a", b"b"], [b"c"]]


# --- tf.function ------------------------------------------------------------------------------
def test_trace_keys_by_dtype_and_shape():
    # TF 2.21: two string tensors of one shape share a trace; Python strings retrace
    traces = []

    @tf.function
    def f(s):
        traces.append(1)
        return S.length(s)
    assert f(tf.constant("a")).numpy() == 1
    assert f(tf.constant("bcd")).numpy() == 3
    assert len(traces) == 1
    f("a")
    f("b")
    assert len(traces) == 3


def test_strings_flow_through_control_flow():
    @tf.function
    def pick(p, s):
        return tf.cond(p, lambda: s, lambda: S.upper(s))

    @tf.function
    def grow(s):
        return tf.while_loop(lambda i, t: i < 3, lambda i, t: (i + 1, S.join([t, "x"])),
                             (0, s))[1]
    # TF 2.21: b'AB' and b'axxx'
    assert pick(tf.constant(False), tf.constant("ab")).numpy() == b"AB"
    assert pick(tf.constant(True), tf.constant("ab")).numpy() == b"ab"
    assert grow(tf.constant("a")).numpy() == b"axxx"


def test_string_constants_fold_and_round_trip():
    f = tf.function(lambda: S.upper(tf.constant([b"a\xff\"\n", b"b"])))
    assert f().numpy().tolist() == [b"A\xff\"\n", b"B"]
    cf = f.get_concrete_function()
    for module in (cf.dataflow_module(), cf.optimized_module()):
        text = print_module(module)
        assert print_module(parse_module(text)) == text


@pytest.mark.parametrize("fn", [lambda s: S.length(s), lambda s: tf.identity(s)],
                         ids=["length", "identity"])
def test_xla_refuses_strings_as_tf(fn):
    # TF 2.21: InvalidArgumentError "Detected unsupported operations when trying to compile
    # graph __inference_g_27[...] on XLA_CPU_JIT: _Arg (No registered '_Arg' OpKernel ..."
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.function(fn, jit_compile=True)(tf.constant("abc"))
    text = str(info.value)
    assert text.startswith("Detected unsupported operations when trying to compile graph")
    assert "string" in text
