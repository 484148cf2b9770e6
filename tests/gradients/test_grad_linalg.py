"""Gradients of matmul, tensordot, einsum and top_k against finite differences."""
import numpy as np
import pytest

import flowjit as tf
from flowjit.frontend.gradients import GRADIENTS
from flowjit.ir.registry import OPS
from gradcheck import Case, eager_grads, run_all

R = np.random.default_rng(7)


def u(*shape):
    return R.uniform(-2.0, 2.0, size=shape)


def mm(a, b, ta=False, tb=False, **kw):
    return Case("matmul", [a, b], {"transpose_a": ta, "transpose_b": tb},
                tag=f"{a.shape}x{b.shape}-t{int(ta)}{int(tb)}", **kw)


CASES = [
    mm(u(2, 3), u(3, 4), graph="all"),
    mm(u(3, 2), u(3, 4), ta=True),
    mm(u(2, 3), u(4, 3), tb=True, graph="all"),
    mm(u(3, 2), u(4, 3), ta=True, tb=True),
    mm(u(2, 2, 3), u(3, 4)),                       # batch broadcast
    mm(u(2, 1, 2, 3), u(3, 4, 3), ta=False, tb=True),
    mm(u(1, 3, 2), u(2, 2, 3), ta=True, tb=True),
    Case("tensordot", [u(2, 3, 4), u(4, 3, 5)], {"a_axes": (1, 2), "b_axes": (1, 0)},
         tag="crossed", graph="all"),
    Case("tensordot", [u(2, 3), u(3, 2)], {"a_axes": (0, 1), "b_axes": (1, 0)}, tag="full"),
    Case("tensordot", [u(2, 3), u(4,)], {"a_axes": (), "b_axes": ()}, tag="outer"),
    Case("tensordot", [u(3, 2, 4), u(2, 5, 3)], {"a_axes": (0, 1), "b_axes": (2, 0)},
         tag="perm"),
    Case("tensordot", [u(2, 3), u(3, 4)], {"a_axes": (-1,), "b_axes": (-2,)}, tag="negative"),
    Case("top_k", [R.permutation(12).reshape(3, 4) * 0.5 + u(3, 4) * 0.01],
         {"k": 2}, tag="k2", graph="all"),
    Case("top_k", [R.permutation(6) * 0.5 + 0.1], {"k": 6}, tag="rank1-all"),
    Case("top_k", [R.permutation(24).reshape(2, 3, 4) * 0.3], {"k": 1}, tag="rank3"),
]

EINSUMS = [
    ("ij,jk->ik", [(2, 3), (3, 4)], "all"),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)], "all"),
    ("ij->ji", [(2, 3)], "all"),
    ("ij->", [(2, 3)], "all"),
    ("ij,ij->ij", [(2, 3), (2, 3)], "all"),
    ("ij,k->ijk", [(2, 3), (2,)], "all"),
    ("ii->i", [(3, 3)], "first"),
    ("ii->", [(3, 3)], "first"),
    ("iij,jk->ik", [(2, 2, 3), (3, 2)], "first"),
    ("ij,jk->i", [(2, 3), (3, 4)], "all"),           # k summed out
    ("ijk,k->j", [(2, 3, 4), (4,)], "first"),        # i only in x: broadcast back
    ("...ij,...jk->...ik", [(2, 2, 3), (3, 2)], "all"),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 2)], "first"),   # broadcast ellipsis
    ("i...,i->...", [(2, 3, 2), (2,)], "all"),
    ("ab,bc,cd->ad", [(2, 3), (3, 2), (2, 2)], "all"),
    ("ij,j->", [(2, 3), (3,)], "first"),
]
for _eq, _shapes, _mode in EINSUMS:
    CASES.append(Case("einsum", [u(*s) for s in _shapes], {"equation": _eq},
                      tag=f"{_eq}-{'x'.join(''.join(map(str, s)) for s in _shapes)}",
                      graph=_mode))



def invertible(*shape):
    return u(*shape) + shape[-1] * np.eye(shape[-1])


# Square-matrix solvers. Cholesky's gradient is TF's symmetric one, which finite
# differences of a kernel reading only the lower triangle do not give: tested on its own below.
CASES += [
    Case("matrix_inverse", [invertible(2, 3, 3)], tag="batch"),
    Case("matrix_inverse", [invertible(3, 3)], {"adjoint": True}, tag="adjoint", graph=None),
    Case("matrix_determinant", [invertible(2, 3, 3)], tag="batch"),
    Case("matrix_solve", [invertible(3, 3), u(3, 2)], tag="plain"),
    Case("matrix_solve", [invertible(2, 3, 3), u(2, 3, 1)], {"adjoint": True}, tag="adjoint",
         graph=None),
]


def lower_triangular(*shape):
    return np.tril(invertible(*shape))


# Triangular solves read one triangle (finite differences of the other are zero, as the
# gradient's band mask); slogdet's sign has no gradient.
CASES += [
    Case("matrix_triangular_solve", [lower_triangular(2, 3, 3), u(2, 3, 2)], tag="lower"),
    Case("matrix_triangular_solve", [lower_triangular(3, 3), u(2, 3, 1)], {"adjoint": True},
         tag="adjoint-broadcast", graph=None),
    Case("matrix_triangular_solve", [np.swapaxes(lower_triangular(3, 3), 0, 1), u(3, 2)],
         {"lower": False}, tag="upper", graph=None),
    Case("log_matrix_determinant", [invertible(2, 3, 3)], tag="batch"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_gradient_matches_finite_differences(case):
    run_all(case)


def test_every_differentiable_linalg_op_is_covered():
    names = {n for n, o in OPS.items() if o.family == "linalg" and o.differentiable}
    # cholesky: test_cholesky_gradient_of_a_symmetric_input
    assert names - {"cholesky"} <= {c.op for c in CASES}
    assert names <= set(GRADIENTS)


def test_top_k_ties_follow_the_returned_indices():
    # TF 2.21: top_k([2., 1., 2.], 2) with upstream [1, 10] gives [1, 0, 10].
    case = Case("top_k", [np.array([2.0, 1.0, 2.0])], {"k": 2})
    g = eager_grads(case, case.inputs, [np.array([1.0, 10.0]), None])
    assert np.asarray(g[0]).tolist() == [1.0, 0.0, 10.0]


def test_integer_matmul_has_no_gradient():
    case = Case("matmul", [np.ones((2, 2), np.int32), np.ones((2, 2), np.int32)],
                {"output_type": tf.int32})
    assert eager_grads(case, case.inputs, [np.ones((2, 2), np.int32)]) == [None, None]


def test_cholesky_gradient_of_a_symmetric_input():
    """d/dx sum(w * cholesky((x + x^T) / 2)) against central finite differences."""
    x0 = u(3, 3) + 3 * np.eye(3)
    x0 = x0 @ x0.T
    w = u(3, 3)

    def f(x):
        return np.sum(w * np.linalg.cholesky((x + x.T) / 2))

    want = np.zeros_like(x0)
    for i in np.ndindex(x0.shape):
        d = np.zeros_like(x0)
        d[i] = 1e-6
        want[i] = (f(x0 + d) - f(x0 - d)) / 2e-6
    for jit in (None, True):
        @tf.function(jit_compile=jit)
        def grad(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.reduce_sum(w * tf.linalg.cholesky((x + tf.transpose(x)) / 2))
            return tape.gradient(y, x)
        np.testing.assert_allclose(grad(tf.constant(x0)).numpy(), want, rtol=1e-5, atol=1e-7)
