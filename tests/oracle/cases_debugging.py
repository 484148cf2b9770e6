"""tf.debugging's checks: what passes, and the error class and message of what fails."""
from oracle.spec import T, case

EAGER_GRAPH = ("eager", "graph")   # XLA refuses asserts (README: Differences from TF)

CASES = [
    case("debugging.assert_negative", T([-1., -0.5]), modes=EAGER_GRAPH),
    case("debugging.assert_negative", T([-1., 0.]), modes=("eager",)),
    case("debugging.assert_non_positive", T([-1, 0], "int32"), modes=EAGER_GRAPH),
    case("debugging.assert_non_positive", T([-1, 2], "int32"), modes=("eager",)),
    case("debugging.assert_integer", T([1.])),
    case("debugging.assert_integer", T([1], "int64")),
    case("debugging.assert_type", T([1.]), "int32"),
    case("debugging.assert_type", T([1], "int32"), "int32"),
    case("debugging.assert_scalar", T([1.])),
    case("debugging.assert_scalar", T(2.)),
    case("debugging.assert_rank_at_least", T([1.]), 2),
    case("debugging.assert_rank_at_least", T([[1.]]), 2),
    case("debugging.assert_rank_in", T([1.]), [0, 2]),
    case("debugging.assert_rank_in", T([[1.]]), [0, 2]),
    case("debugging.assert_all_finite", T([1., "inf"]), "bad", modes=("eager",)),
    case("debugging.assert_all_finite", T([1., 2.]), "fine", grad=(0,), modes=EAGER_GRAPH),
    case("debugging.check_numerics", T([1., "nan"]), "x", modes=("eager",)),
]
