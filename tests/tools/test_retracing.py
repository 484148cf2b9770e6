"""Retracing that explains itself: TF's frequent-tracing warning fires on the calls TF 2.21
warned on with its text (tests/data/tf_retrace_warning.json), flowjit's account of the latest
retrace is appended, and strict retracing raises instead of tracing again."""
import json
import logging
import os
import re

import pytest

import flowjit as tf

RECORD = json.load(open(os.path.join(os.path.dirname(__file__), "..", "data",
                                     "tf_retrace_warning.json")))
_FUNCTION = re.compile(r"<function body at 0x[0-9a-f]+>")


def _tf_part(message):
    return _FUNCTION.sub("{function}", message.split(" Why the latest call retraced:")[0])


@pytest.mark.parametrize("name", sorted(RECORD["scenarios"]))
def test_warning_fires_on_tf_calls_with_tf_text(name, caplog):
    calls = RECORD["scenarios"][name]["calls"]
    expected = RECORD["scenarios"][name]["warnings"]
    namespace = {}
    # A code object per scenario, as the recorder: statistics are kept per code object.
    exec(f"def body(x):\n    return x * {sorted(RECORD['scenarios']).index(name) + 7}.0\n",
         namespace)
    body = namespace["body"]
    shared = tf.function(body, autograph=False)
    fired = []
    with caplog.at_level(logging.WARNING, logger="flowjit"):
        for i, call in enumerate(calls):
            caplog.clear()
            if isinstance(call, str):
                kind, n = call.split(":")
                fn = body if kind == "new" else type(body)(body.__code__, namespace)
                tf.function(fn, autograph=False)(tf.zeros([int(n)]))
            else:
                shared(tf.zeros([call]))
            fired += [{"call": i, "message": _tf_part(r.getMessage())}
                      for r in caplog.records if "triggered tf.function retracing" in
                      r.getMessage()]
    assert fired == expected


def test_warning_explains_against_the_nearest_signature(caplog):
    @tf.function
    def f(x, y):
        return x[0] * y

    y = tf.zeros([2])
    with caplog.at_level(logging.WARNING, logger="flowjit"):
        f(tf.zeros([3]), y)
        f(tf.zeros([3], tf.int32), tf.zeros([2], tf.int32))  # far from the next call
        for n in (4, 5, 6, 7):
            f(tf.zeros([n]), y)
    messages = [r.getMessage() for r in caplog.records if "retracing" in r.getMessage()]
    assert [m.split(" calls to ")[0] for m in messages] == ["5 out of the last 5",
                                                            "6 out of the last 6"]
    why = messages[-1].split(" Why the latest call retraced: ")[1]
    # Against the nearest (the float call of shape [6]), not the latest int32 one: one
    # argument differs, and a relaxed signature would have served both.
    assert why.startswith("argument 'x' changed from TensorSpec(shape=(6,), dtype=tf.float32, "
                          "name=None) to TensorSpec(shape=(7,), dtype=tf.float32, name=None) "
                          "(against the nearest of 5 cached signatures)")
    assert "input_signature=[TensorSpec(shape=(None,), dtype=tf.float32, name=None), " \
           "TensorSpec(shape=(2,), dtype=tf.float32, name=None)] or reduce_retracing=True" in why
    assert f.explain_retrace() == f"f retraced: {why}"


def test_python_value_retrace_advises_a_tensor():
    @tf.function
    def f(x, n):
        return x * n

    f(tf.constant(1.0), 4)
    f(tf.constant(1.0), 5)
    text = f.explain_retrace()
    assert "argument 'n' changed from int(4) to int(5)" in text
    assert "pass it as a tensor" in text


def test_strict_retracing_option_raises_with_the_reason():
    @tf.function(strict_retracing=True)
    def f(x):
        return x + 1

    assert f(tf.zeros([2])).shape == [2]
    assert f(tf.ones([2])).shape == [2]          # same trace type: no retrace
    with pytest.raises(tf.errors.RetracingError,
                       match=r"f would retrace under strict retracing: argument 'x' changed "
                             r"from TensorSpec\(shape=\(2,\)"):
        f(tf.zeros([3]))
    assert f.experimental_get_tracing_count() == 1


def test_strict_retracing_global_config_and_per_function_override():
    tf.config.experimental.set_strict_retracing(True)
    try:
        @tf.function
        def strict(x):
            return x + 1

        @tf.function(strict_retracing=False)
        def relaxed(x):
            return x + 1

        strict(tf.zeros([1]))
        with pytest.raises(tf.errors.RetracingError):
            strict(tf.zeros([2], tf.int32))
        relaxed(tf.zeros([1]))
        relaxed(tf.zeros([2]))
        assert relaxed.experimental_get_tracing_count() == 2
    finally:
        tf.config.experimental.set_strict_retracing(False)
    assert not tf.config.experimental.get_strict_retracing()
