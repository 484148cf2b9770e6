"""Gradients of elementwise math against finite differences (see gradcheck.py), plus TF's
conventions at kinks checked against hand-written values."""
import numpy as np
import pytest

import flowjit as tf
from flowjit.frontend.gradients import GRADIENTS
from flowjit.ir.registry import OPS
from gradcheck import Case, eager_grads, forward, run_all

R = np.random.default_rng(1234)


def u(shape, lo=-2.0, hi=2.0):
    return R.uniform(lo, hi, size=shape)


def away(shape, gap=0.2, lo=-2.0, hi=2.0):
    """Values in [lo, hi] at least `gap` from 0 (for ops with a kink there)."""
    x = R.uniform(gap, hi, size=shape)
    return np.where(R.random(shape) < 0.5, -x * (-lo / hi), x)


UNARY_DOMAIN = {
    "neg": u((2, 3)), "abs": away((2, 3)), "square": u((2, 3)),
    "sqrt": u((2, 3), 0.3, 3.0), "rsqrt": u((2, 3), 0.3, 3.0), "exp": u((2, 3)),
    "expm1": u((2, 3)), "log": u((2, 3), 0.3, 3.0), "log1p": u((2, 3), -0.7, 3.0),
    "sin": u((2, 3), -3, 3), "cos": u((2, 3), -3, 3), "tan": u((2, 3), -1.2, 1.2),
    "tanh": u((2, 3)), "sigmoid": u((2, 3), -4, 4), "erf": u((2, 3)),
    "softplus": u((2, 3), -4, 4), "reciprocal": away((2, 3), 0.4), "sign": away((2, 3)),
    "acos": u((2, 3), -0.9, 0.9), "asin": u((2, 3), -0.9, 0.9), "atan": u((2, 3)),
    "sinh": u((2, 3)), "cosh": u((2, 3)), "asinh": u((2, 3)), "acosh": u((2, 3), 1.2, 3.0),
    "atanh": u((2, 3), -0.9, 0.9), "erfc": u((2, 3)),
}

CASES = [Case(name, [x], tag="unary", graph="all") for name, x in UNARY_DOMAIN.items()]
CASES += [
    Case("add", [u((2, 3)), u((3,))], tag="bcast", graph="first"),
    Case("atan2", [u((2, 3)), away((3,))], tag="bcast", graph="first"),
    Case("add", [u((2, 1, 3)), u((4, 1))], tag="bcast2", graph=None),
    Case("add", [u((2, 3)), u((2, 3))], tag="same", graph="all"),
    Case("sub", [u((1, 3)), u((2, 3))], tag="bcast"),
    Case("sub", [u(()), u((2, 3))], tag="scalar", graph="all"),
    Case("mul", [u((2, 3)), u((2, 1))], tag="bcast"),
    Case("mul", [u((4,)), u(())], tag="scalar", graph="all"),
    Case("div", [u((2, 3)), away((3,), 0.5)], tag="bcast"),
    Case("div", [u(()), away((2, 2), 0.5)], tag="scalar"),
    Case("floormod", [np.array([[5.3, -3.2, 7.1], [0.4, 2.2, -6.1]]),
                      np.array([2.0, 1.5, -2.5])], tag="bcast"),
    Case("pow", [u((2, 3), 0.3, 2.0), u((2, 3), -2, 2)], tag="same", graph="all"),
    Case("pow", [u((2, 3), 0.3, 2.0), u((3,), -2, 2)], tag="bcast"),
    Case("maximum", [np.array([[0.1, 1.5, -1.0], [2.0, -0.5, 0.3]]),
                     np.array([[0.9, 0.2, -0.3]])], tag="bcast"),
    Case("minimum", [np.array([[0.1, 1.5, -1.0], [2.0, -0.5, 0.3]]),
                     np.array([0.9, 0.2, -0.3])], tag="bcast"),
    Case("select", [R.random((2, 3)) < 0.5, u((2, 3)), u((2, 3))], graph="all"),
    Case("select", [np.array([True, False, True]), u((2, 1)), u((3,))], tag="bcast"),
    Case("add_n", [u((2, 3)), u((2, 3)), u((2, 3))], graph="all"),
    Case("cast", [u((2, 3))], {"dtype": tf.float32}, tag="f64-f32", rtol=1e-4, atol=1e-4, eps=1e-2,
         second=False),
    Case("cast", [np.array([1, 2, 3], np.int32)], {"dtype": tf.float64}, tag="i32-f64",
         graph=None, second=False),
    Case("clip_by_value", [np.array([[-2.0, -0.5, 0.2], [0.7, 1.5, 3.0]]), np.array(-1.0),
                           np.array(1.0)], tag="scalar"),
    Case("clip_by_value", [np.array([[-2.0, -0.5, 0.2], [0.7, 1.5, 3.0]]),
                           np.array([-1.0, 0.0, -1.0]), np.array([[0.5], [2.0]])], tag="bcast"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_gradient_matches_finite_differences(case):
    run_all(case)


# The tape refuses gradients through complex tensors (tests/ops/test_complex.py checks it).
COMPLEX_ONLY = {"real", "imag", "conj", "complex"}


def test_every_differentiable_math_op_is_covered():
    names = {n for n, o in OPS.items() if o.family == "math" and o.differentiable}
    assert names - COMPLEX_ONLY <= {c.op for c in CASES}
    assert names <= set(GRADIENTS)


# --- TF's choices at kinks (values TF 2.21 returns) ----------------------------------------
def _grads(op, inputs, attrs=None):
    """Eager gradients for an all-ones upstream."""
    case = Case(op, [np.asarray(x, np.float64) for x in inputs], attrs or {})
    ups = [np.ones(o.shape) for o in forward(case, case.inputs)]
    return [None if g is None else np.asarray(g) for g in eager_grads(case, case.inputs, ups)]


def test_abs_at_zero_is_zero():
    np.testing.assert_array_equal(_grads("abs", [[-1.0, 0.0, 2.0]])[0], [-1.0, 0.0, 1.0])


def test_sqrt_at_zero_is_inf():
    assert _grads("sqrt", [[0.0, 4.0]])[0].tolist() == [np.inf, 0.25]


def test_maximum_minimum_ties_go_to_x():
    gx, gy = _grads("maximum", [[1.0, 2.0, 3.0], [1.0, 1.0, 4.0]])
    assert gx.tolist() == [1.0, 1.0, 0.0] and gy.tolist() == [0.0, 0.0, 1.0]
    gx, gy = _grads("minimum", [[1.0, 2.0, 3.0], [1.0, 1.0, 4.0]])
    assert gx.tolist() == [1.0, 0.0, 1.0] and gy.tolist() == [0.0, 1.0, 0.0]


def test_clip_at_bounds_passes_to_t():
    case = Case("clip_by_value", [np.array([0.0, 1.0, 2.0, 3.0, 4.0]), np.array(1.0),
                                  np.array(3.0)])
    gt, glo, ghi = eager_grads(case, case.inputs, [np.ones(5)])
    assert np.asarray(gt).tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]
    assert float(glo) == 1.0 and float(ghi) == 1.0


def test_pow_exponent_gradient_is_zero_for_nonpositive_base():
    case = Case("pow", [np.array([0.0, -2.0, 2.0]), np.array([2.0, 2.0, 3.0])])
    gx, gy = eager_grads(case, case.inputs, [np.ones(3)])
    np.testing.assert_allclose(np.asarray(gx), [0.0, -4.0, 12.0])
    np.testing.assert_allclose(np.asarray(gy), [0.0, 0.0, 8.0 * np.log(2.0)])


def test_integer_inputs_get_no_gradient():
    case = Case("add", [np.array([1, 2], np.int32), np.array([3, 4], np.int32)])
    assert eager_grads(case, case.inputs, [None]) == [None, None]


def test_no_upstream_gradient_gives_none():
    case = Case("mul", [np.ones(2), np.ones(2)])
    assert eager_grads(case, case.inputs, [None]) == [None, None]


def test_cast_to_integer_has_no_gradient():
    case = Case("cast", [u((2, 3))], {"dtype": tf.int32})
    # An integer result has no gradient to pass on, whatever arrives.
    assert eager_grads(case, case.inputs, [np.ones((2, 3), np.int32)]) == [None]


def test_second_order_check_uses_the_gradients_own_gradients(monkeypatch):
    # sin's gradient is built from cos: a wrong gradient for cos must fail sin's second-order
    # check (and only that one: sin's first-order gradient stays right).
    from gradcheck import check_first_order, check_second_order
    case = Case("sin", [u((2, 3), -3, 3)])
    check_first_order(case)
    monkeypatch.setitem(GRADIENTS, "cos", lambda op, g: [g])
    check_first_order(case)
    with pytest.raises(AssertionError):
        check_second_order(case)
