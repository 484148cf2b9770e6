"""`if`/`elif`/`else`, conditional expressions, `and`/`or`/`not` and `return` in branches:
each with a Python condition (plain Python at trace time, no cond node) and a tensor one (a
staged cond), run eagerly, on the graph executor and under XLA, against NumPy references."""
import numpy as np
import pytest

import flowjit as tf


def _cond_value(flag, kind):
    return flag if kind == "python" else tf.constant(flag)


def _assert_staged(ops_of, fn, args, kind, op="cond"):
    ops = ops_of(fn, *args)
    if kind == "tensor":
        assert op in ops, f"expected a staged {op}, got ops {ops}"
    else:
        assert op not in ops, f"a Python condition must not stage a {op}: {ops}"


X = np.array([[1.5, -2.0, 0.25], [3.0, 0.5, -1.0]], np.float32)


def f_if_elif_else(p, q, x):
    if p:
        y = x * 2.0
        z = 1.0
    elif q:
        y = x - 1.0
        z = 2.0
    else:
        y = -x
        z = 3.0
    return y * z


def ref_if_elif_else(p, q, x):
    if p:
        return x * 2.0 * 1.0
    if q:
        return (x - 1.0) * 2.0
    return -x * 3.0


@pytest.mark.parametrize("p,q", [(True, False), (False, True), (False, False)])
def test_if_elif_else(call, ops_of, cond_kind, p, q):
    args = (_cond_value(p, cond_kind), _cond_value(q, cond_kind), tf.constant(X))
    out = call(f_if_elif_else, *args)
    np.testing.assert_allclose(out.numpy(), ref_if_elif_else(p, q, X), rtol=1e-6)
    _assert_staged(ops_of, f_if_elif_else, args, cond_kind)


def f_if_without_else(x, t):
    y = x
    if tf.reduce_sum(x) > t:
        y = y * 10.0
    return y


@pytest.mark.parametrize("t", [0.0, 100.0])
def test_if_on_computed_tensor(call, t):
    out = call(f_if_without_else, tf.constant(X), tf.constant(t))
    expected = X * 10.0 if X.sum() > t else X
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


def f_ifexp(p, x):
    return x + 1.0 if p else x * x


@pytest.mark.parametrize("p", [True, False])
def test_conditional_expression(call, ops_of, cond_kind, p):
    args = (_cond_value(p, cond_kind), tf.constant(X))
    out = call(f_ifexp, *args)
    np.testing.assert_allclose(out.numpy(), X + 1.0 if p else X * X, rtol=1e-6)
    _assert_staged(ops_of, f_ifexp, args, cond_kind)


def f_bool_ops(a, b, x):
    if a and not b:
        x = x + 1.0
    if a or b:
        x = x * 3.0
    if not (a or b):
        x = x - 100.0
    return x


@pytest.mark.parametrize("a,b", [(True, True), (True, False), (False, True), (False, False)])
def test_and_or_not(call, cond_kind, a, b):
    out = call(f_bool_ops, _cond_value(a, cond_kind), _cond_value(b, cond_kind), tf.constant(X))
    y = X.copy()
    if a and not b:
        y = y + 1.0
    if a or b:
        y = y * 3.0
    if not (a or b):
        y = y - 100.0
    np.testing.assert_allclose(out.numpy(), y, rtol=1e-6)


def test_and_or_are_lazy_on_tensors(ops_of):
    """The right operand of a tensor `and`/`or` is evaluated inside a cond branch: an op it
    builds is not in the outer graph."""
    def f(a, x):
        return a and tf.reduce_sum(tf.sqrt(x)) > 1.0

    cf = tf.function(f).get_concrete_function(tf.constant(True), tf.constant(X))
    outer = [n.op for n in cf.graph.nodes]
    assert "cond" in outer and "sqrt" not in outer
    assert "sqrt" in ops_of(f, tf.constant(True), tf.constant(X))
    g = tf.function(f)
    assert bool(g(tf.constant(False), tf.constant(-X))) is False
    assert bool(g(tf.constant(True), tf.constant(np.full(3, 4.0, np.float32)))) is True

    def python_short_circuit(x):
        called = []
        r = False and called.append(1)
        return x, r, called

    out = tf.function(python_short_circuit)(tf.constant(1.0))
    # TF 2.21: a Python value returned from a tf.function comes back as a Tensor
    assert out[1].dtype == tf.bool and not bool(out[1]) and out[2] == []


def f_returns(p, x):
    # the last return sits in the elif's else: TF refuses an elif that returns on one side
    # only, also when a return follows it (program_cases.elif_return_then_fallthrough)
    if p:
        return x * 2.0
    elif tf.reduce_min(x) > 0:
        return x + 1.0
    else:
        return x - 1.0


@pytest.mark.parametrize("p", [True, False])
def test_return_inside_branches(call, ops_of, cond_kind, p):
    for x in (X, np.abs(X)):
        out = call(f_returns, _cond_value(p, cond_kind), tf.constant(x))
        if p:
            expected = x * 2.0
        elif x.min() > 0:
            expected = x + 1.0
        else:
            expected = x - 1.0
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    # The `elif` condition is always a tensor; with a Python True the branch is decided first.
    ops = ops_of(f_returns, _cond_value(p, cond_kind), tf.constant(X))
    assert ops.count("cond") == (0 if cond_kind == "python" and p else
                                 1 if cond_kind == "python" else 2)


def f_nested_structures(p, x):
    if p:
        out = {"a": x, "b": (x * 2.0, 7)}
    else:
        out = {"a": -x, "b": (x * 0.0, 7)}
    return out


@pytest.mark.parametrize("p", [True, False])
def test_branches_join_nested_structures(call, cond_kind, p):
    out = call(f_nested_structures, _cond_value(p, cond_kind), tf.constant(X))
    np.testing.assert_allclose(out["a"].numpy(), X if p else -X)
    np.testing.assert_allclose(out["b"][0].numpy(), X * 2.0 if p else X * 0.0)
    assert int(out["b"][1]) == 7     # equal Python values stay Python values


def test_branches_with_python_values_become_tensors():
    @tf.function
    def f(p):
        if p:
            y = 1
        else:
            y = 2
        return y

    out_t, out_f = f(tf.constant(True)), f(tf.constant(False))
    assert out_t.dtype == tf.int32 and int(out_t) == 1 and int(out_f) == 2


def test_variable_defined_in_one_branch_only_is_fine_when_dead():
    @tf.function
    def f(x):
        if x > 0:
            w = x
        else:
            w = -x
            unused = 3  # noqa: F841
        return w

    assert float(f(tf.constant(-2.0))) == 2.0


def test_variable_updates_in_branches_run_at_run_time():
    v = tf.Variable(0.0)

    @tf.function
    def f(x):
        if x > 0:
            v.assign_add(x)
        else:
            v.assign_sub(1.0)
        return v.read_value()

    f(tf.constant(2.0))
    f(tf.constant(-5.0))
    f(tf.constant(3.0))
    assert float(v.numpy()) == 2.0 - 1.0 + 3.0


# --- errors ----------------------------------------------------------------------------------
def test_undefined_in_else_branch_names_the_variable():
    @tf.function
    def f(x):
        if x > 0:
            w = x
        return w

    with pytest.raises(ValueError, match="'w' must also be initialized in the else branch"):
        f(tf.constant(1.0))

    @tf.function
    def g(x):
        if x > 0:
            pass
        else:
            w = x
        return w

    with pytest.raises(ValueError, match="'w' must also be initialized in the main branch"):
        g(tf.constant(1.0))


def test_undefined_with_python_condition_is_plain_python():
    @tf.function
    def f(x, p):
        if p:
            w = x
        return w

    assert float(f(tf.constant(4.0), True)) == 4.0
    with pytest.raises(UnboundLocalError):
        f(tf.constant(4.0), False)


def test_branch_dtype_and_structure_mismatch():
    @tf.function
    def f(x):
        if x > 0:
            y = x
        else:
            y = 1
        return y

    with pytest.raises(TypeError, match="'y' has dtype float32 in the main branch, but dtype "
                                        "int32 in the else branch"):
        f(tf.constant(1.0))

    @tf.function
    def g(x):
        if x > 0:
            return x, x
        return x

    with pytest.raises(TypeError, match="same nested structure in the main and else branches"):
        g(tf.constant(1.0))


def test_return_in_one_branch_only():
    @tf.function
    def f(x):
        if x > 0:
            return x

    with pytest.raises(ValueError, match="the else branch must also have a return statement"):
        f(tf.constant(1.0))


def _append_in_one_branch(x):
    items = [x]
    if x > 0:
        items.append(x * 2.0)
    return items


def _append_in_both_branches(x):
    items = [x]
    if x > 0:
        items.append(x * 2.0)
    else:
        items.append(x * 3.0)
    return items


def test_list_appended_in_a_tensor_if_is_refused_as_in_tf():
    # TF 2.21: InaccessibleTensorError (a ValueError) for both: the appended tensor belongs
    # to the branch graph
    for fn in (_append_in_one_branch, _append_in_both_branches):
        with pytest.raises(ValueError, match="list 'items' gets a tensor appended inside a "
                                             "staged branch"):
            tf.function(fn)(tf.constant(1.0))


def test_list_appended_in_one_branch_of_tensor_if_with_lists_feature():
    lists = {"experimental_autograph_options": tf.autograph.experimental.Feature.LISTS}
    with pytest.raises(ValueError, match="list 'items' has 2 elements after the main branch "
                                         "but 1"):
        tf.function(_append_in_one_branch, **lists)(tf.constant(1.0))
    a, b = tf.function(_append_in_both_branches, **lists)(tf.constant(-1.0))
    assert float(a) == -1.0 and float(b) == -3.0


def test_non_bool_tensor_condition():
    @tf.function
    def f(x):
        if x:
            x = x + 1.0
        return x

    with pytest.raises(TypeError, match="scalar bool tensor"):
        f(tf.constant(1.0))


def test_autograph_false_keeps_tf_error():
    def f(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        tf.function(f, autograph=False)(tf.constant(1.0))
    assert float(tf.function(f)(tf.constant(-3.0))) == 3.0
