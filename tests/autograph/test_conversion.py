"""What gets converted and how: user functions called from converted code (recursively,
cached), methods, lambdas, closures, `do_not_convert`, `autograph=False`, `to_code`, the
`source` compiler-IR stage, builtins (`print`, `assert`, `len`, `range`) and fallbacks."""
import inspect
import warnings

import numpy as np
import pytest

import flowjit as tf
from flowjit.frontend.autograph import AutoGraphWarning, converter


def helper_abs(x):
    if x < 0:
        return -x
    return x


def helper_calls_helper(x):
    return helper_abs(x) * 2.0


def test_user_functions_are_converted_recursively(ops_of):
    def f(x):
        return helper_calls_helper(x) + 1.0

    g = tf.function(f)
    assert float(g(tf.constant(-3.0))) == 7.0
    assert float(g(tf.constant(2.0))) == 5.0
    assert "cond" in ops_of(f, tf.constant(1.0))


def test_conversion_is_cached_per_function():
    converter.convert(helper_abs)
    first = converter._CODE_CACHE[helper_abs.__code__]
    tf.function(helper_calls_helper)(tf.constant(1.0))
    tf.function(lambda x: helper_abs(x))(tf.constant(1.0))
    assert converter._CODE_CACHE[helper_abs.__code__] is first
    assert converter.convert(helper_abs) is converter.convert(helper_abs)


def test_library_functions_are_not_converted():
    assert converter.convert(tf.reduce_sum) is None
    assert converter.convert(np.sum) is None
    assert converter.convert(inspect.getsource) is None
    assert converter.convert(len) is None


class Scaler:
    def __init__(self, k):
        self.k = k

    def apply(self, x):
        if tf.reduce_sum(x) > 0:
            return x * self.k
        return x

    @tf.function
    def __call__(self, x):
        y = x
        for _ in tf.range(2):
            y = self.apply(y)
        return y


class ScalerChild(Scaler):
    def apply(self, x):
        return super().apply(x) + 1.0


def test_methods_and_super():
    x = tf.constant([1.0, 2.0])
    np.testing.assert_allclose(Scaler(3.0)(x).numpy(), [9.0, 18.0])
    np.testing.assert_allclose(Scaler(3.0)(-x).numpy(), [-1.0, -2.0])
    np.testing.assert_allclose(ScalerChild(2.0)(x).numpy(), [(1 * 2 + 1) * 2 + 1,
                                                             (2 * 2 + 1) * 2 + 1])


def test_lambdas_are_converted():
    sign = lambda v: 1.0 if v > 0 else -1.0  # noqa: E731
    f = tf.function(lambda x: sign(x) * x)
    assert float(f(tf.constant(-4.0))) == 4.0
    g = tf.function(lambda x, y: x if x > y else y)
    assert float(g(tf.constant(1.0), tf.constant(2.0))) == 2.0
    # Two lambdas with the same parameters on one line, and one spanning lines.
    pair = (tf.function(lambda x: x if x > 0 else -x), tf.function(lambda x: x if x < 0 else 0.))
    assert float(pair[0](tf.constant(-2.0))) == 2.0 and float(pair[1](tf.constant(2.0))) == 0.0
    multi = tf.function(
        lambda x:
            x + 1.0 if x > 0
            else x - 1.0)
    assert float(multi(tf.constant(-1.0))) == -2.0


def test_closures_and_nonlocal_state():
    scale = [2.0]
    calls = 0

    def make():
        offset = tf.constant(1.0)

        def f(x):
            nonlocal calls
            calls += 1          # a Python side effect: runs once per trace
            if x > 0:
                y = x * scale[0] + offset
            else:
                y = x - offset
            return y
        return f

    f = tf.function(make())
    assert float(f(tf.constant(3.0))) == 7.0
    assert float(f(tf.constant(-3.0))) == -4.0
    assert calls == 1


def test_nested_tf_function_is_converted():
    @tf.function
    def inner(x):
        while x > 10.0:
            x = x / 2.0
        return x

    @tf.function(autograph=False)
    def outer(x):
        return inner(x) + 0.5

    assert float(outer(tf.constant(100.0))) == 6.75


def test_do_not_convert():
    @tf.autograph.experimental.do_not_convert
    def plain(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        tf.function(plain)(tf.constant(1.0))

    @tf.function
    def calls_plain(x):
        return plain(x)

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        calls_plain(tf.constant(1.0))
    assert converter.convert(plain) is None


def test_autograph_false_runs_python_as_written():
    def f(x, n):
        for _ in range(n):      # Python loop: fine without conversion
            x = x * 2.0
        return x

    assert float(tf.function(f, autograph=False)(tf.constant(1.0), 3)) == 8.0
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        tf.function(helper_abs, autograph=False)(tf.constant(1.0))


def test_to_code():
    def f(x, n):
        total = 0.0
        for i in tf.range(n):
            if i % 2 == 0:
                continue
            total += x
        while total > 100.0:
            total = total / 2.0
        return total if total > 1.0 else -total

    code = tf.autograph.to_code(f)
    assert code.startswith("def f(x, n):")
    for piece in ("ag__.for_stmt(", "ag__.while_stmt(", "ag__.if_stmt(", "ag__.if_exp(",
                  "continue_ = True", "nonlocal total", "def loop_body(itr):",
                  "ag__.converted_call(tf.range, (n,), None)"):
        assert piece in code, piece
    compile(code, "<to_code>", "exec")  # valid Python
    assert code == tf.autograph.to_code(tf.function(f))


def test_source_stage():
    @tf.function
    def f(x):
        if x > 0:
            x = x * 2.0
        return x

    first = inspect.getsourcelines(f.python_function)[1]
    src = f.experimental_get_compiler_ir(tf.constant(1.0))(stage="source")
    assert "ag__.if_stmt(" in src
    # Each converted line carries the user line it comes from.
    line_of = {}
    for ln in src.splitlines()[2:]:
        tag, _, code = ln.partition(" | ")
        if tag.strip():
            line_of[code.strip()] = int(tag)
    assert line_of["def if_body():"] == first + 2
    assert line_of["x = x * 2.0"] == first + 3
    assert "source" in f.experimental_get_compiler_ir(tf.constant(1.0)).stages
    plain = tf.function(lambda x: x + 1.0, autograph=False)
    assert "autograph=False" in plain.experimental_get_compiler_ir(tf.constant(1.0))(
        stage="source")


def test_staged_print_feature_converts_print_to_tf_print(capsys):
    # flowjit extension (README, "Differences from TF"): TF has no such feature.
    @tf.function(experimental_autograph_options=tf.autograph.experimental.Feature.STAGED_PRINT)
    def f(x):
        print("tracing", 1)              # Python values outside staged code: trace time
        for i in tf.range(2):
            print("step", i, x)          # inside a staged loop: every iteration
        return x

    f(tf.constant(5))
    f(tf.constant(6))
    out = capsys.readouterr().out
    assert out.count("tracing 1") == 1
    assert "step 0 5" in out and "step 1 5" in out and "step 0 6" in out and "step 1 6" in out


def test_assert_is_converted_with_assert_statements_feature():
    @tf.function(experimental_autograph_options=(
        tf.autograph.experimental.Feature.ASSERT_STATEMENTS,))
    def f(x):
        assert x > 0, "x must be positive"
        return x * 2.0

    assert float(f(tf.constant(2.0))) == 4.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="x must be positive"):
        f(tf.constant(-2.0))

    @tf.function
    def g(x, check):
        assert check, "python assert"
        return x

    with pytest.raises(AssertionError, match="python assert"):
        g(tf.constant(1.0), False)


def test_len_and_range_builtins():
    @tf.function(input_signature=[tf.TensorSpec([None, 2])])
    def f(x):
        n = len(x)
        total = 0.0
        for i in range(n):
            total += tf.reduce_sum(tf.gather(x, i))
        return n, total

    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    n, total = f(tf.constant(x))
    assert int(n) == 4 and float(total) == x.sum()

    @tf.function
    def g(x):
        return len(x)

    assert g(tf.zeros([3, 5])) == 3         # a static dimension stays a Python int


def test_fallback_warns_with_the_reason():
    namespace = {"tf": tf}
    exec("def f(x):\n    return x * 2.0\n", namespace)
    with pytest.warns(AutoGraphWarning, match="could not convert f.*source code is not "
                                              "available"):
        out = tf.function(namespace["f"])(tf.constant(2.0))
    assert float(out) == 4.0

    def gen(x):
        yield x

    assert converter.convert(gen) is None     # generators are called as written
    with warnings.catch_warnings():
        warnings.simplefilter("error", AutoGraphWarning)
        assert tf.function(lambda x: x + 1.0)(tf.constant(1.0)) == 2.0


def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


class Affine:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return x * self.w if x > 0 else x


def test_recursion_and_callable_objects():
    @tf.function
    def f(x):
        return Affine(2.0)(x) * factorial(4)

    assert float(f(tf.constant(3.0))) == 144.0
    assert float(f(tf.constant(-3.0))) == -72.0


def test_item_assignment_in_staged_code():
    def f(x, n):
        d = {"a": x, "b": x * 0.0}
        rows = [x, x]
        while n > 0:
            d["a"] = d["a"] * 2.0
            rows[1] = rows[1] + 1.0
            n -= 1
        if x > 0:
            d["b"] = d["b"] + 5.0
        return d, rows

    g = tf.function(f)
    for x, n in ((1.0, 3), (-1.0, 2)):
        d, rows = g(tf.constant(x), tf.constant(n))
        assert float(d["a"]) == x * 2 ** n and float(d["b"]) == (5.0 if x > 0 else 0.0)
        assert float(rows[0]) == x and float(rows[1]) == x + n
