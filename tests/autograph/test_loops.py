"""`while` and `for` (over range, tf.range with tensor bounds, tensors, Python iterables),
`break`/`continue` (nested), `return` from inside loops, loops carrying tuples and dicts,
set_loop_options, and the loop-variable errors. Python-valued loops unroll at trace time;
tensor-valued ones become one while node. References are plain Python/NumPy."""
import numpy as np
import pytest

import flowjit as tf

# TF raises for the loops that use this (a Python loop whose exit becomes a tensor, a staged
# loop with `else:`); flowjit stages them when asked (README, "Differences from TF").
STAGED_PYTHON_LOOPS = {"experimental_autograph_options":
                       tf.autograph.experimental.Feature.STAGED_PYTHON_LOOPS}


def _n(v, kind):
    return v if kind == "python" else tf.constant(v)


def f_while(n, x):
    i = 0
    acc = x
    while i < n:
        acc = acc * 0.5 + 1.0
        i += 1
    return acc, i


@pytest.mark.parametrize("n", [0, 1, 5])
def test_while(call, ops_of, cond_kind, n):
    x = np.array([4.0, -2.0], np.float32)
    acc, i = call(f_while, _n(n, cond_kind), tf.constant(x))
    ref = x.copy()
    for _ in range(n):
        ref = ref * 0.5 + 1.0
    np.testing.assert_allclose(acc.numpy(), ref, rtol=1e-6)
    assert int(i) == n
    ops = ops_of(f_while, _n(n, cond_kind), tf.constant(x))
    assert ("while" in ops) == (cond_kind == "tensor")


def f_for_range(n, x):
    total = x * 0.0
    for i in range(n):
        total += x * float(i) if isinstance(i, int) else x * tf.cast(i, tf.float32)
    return total


@pytest.mark.parametrize("n", [0, 3])
def test_for_over_range(call, ops_of, cond_kind, n):
    x = np.array([1.0, 2.0], np.float32)
    out = call(f_for_range, _n(n, cond_kind), tf.constant(x))
    np.testing.assert_allclose(out.numpy(), x * sum(range(n)), rtol=1e-6)
    ops = ops_of(f_for_range, _n(n, cond_kind), tf.constant(x))
    assert ("while" in ops) == (cond_kind == "tensor")


def f_tf_range(start, limit, delta):
    s = tf.constant(0, tf.int32)
    prod = tf.constant(1, tf.int32)
    for i in tf.range(start, limit, delta):
        s += i
        prod = prod * 2
    return s, prod


@pytest.mark.parametrize("start,limit,delta", [(0, 5, 1), (2, 11, 3), (5, 0, -2), (3, 3, 1)])
def test_for_over_tf_range(call, start, limit, delta):
    args = [tf.constant(v) for v in (start, limit, delta)]
    s, prod = call(f_tf_range, *args)
    r = list(range(start, limit, delta))
    assert int(s) == sum(r) and int(prod) == 2 ** len(r)


def test_tf_range_with_constant_bounds_is_a_loop(ops_of):
    def f(x):
        for i in tf.range(4):
            x = x + tf.cast(i, tf.float32)
        return x

    assert "while" in ops_of(f, tf.constant(0.0))
    assert float(tf.function(f)(tf.constant(0.5))) == 6.5
    assert float(tf.function(f, jit_compile=True)(tf.constant(0.5))) == 6.5


def f_over_tensor(x):
    total = tf.zeros_like(x[0])
    count = 0
    for row in x:
        total = total + row * row
        count += 1
    return total, count


def test_for_over_a_tensor(call, ops_of):
    x = np.arange(12, dtype=np.float32).reshape(4, 3) - 5.0
    total, count = call(f_over_tensor, tf.constant(x))
    np.testing.assert_allclose(total.numpy(), (x * x).sum(0), rtol=1e-6)
    assert int(count) == 4
    assert "while" in ops_of(f_over_tensor, tf.constant(x))


def test_for_over_tensor_with_unknown_first_dim():
    f = tf.function(f_over_tensor, input_signature=[tf.TensorSpec([None, 3])])
    x = np.random.default_rng(1).normal(size=(5, 3)).astype(np.float32)
    total, count = f(tf.constant(x))
    np.testing.assert_allclose(total.numpy(), (x * x).sum(0), rtol=1e-5)
    assert int(count) == 5


def f_enumerate_zip(x, y):
    acc = 0.0
    for i, row in enumerate(x):
        acc += tf.cast(i, tf.float32) * tf.reduce_sum(row)
    for a, b in zip(x, y):
        acc += tf.reduce_sum(a * b)
    return acc


def test_enumerate_and_zip_over_tensors(call):
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    y = np.ones((3, 2), np.float32) * 2
    out = call(f_enumerate_zip, tf.constant(x), tf.constant(y))
    ref = sum(i * r.sum() for i, r in enumerate(x)) + (x * y).sum()
    np.testing.assert_allclose(float(out), ref, rtol=1e-6)


def f_python_iterable(x):
    weights = {"a": 1.0, "b": -2.0, "c": 0.5}
    out = x
    for k in sorted(weights):
        out = out * weights[k] + 1.0
    for w in (1.0, 2.0):
        out = out + w
    return out


def test_for_over_python_iterables_unrolls(call, ops_of):
    x = np.array([1.0, 3.0], np.float32)
    out = call(f_python_iterable, tf.constant(x))
    ref = x
    for k in ("a", "b", "c"):
        ref = ref * {"a": 1.0, "b": -2.0, "c": 0.5}[k] + 1.0
    ref = ref + 3.0
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-6)
    assert "while" not in ops_of(f_python_iterable, tf.constant(x))


# --- break / continue --------------------------------------------------------------------
def f_nested_break_continue(n, m):
    out = 0
    pairs = 0
    for i in range(n):
        if i % 3 == 2:
            continue
        j = 0
        while True:
            j += 1
            if j > m:
                break
            if (i + j) % 2 == 0:
                continue
            if i * j > 12:
                break
            out += i * 10 + j
            pairs += 1
        if out > 150:
            break
    return out, pairs


@pytest.mark.parametrize("n,m", [(6, 4), (3, 2), (10, 5)])
def test_nested_loops_break_continue(call, cond_kind, n, m):
    out, pairs = call(f_nested_break_continue, _n(n, cond_kind), _n(m, cond_kind),
                      **STAGED_PYTHON_LOOPS)
    # the same function called outside `function` is plain Python: the reference
    assert (int(out), int(pairs)) == f_nested_break_continue(n, m)


def f_loop_else(x, limit):
    found = -1
    for i in tf.range(4):
        if tf.gather(x, i) > limit:
            found = i
            break
    else:
        found = 100
    return found


@pytest.mark.parametrize("limit", [0.5, 10.0])
def test_for_else(call, limit):
    x = np.array([0.0, 0.25, 2.0, 3.0], np.float32)
    out = call(f_loop_else, tf.constant(x), tf.constant(limit), **STAGED_PYTHON_LOOPS)
    ref = next((i for i, v in enumerate(x) if v > limit), 100)
    assert int(out) == ref


def test_break_on_tensor_inside_python_loop():
    """A Python loop whose `break` depends on a tensor: later iterations run under a cond."""
    def f(limit):
        total = tf.constant(0.0)
        for w in [1.0, 2.0, 3.0, 4.0]:
            if total >= limit:
                break
            total += w
        return total

    g = tf.function(f, **STAGED_PYTHON_LOOPS)
    for limit in (0.0, 2.0, 3.5, 100.0):
        ref = 0.0
        for w in [1.0, 2.0, 3.0, 4.0]:
            if ref >= limit:
                break
            ref += w
        assert float(g(tf.constant(limit))) == ref


def test_python_while_whose_condition_becomes_a_tensor():
    """TF raises here; with STAGED_PYTHON_LOOPS the rest of the loop is staged instead, from
    the first iteration whose condition is a tensor."""
    @tf.function(**STAGED_PYTHON_LOOPS)
    def f(x):
        i = 0
        while i < 10:
            i = i + x
        return i

    for x in (3, 4, 20):
        ref = 0
        while ref < 10:
            ref += x
        assert int(f(tf.constant(x))) == ref


# --- return inside loops -----------------------------------------------------------------
def f_first_above(x, limit):
    for i in tf.range(tf.shape(x)[0]):
        if tf.gather(x, i) > limit:
            return i * 10
    return -1


@pytest.mark.parametrize("limit", [0.0, 2.5, 99.0])
def test_early_return_from_loop(call, limit):
    # TF raises (test_return_in_tensorflow_loop_raises_as_tf); the extension stages it
    x = np.array([-1.0, 2.0, 3.0, 0.5], np.float32)
    out = call(f_first_above, tf.constant(x), tf.constant(limit), **STAGED_PYTHON_LOOPS)
    ref = next((i * 10 for i, v in enumerate(x) if v > limit), -1)
    assert int(out) == ref


def f_return_from_nested(x):
    for i in tf.range(3):
        for j in tf.range(3):
            if tf.gather(tf.gather(x, i), j) < 0:
                return i * 3 + j
    return -1


def test_return_from_nested_loops(call):
    x = np.array([[1, 2, 3], [4, -5, 6], [-7, 8, 9]], np.float32)
    assert int(call(f_return_from_nested, tf.constant(x), **STAGED_PYTHON_LOOPS)) == 4
    assert int(call(f_return_from_nested, tf.constant(np.abs(x)), **STAGED_PYTHON_LOOPS)) == -1


@pytest.mark.parametrize("fn, args", [
    (f_first_above, ([-1.0, 2.0, 3.0], 2.5)),
    (f_return_from_nested, ([[1.0, 2.0, 3.0]] * 3,)),
], ids=["first_above", "nested"])
def test_return_in_tensorflow_loop_raises_as_tf(fn, args):
    # TF 2.21: NotImplementedError "a return statement cannot be placed inside this
    # TensorFlow loop; this may happen if a return statement depends on a static Python
    # condition such as a hyperparameter"
    with pytest.raises(NotImplementedError, match="a return statement cannot be placed inside "
                                                  "this TensorFlow loop; this may happen if a "
                                                  "return statement depends on a static"):
        tf.function(fn)(*[tf.constant(a) for a in args])


def test_return_in_loop_without_return_after_it():
    @tf.function(**STAGED_PYTHON_LOOPS)
    def f(x):
        for i in tf.range(3):
            if x > tf.cast(i, tf.float32):
                return i

    with pytest.raises(NotImplementedError, match="needs a return on every path after the loop"):
        f(tf.constant(1.0))


# --- loop state ------------------------------------------------------------------------------
def f_tuple_dict_state(n, x):
    state = {"sum": x * 0.0, "pair": (x, 1.0)}
    i = 0
    while i < n:
        a, b = state["pair"]
        state = {"sum": state["sum"] + a, "pair": (a * 2.0, b + 1.0)}
        i += 1
    return state


@pytest.mark.parametrize("n", [0, 4])
def test_while_carrying_tuples_and_dicts(call, cond_kind, n):
    x = np.array([1.0, -0.5], np.float32)
    out = call(f_tuple_dict_state, _n(n, cond_kind), tf.constant(x))
    s, a, b = x * 0.0, x.copy(), 1.0
    for _ in range(n):
        s, a, b = s + a, a * 2.0, b + 1.0
    np.testing.assert_allclose(out["sum"].numpy(), s, rtol=1e-6)
    np.testing.assert_allclose(out["pair"][0].numpy(), a, rtol=1e-6)
    np.testing.assert_allclose(float(out["pair"][1]), b)


def test_variable_defined_only_inside_loop():
    @tf.function
    def f(x):
        while x > 0:
            last = x
            x = x - 1.0
        return last

    assert float(f(tf.constant(3.0))) == 1.0


def test_loop_with_variable_updates():
    v = tf.Variable(0)

    @tf.function
    def f(n):
        for i in tf.range(n):
            v.assign_add(i)
        return v.read_value()

    assert int(f(tf.constant(5))) == 10


def test_set_loop_options_shape_invariants_and_maximum_iterations(call):
    def f(x, n):
        for _ in tf.range(n):
            tf.autograph.experimental.set_loop_options(
                shape_invariants=[(x, tf.TensorShape([None]))])
            x = tf.concat([x, x * 2.0], 0)
        return x

    g = tf.function(f)
    np.testing.assert_allclose(g(tf.constant([1.0]), tf.constant(3)).numpy(),
                               [1, 2, 2, 4, 2, 4, 4, 8])

    def h(x):
        while x < 100.0:
            tf.autograph.experimental.set_loop_options(maximum_iterations=3)
            x = x * 2.0
        return x

    assert float(call(h, tf.constant(1.0))) in (8.0, 128.0)
    if tf.config.functions_run_eagerly():
        return
    assert float(tf.function(h)(tf.constant(1.0))) == 8.0


def test_loop_variable_dtype_change_names_it():
    @tf.function
    def f(x):
        for i in tf.range(3):
            x = tf.cast(x, tf.int32)
        return x

    with pytest.raises(TypeError, match="'x' has dtype float32 before the loop, but dtype "
                                        "int32 after one iteration"):
        f(tf.constant(1.0))


def test_loop_variable_shape_change_names_it():
    @tf.function
    def f(x):
        while tf.reduce_sum(x) < 10.0:
            x = tf.concat([x, x], 0)
        return x

    with pytest.raises(ValueError, match=r"'x' has shape \(1,\) before the loop, but shape "
                                         r"\(2,\) after one iteration. Use "
                                         r"tf.autograph.experimental.set_loop_options"):
        f(tf.constant([1.0]))


def test_loop_variable_structure_change_names_it():
    @tf.function
    def f(x):
        while tf.reduce_sum(x) < 10.0:
            x = (x, x)
        return x

    with pytest.raises(TypeError, match="'x' does not have the same nested structure after "
                                        "one iteration"):
        f(tf.constant(1.0))


def test_while_condition_with_assignment_expression(call):
    def f(x):
        n = 0
        while (v := x * n) < 10:
            n += 1
        return v, n

    v, n = call(f, tf.constant(3))
    assert (int(v), int(n)) == (12, 4)
