"""Gradients of reductions and scans against finite differences (see gradcheck.py)."""
import numpy as np
import pytest

from flowjit.frontend.gradients import GRADIENTS
from flowjit.ir.registry import OPS
from gradcheck import Case, eager_grads, forward, run_all

R = np.random.default_rng(99)


def u(shape, lo=-2.0, hi=2.0):
    return R.uniform(lo, hi, size=shape)


def distinct(shape):
    """Values with no ties (reduce_max/min are smooth there)."""
    n = int(np.prod(shape))
    return (R.permutation(n) * 0.37 - 2.0 + R.uniform(0, 0.05, n)).reshape(shape)


def red(op, x, axis, keepdims=False, **kw):
    return Case(op, [x], {"axis": axis, "keepdims": keepdims},
                tag=f"rank{x.ndim}-axis{axis}{'-keep' if keepdims else ''}", **kw)


CASES = []
for _op in ("reduce_sum", "reduce_mean"):
    CASES += [red(_op, u((2, 3, 4)), None), red(_op, u((2, 3, 4)), (1,)),
              red(_op, u((2, 3, 4)), (0, 2), True), red(_op, u((2, 3, 4)), (-1, 0)),
              red(_op, u((3, 4)), (), graph="all"), red(_op, u((2, 3)), (1,), graph="all")]
CASES += [
    red("reduce_prod", u((2, 3, 4), 0.5, 1.5), None),
    red("reduce_prod", u((2, 3, 4), -1.5, 1.5), (1,), graph="all"),
    red("reduce_prod", u((2, 3, 4), 0.5, 1.5), (0, 2), True),
    red("reduce_prod", u((2, 3, 4), -1.5, 1.5), (2, 0)),
    red("reduce_prod", u((3,)), ()),
]
for _op in ("reduce_max", "reduce_min"):
    CASES += [red(_op, distinct((2, 3, 4)), None), red(_op, distinct((2, 3, 4)), (1,)),
              red(_op, distinct((2, 3, 4)), (0, 2), True, graph="all"),
              red(_op, distinct((3, 4)), (-1,))]
for _op, lo in (("cumsum", -2.0), ("cumprod", 0.5)):
    for _axis in (0, -1):
        for _ex in (False, True):
            for _rev in (False, True):
                CASES.append(Case(_op, [u((3, 4), lo, 2.0)],
                                  {"axis": _axis, "exclusive": _ex, "reverse": _rev},
                                  tag=f"axis{_axis}-ex{int(_ex)}-rev{int(_rev)}",
                                  graph="all" if _axis == 0 else "first"))
CASES.append(Case("cumprod", [u((2, 5), -1.5, 1.5)], {"axis": 1}, tag="signs"))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_gradient_matches_finite_differences(case):
    run_all(case)


def test_every_differentiable_reduce_op_is_covered():
    names = {n for n, o in OPS.items() if o.family == "reduce" and o.differentiable}
    assert names <= {c.op for c in CASES}
    assert names <= set(GRADIENTS)


def _grad(case):
    ups = [np.ones(o.shape) for o in forward(case, case.inputs)]
    return np.asarray(eager_grads(case, case.inputs, ups)[0])


def test_reduce_max_splits_ties_equally():
    # TF 2.21: tf.reduce_max([1., 3., 3., 2.]) has gradient [0, .5, .5, 0].
    g = _grad(Case("reduce_max", [np.array([1.0, 3.0, 3.0, 2.0])], {"axis": None}))
    assert g.tolist() == [0.0, 0.5, 0.5, 0.0]
    g = _grad(Case("reduce_min", [np.array([[1.0, 1.0, 2.0], [0.0, 5.0, 0.0]])], {"axis": (1,)}))
    assert g.tolist() == [[0.5, 0.5, 0.0], [0.5, 0.0, 0.5]]


def test_reduce_prod_is_exact_at_zeros():
    g = _grad(Case("reduce_prod", [np.array([2.0, 0.0, 3.0])], {"axis": None}))
    assert g.tolist() == [0.0, 6.0, 0.0]
    g = _grad(Case("reduce_prod", [np.array([[0.0, 0.0, 3.0], [1.0, 0.0, 4.0]])],
                   {"axis": (0, 1)}))
    assert g.tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    g = _grad(Case("reduce_prod", [np.array([[2.0, 0.0], [3.0, 5.0]])], {"axis": (0, 1)}))
    assert g.tolist() == [[0.0, 30.0], [0.0, 0.0]]


def test_cumprod_at_zero_follows_tf():
    # TF divides by x and returns 0 where x == 0 (tf.math.cumprod([2., 0., 3.]) -> [1, 0, 0]).
    g = _grad(Case("cumprod", [np.array([2.0, 0.0, 3.0])], {"axis": 0}))
    assert g.tolist() == [1.0, 0.0, 0.0]


def test_mean_of_integers_has_no_gradient():
    case = Case("reduce_mean", [np.array([1, 2, 3], np.int32)], {"axis": None})
    assert eager_grads(case, case.inputs, [np.ones((), np.int32)]) == [None]
