"""The lowering-rule API seen by an extender: attributes arrive decoded as keyword arguments
(axes non-negative), a rule returning the wrong thing is named with the op, the types and the
user's line, and the lowered module carries TF's HLO metadata and a name."""
import contextlib
import re

import numpy as np
import pytest

import flowjit as tf
from flowjit.lowering.stablehlo import RULES, register_lowering

X = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], np.float32)


@contextlib.contextmanager
def rule_for(name, rule):
    """`rule` lowers df op `name` inside the block; the built-in rule is restored after."""
    old = RULES["df." + name]
    register_lowering(name)(rule)
    try:
        yield
    finally:
        register_lowering(name)(old)


def test_rules_get_decoded_attributes_with_nonnegative_axes():
    seen = {}
    builtin = RULES["df.concat"]

    def recording(ctx, op, *xs, axis):
        seen["axis"] = axis
        return builtin(ctx, op, *xs, axis=axis)

    with rule_for("concat", recording):
        got = tf.function(lambda a, b: tf.concat([a, b], axis=-1), jit_compile=True)(X, X)
    assert seen == {"axis": 1}                                 # -1 of a rank-2 operand
    np.testing.assert_array_equal(got.numpy(), np.concatenate([X, X], axis=-1))


def test_a_rule_naming_an_attribute_the_op_lacks_is_refused():
    def wants_axes(ctx, op, x, *, axes):
        return x

    with rule_for("neg", wants_axes), pytest.raises(TypeError) as e:
        tf.function(lambda x: -x, jit_compile=True)(X)
    assert "wants_axes" in str(e.value) and "df.neg" in str(e.value)
    assert "['axes']" in str(e.value)


def _line_of(text, fn):
    """The line of `text` inside the source of `fn`'s file (for the expected source line)."""
    import inspect
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


# what a rule returns for df.neg of an f32[2,3], and how the error shows it
WRONG_RESULTS = {
    "nothing": (lambda ctx, x: None, "None"),
    "two values": (lambda ctx, x: [x, x], "(tensor<2x3xf32>, tensor<2x3xf32>)"),
    "no MLIR value": (lambda ctx, x: 1.5, "(float)"),
    "another type": (lambda ctx, x: ctx.convert(x, tf.float64), "(tensor<2x3xf64>)"),
}


@pytest.mark.parametrize("case", WRONG_RESULTS)
def test_a_rule_returning_the_wrong_results_names_rule_op_types_and_line(case):
    returned, shown = WRONG_RESULTS[case]

    def bad_rule(ctx, op, x):
        return returned(ctx, x)

    def negate(x):
        return -x

    with rule_for("neg", bad_rule), pytest.raises(tf.errors.InternalError) as e:
        tf.function(negate, jit_compile=True)(X)
    msg = str(e.value)
    assert "test_lowering_rules.test_a_rule_returning_the_wrong_results_names_rule_op_types_" \
           "and_line.<locals>.bad_rule for df.neg at negate/neg" in msg, msg
    assert f"test_lowering_rules.py:{_line_of('return -x', negate)}" in msg, msg
    assert f"returned {shown}; expected 1 value(s) of type(s) (tensor<2x3xf32>)" in msg, msg


def test_hlo_stage_carries_tf_metadata_and_the_module_a_name():
    @tf.function(jit_compile=True)
    def scaled(x):
        y = x * 2.0
        return tf.tanh(y)

    ir = scaled.experimental_get_compiler_ir(X)
    hlo_text = ir(stage="hlo")
    # TF 2.21: HloModule a_inference_myfun_10__.1, ...; each instruction ends with
    # metadata={op_type="Mul" op_name="mul" source_file="..." source_line=1221}
    # (op_type is TF's kernel name there, the df op name here: see README).
    assert hlo_text.startswith("HloModule jit_scaled,"), hlo_text[:80]
    here = __file__
    mul_line = _line_of("y = x * 2.0", scaled.python_function)
    tanh_line = _line_of("return tf.tanh(y)", scaled.python_function)
    assert re.search(r'multiply\(.*metadata=\{op_type="mul" op_name="scaled/mul" '
                     rf'source_file="{re.escape(here)}" source_line={mul_line}\b', hlo_text)
    assert re.search(r'tanh\(.*metadata=\{op_type="tanh" op_name="scaled/tanh" '
                     rf'source_file="{re.escape(here)}" source_line={tanh_line}\b', hlo_text)
    assert "metadata=" not in ir(stage="hlo_no_metadata")   # TF 2.21: none there either
    assert "\nmodule @jit_scaled {" in ir(stage="stablehlo")
    np.testing.assert_allclose(scaled(X).numpy(), np.tanh(X * 2), rtol=1e-6)


def test_only_jax_internals_imports_private_jax_parts():
    import os
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    private = re.compile(r"^\s*(from|import)\s+(jax\._src|jaxlib)\b", re.M)
    importers = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in ("tests", "examples", "bench")
                       and not d.startswith((".", "__"))]
        for name in filenames:
            path = os.path.join(dirpath, name)
            if name.endswith(".py") and private.search(open(path, encoding="utf-8").read()):
                importers.append(os.path.relpath(path, root))
    assert importers == [os.path.join("runtime", "jax_internals.py")]
