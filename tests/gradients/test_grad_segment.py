"""Gradients of the segment reductions against finite differences (see gradcheck.py)."""
import numpy as np
import pytest

from flowjit.frontend.gradients import GRADIENTS
from flowjit.ir.registry import OPS
from gradcheck import Case, check_graph, eager_grads, forward, run_all

R = np.random.default_rng(7)


def distinct(shape):
    """Values with no ties (a max is smooth there)."""
    n = int(np.prod(shape))
    return (R.permutation(n) * 0.37 - 2.0 + R.uniform(0, 0.05, n)).reshape(shape)


SORTED = np.array([0, 0, 2, 2, 2, 3], np.int32)
UNSORTED = np.array([[1, -1, 0], [3, 2, 1]], np.int64)  # no empty segment: max is finite
CASES = [Case(f"segment_{how}", [distinct((6, 2)), SORTED], tag="rows")
         for how in ("sum", "mean", "max", "min", "prod")]
SORTED_CASES = len(CASES)
CASES += [Case(f"unsorted_segment_{how}", [distinct((2, 3, 2)), UNSORTED],
               {"num_segments": 4}, tag="ids-2d-negative")
          for how in ("sum", "max", "min", "prod")]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_gradient_matches_finite_differences(case):
    run_all(case)


@pytest.mark.parametrize("case", CASES[SORTED_CASES:], ids=lambda c: c.id)
def test_unsorted_gradient_under_xla(case):
    check_graph(case, jit_compile=True)


def test_every_segment_op_is_covered():
    names = {n for n, o in OPS.items() if o.family == "segment"}
    assert names == {c.op for c in CASES} and names <= set(GRADIENTS)


def test_max_splits_ties_equally():
    # TF 2.21: unsorted_segment_max(d * [1,1,1,1,0], [0,0,2,2,1], 4) has gradient
    # [0, 1, 0, 1, 0] for d = [1..5]; a tie within a segment shares the gradient.
    case = Case("unsorted_segment_max", [np.array([3.0, 3.0, 1.0]), np.array([0, 0, 1])],
                {"num_segments": 2})
    ups = [np.ones(o.shape) for o in forward(case, case.inputs)]
    assert np.asarray(eager_grads(case, case.inputs, ups)[0]).tolist() == [0.5, 0.5, 1.0]
