"""Gradients of the array family against finite differences (see gradcheck.py)."""
import numpy as np
import pytest

from flowjit.frontend.gradients import GRADIENTS
from flowjit.ir.registry import OPS
from gradcheck import Case, eager_grads, run_all

R = np.random.default_rng(5)


def u(*shape):
    return R.uniform(-2.0, 2.0, size=shape)


def ix(values, dtype=np.int32):
    return np.array(values, dtype=dtype)


def ss(x, begin, end, strides, tag, graph="first", **masks):
    attrs = {"begin": tuple(begin), "end": tuple(end), "strides": tuple(strides), **masks}
    return Case("strided_slice", [x], attrs, tag=tag, graph=graph)


CASES = [
    Case("identity", [u(2, 3)], graph="all"),
    Case("reshape", [u(2, 3, 2)], {"shape": (3, 4)}, graph=None),
    Case("reshape", [u(2, 3, 2)], {"shape": (-1, 2)}, tag="infer", graph="first"),
    Case("reshape", [u(2, 3, 2)], {"shape": (-1,)}, tag="flatten", graph="all"),
    Case("transpose", [u(2, 3, 4)], {"perm": (2, 0, 1)}, graph="all"),
    Case("transpose", [u(2, 3)], {"perm": (-1, 0)}, tag="negative"),
    Case("expand_dims", [u(2, 3)], {"axis": 1}, graph="all"),
    Case("expand_dims", [u(2, 3)], {"axis": -1}, tag="negative", graph="all"),
    Case("squeeze", [u(2, 1, 3, 1)], {"axis": (1, -1)}, graph="all"),
    Case("squeeze", [u(2, 1, 3, 1)], {"axis": ()}, tag="all-ones", graph="first"),
    Case("squeeze", [u(2, 1, 3, 1)], {"axis": ()}, tag="unknown", graph="all1"),
    Case("broadcast_to", [u(3, 1)], {"shape": (2, 3, 4)}),
    Case("broadcast_to", [u(3)], {"shape": (2, 3)}, tag="lead"),
    Case("concat", [u(2, 3), u(2, 1), u(2, 2)], {"axis": 1}, graph="first"),
    Case("concat", [u(2, 3), u(1, 3)], {"axis": 0}, tag="one-unknown", graph="first"),
    Case("concat", [u(2, 3), u(3, 3), u(4, 3)], {"axis": -2}, tag="all-unknown", graph="all"),
    Case("split", [u(6, 2)], {"num_split": 3, "sizes": (), "axis": 0}, tag="even"),
    Case("split", [u(2, 6)], {"num_split": 3, "sizes": (1, -1, 2), "axis": -1},
         tag="sizes", graph="all"),
    Case("tile", [u(2, 3)], {"multiples": (2, 3)}, graph="first"),
    Case("tile", [u(2, 3)], {"multiples": (3, 1)}, tag="unknown", graph="all"),
    Case("tile", [u(2, 1, 2)], {"multiples": (1, 4, 2)}, tag="rank3"),
    Case("pad", [u(2, 3), np.array(0.7)], {"paddings": (1, 2, 0, 1)}, graph="all"),
    Case("pad", [u(2, 3), np.array(0.0)], {"paddings": (0, 0, 2, 0)}, tag="one-side"),
    Case("pad", [u(3, 4), np.array(0.0)], {"paddings": (2, 1, 1, 3), "mode": "REFLECT"},
         tag="reflect", graph="all"),
    Case("pad", [u(3, 4), np.array(0.0)], {"paddings": (3, 1, 0, 4), "mode": "SYMMETRIC"},
         tag="symmetric", graph="all"),
    Case("pad", [u(2, 3), np.array(0.0)], {"paddings": (1, 1, 2, 2), "mode": "REFLECT"},
         tag="reflect-max"),
    Case("reverse", [u(2, 3)], {"axis": (1,)}, graph="all"),
    Case("slice", [u(4, 5)], {"begin": (1, 2), "size": (2, -1)}, graph="all"),
    Case("slice", [u(4, 5)], {"begin": (1, 0), "size": (3, 2)}, tag="sized", graph="all"),
    Case("slice", [u(4, 5)], {"begin": (0, 1), "size": (-1, 3)}, tag="first-unknown"),
    ss(u(5, 4), (1, 0), (4, 3), (1, 1), "basic", graph="all"),
    ss(u(6, 4), (0, 3), (6, 0), (2, -1), "strides", graph="all"),
    ss(u(6, 4), (5, 1), (0, 4), (-2, 2), "neg-stride", graph="all", end_mask=0),
    ss(u(3, 4, 5), (1,), (2,), (1,), "shrink", graph="all", shrink_axis_mask=1),
    ss(u(3, 4, 5), (0, 2), (0, 3), (1, 1), "ellipsis-shrink", graph="all",
       ellipsis_mask=1, shrink_axis_mask=2),
    ss(u(3, 4), (0, 0, 1), (0, 0, 3), (1, 1, 1), "newaxis", graph="all",
       begin_mask=1, end_mask=1, new_axis_mask=2),
    ss(u(3, 4), (0, -1), (0, 0), (1, 1), "batch-whole", graph="first",
       begin_mask=1, end_mask=1, shrink_axis_mask=2),
    ss(u(5, 4), (1, 0), (4, 3), (2, 1), "odd-stride"),
    ss(u(3, 4), (0, 0, 1), (0, 0, 3), (1, 1, 1), "newaxis-static", graph="first",
       begin_mask=1, end_mask=1, new_axis_mask=2),
    ss(u(5, 4), (3, 0), (1, 4), (1, 1), "empty"),
    Case("gather", [u(4, 3), ix([3, 0, 3])], {"axis": 0, "batch_dims": 0}, graph="all"),
    Case("gather", [u(2, 4, 3), ix([[1, 1], [0, 3]])], {"axis": 1, "batch_dims": 0},
         tag="axis1", graph="all"),
    Case("gather", [u(2, 4, 3), ix([[1, 1, 2], [0, 3, 3]], np.int64)],
         {"axis": 1, "batch_dims": 1}, tag="batch", graph="all"),
    Case("gather", [u(2, 3, 4, 2), ix([[1, 0], [3, 3]], np.int16)],
         {"axis": 2, "batch_dims": 1}, tag="batch-pre", graph="first"),
    Case("gather_nd", [u(3, 4), ix([[0, 1], [2, 3], [0, 1]])], {"batch_dims": 0},
         graph="all"),
    Case("gather_nd", [u(3, 4, 2), ix([[1], [2]])], {"batch_dims": 0}, tag="slices"),
    Case("gather_nd", [u(2, 3, 4), ix([[[1], [2], [1]], [[0], [0], [2]]])],
         {"batch_dims": 1}, tag="batch", graph="all"),
    Case("scatter_nd", [ix([[1], [3], [1]]), u(3, 2)], {"shape": (5, 2)}, graph="all"),
    Case("tensor_scatter_nd_update", [u(4, 3), ix([[2], [0]]), u(2, 3)], graph="all"),
    Case("tensor_scatter_nd_add", [u(4, 3), ix([[2, 1], [0, 0], [2, 1]]), u(3)],
         graph="all"),
    Case("sort", [R.permutation(12).reshape(3, 4) * 0.5 + 0.01], {"axis": -1}, graph="all"),
    Case("sort", [R.permutation(12).reshape(3, 4) * 0.5 + 0.01],
         {"axis": 0, "descending": True}, tag="axis0-desc", graph="all"),
    Case("sort", [R.permutation(24).reshape(2, 3, 4) * 0.5], {"axis": 1}, tag="middle"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_gradient_matches_finite_differences(case):
    run_all(case)


def test_every_differentiable_array_op_is_covered():
    names = {n for n, o in OPS.items() if o.family == "array" and o.differentiable}
    assert names <= {c.op for c in CASES}
    assert names <= set(GRADIENTS)


def test_split_with_missing_output_gradients():
    case = Case("split", [u(4, 2)], {"num_split": 2, "sizes": (), "axis": 0})
    g = eager_grads(case, case.inputs, [None, np.ones((2, 2))])[0]
    assert np.asarray(g).tolist() == [[0, 0], [0, 0], [1, 1], [1, 1]]


def test_scatter_update_duplicates_follow_tf():
    # TF 2.21: every update at a duplicate index gets the gradient; the tensor gets none there.
    case = Case("tensor_scatter_nd_update", [np.array([1.0, 2.0]), ix([[0], [0]]),
                                             np.array([5.0, 6.0])])
    gt, gi, gu = eager_grads(case, case.inputs, [np.ones(2)])
    assert np.asarray(gt).tolist() == [0.0, 1.0] and gi is None
    assert np.asarray(gu).tolist() == [1.0, 1.0]


def test_sort_ties_follow_tf():
    # TF 2.21: sort([2., 1., 2.]) with upstream [1, 10, 100]: [10, 1, 100] ascending,
    # [1, 100, 10] descending (equal values keep their order).
    case = Case("sort", [np.array([2.0, 1.0, 2.0])], {"axis": -1})
    g = eager_grads(case, case.inputs, [np.array([1.0, 10.0, 100.0])])[0]
    assert np.asarray(g).tolist() == [10.0, 1.0, 100.0]
    case = Case("sort", [np.array([2.0, 1.0, 2.0])], {"axis": -1, "descending": True})
    g = eager_grads(case, case.inputs, [np.array([1.0, 10.0, 100.0])])[0]
    assert np.asarray(g).tolist() == [1.0, 100.0, 10.0]
