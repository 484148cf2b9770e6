"""Reductions and scans: ties (argmax and reduce_max gradients), NaN, empty inputs, negative
and out-of-range axes, integer overflow."""
from oracle.spec import T, case

TIES = T([[1., 3., 3.], [2., 2., 0.], ["-inf", "-inf", "-inf"]])
WITH_NAN = T([[1., "nan", 3.], [0., -1., "-0.0"]])
EMPTY = T([[], []])

CASES = [
    case("reduce_max", TIES, axis=1, grad=(0,)),
    case("reduce_max", TIES, grad=(0,)),
    case("reduce_min", TIES, axis=0, grad=(0,)),
    # Under XLA the tie split of a NaN row is rewritten (0/0 -> 0): README's differences.
    case("reduce_max", WITH_NAN, axis=1, grad=(0,), modes=("eager", "graph")),
    case("reduce_min", WITH_NAN, axis=-1),
    case("reduce_max", EMPTY, axis=1),
    case("reduce_min", T([[], []], "int32"), axis=1),
    case("reduce_max", T([[1, 2], [3, 4]], "int32"), axis=2),
    case("reduce_sum", T([[1., 2.], [3., 4.]]), axis=[0, -1], grad=(0,)),
    case("reduce_sum", T([[1., 2.], [3., 4.]]), axis=-3),
    case("reduce_sum", T([2147483647, 1], "int32")),
    case("reduce_sum", EMPTY, axis=1, keepdims=True, grad=(0,)),
    case("reduce_sum", T([True, True], "bool")),
    case("reduce_sum", T([[1, 2]], "int32"), axis=[0, 0]),
    case("reduce_mean", T([[1., 2.], [3., "inf"]]), axis=0, grad=(0,)),
    case("reduce_mean", T([1, 2], "int32")),
    case("reduce_mean", EMPTY, axis=1),
    case("reduce_prod", T([[2., 0., 3.], [-1., 2., 0.5]]), axis=1, grad=(0,)),
    case("reduce_prod", T([[0., 0., 3.]]), axis=1, grad=(0,)),
    case("reduce_prod", T([65536, 65536], "int32")),
    case("reduce_all", T([[True, False], [True, True]], "bool"), axis=1),
    case("reduce_any", T([[], []], "bool"), axis=1),
    case("reduce_logsumexp", T([[0., 0.], ["-inf", "-inf"], [1000., 1000.], ["inf", 1.]]),
         axis=1, grad=(0,)),
    case("math.reduce_std", T([[1., 2., 4.], [3., 3., 3.]]), axis=1, grad=(0,)),
    case("math.reduce_variance", T([[1., 2., 4.]]), axis=-1, keepdims=True, grad=(0,)),
    case("math.reduce_euclidean_norm", T([[3., 4.], [0., 0.]]), axis=1, grad=(0,)),
    case("argmax", TIES, axis=1),
    case("argmax", WITH_NAN, axis=1),
    case("argmin", TIES, axis=0),
    case("argmax", T([[1, 5, 5]], "int32"), axis=-1, output_type="int32"),
    case("argmax", EMPTY, axis=1),
    case("argmax", T([1., 2.]), axis=1),
    case("cumsum", T([[1., 2., 3.], [4., 5., 6.]]), axis=1, grad=(0,)),
    case("cumsum", T([[1., 2., 3.], [4., 5., 6.]]), axis=1, exclusive=True, reverse=True,
         grad=(0,)),
    case("cumsum", T([2147483647, 1], "int32")),
    case("math.cumprod", T([1., 2., 0., 3.]), exclusive=True, grad=(0,)),
    case("math.cumprod", T([2., -1., 3.]), reverse=True, grad=(0,)),
    case("cumsum", T([1., 2.]), axis=1),
    case("norm", T([[3., 4.], [0., 0.]]), axis=1, grad=(0,)),
    case("norm", T([[3., -4.]]), ord=1),
    # the matrix 2-norm: the largest singular value over an axis pair in any order, kept dims
    # in place; tied singular values (the identity), a zero matrix, a matrix with no elements
    case("norm", T([[[1., -2., 0.5, 3.], [0., 4., -1., 2.]],
                    [[2., 2., -3., 0.], [1., 0., 0., 1.]],
                    [[0., 0., 0., 0.], [0., 0., 0., 0.]]]), ord=2, axis=[2, 0], keepdims=True,
         grad=(0,)),
    case("norm", T([[[3., 1.], [1., 3.]], [[1., 0.], [0., 1.]], [[0., 0.], [0., 0.]]],
                   "float64"), ord=2, axis=[-1, -2], grad=(0,)),
    case("linalg.norm", T([[2., -1., 0.], [1., 1., 5.]]), ord=2, axis=(0, 1), grad=(0,)),
    case("norm", T([[], []]), ord=2, axis=[0, 1]),
    case("norm", T([[1., 2.], [3., 4.]]), ord=2, axis=[0, 2]),
]
