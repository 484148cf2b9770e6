"""Guarded and compound math (tf.math's no-NaN divisions, xlogy and relatives, log_sigmoid,
is_inf, count_nonzero, truncatediv/truncatemod): the guarded points and their gradients."""
from oracle.spec import T, case

X = T([0., 1., -2., 0., "inf", "nan", 3.])
Y = T([0., 0., 4., 2., 0., 0., "-0.0"])

CASES = [
    case("math.divide_no_nan", X, Y, grad=(0, 1)),
    case("math.divide_no_nan", T([1, 2], "int32"), T([0, 2], "int32")),
    case("math.reciprocal_no_nan", T([0., 2., "-0.0", "inf"]), grad=(0,)),
    case("math.xlogy", T([0., 0., 1., 2., 0., -1.]), T([0., -1., 0., 3., "nan", 2.]),
         grad=(0, 1)),
    case("math.xlogy", T([[0.], [2.]]), T([1., 0.5]), grad=(0, 1)),
    case("math.xlog1py", T([0., 0., 1., 2.]), T([-1., -2., -1., 0.5]), grad=(0, 1)),
    case("math.xdivy", T([0., 0., 1., -2.]), T([0., "inf", 0., 4.]), grad=(0, 1)),
    case("math.log_sigmoid", T([0., 100., -100., -1000., 1e-8]), grad=(0,)),
    case("math.is_inf", T([0., "inf", "-inf", "nan", 1e38])),
    case("math.rint", T([0.5, 1.5, 2.5, -0.5, -1.7, "-0.0"])),
    case("math.count_nonzero", T([[0., 1., "nan"], ["-0.0", 0., 2.]]), axis=1),
    case("math.count_nonzero", T([[0, 1], [2, 3]], "int32"), keepdims=True),
    case("math.count_nonzero", T(["", "a", ""], "string"), modes=("eager", "graph")),
    case("math.count_nonzero", T([[True, False]], "bool"), axis=-1, dtype="int32"),
    case("truncatediv", T([7, -7, 7, -7], "int32"), T([2, 2, -2, -2], "int32")),
    case("truncatemod", T([7, -7, 7, -7], "int32"), T([3, 3, -3, -3], "int32")),
    case("truncatemod", T([7.5, -7.5, 7.5, -7.5, "-0.0"]), T([2., 2., -2., -2., 3.])),
    case("truncatemod", T([-6, 6], "int64"), T([3, -4], "int64")),
    case("realdiv", T([1., -1., 0.]), T([0., 4., 0.]), grad=(0, 1)),
]
