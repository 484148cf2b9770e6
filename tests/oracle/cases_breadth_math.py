"""The breadth of tf, tf.math and tf.dtypes: unsigned dtypes, TF's composed array and math
functions, special functions, segment and scatter min/max/prod, bitcast. Inputs with ties,
zeros, NaN/inf, empty tensors, negative axes and the error cases TF raises."""
from oracle.spec import T, case

EAGER_GRAPH = ("eager", "graph")
EAGER = ("eager",)

M34 = T([[0., 1., 2., 3.], [4., -5., 6., 7.], [8., 9., "nan", 11.]])
U16 = T([0, 1, 65535, 300], "uint16")
U32 = T([0, 7, 4294967295, 65536], "uint32")
U64 = T([0, 7, 18446744073709551615, 4294967296], "uint64")

CASES = [
    # --- unsigned dtypes: wrap-around arithmetic, casts both ways, reductions, comparisons
    case("math.add", U16, T([1, 2, 1, 65535], "uint16")),
    case("math.multiply", U32, T([3, 0, 2, 65536], "uint32")),
    case("math.subtract", U64, T([1, 7, 1, 1], "uint64")),
    case("math.floordiv", U32, T([2, 3, 7, 10], "uint32")),
    case("math.floormod", U64, T([2, 3, 7, 10], "uint64")),
    case("math.maximum", U16, T([5, 0, 1, 301], "uint16")),
    case("math.less", U64, T([1, 7, 1, 4294967297], "uint64")),
    case("cast", U64, "float32"),
    case("cast", U32, "int32"),
    # out-of-range values in TF's vectorized part (the first 8 elements): README
    case("cast", T([-1.5, 5e9, 1.9, "nan", 3e9, "inf", 65535., 0.], "float32"), "uint32"),
    case("cast", T([-1.5, 0.5, 5e9, 1e19, 2e19, "nan", "inf"], "float64"), "uint64"),
    case("cast", T([-1.5, 0.5, 70000., "nan", "-inf"], "float32"), "uint16"),
    case("reduce_sum", U32),
    case("reduce_max", U16),
    case("bitwise.bitwise_and", U32, T([1, 3, 255, 65537], "uint32")),
    # --- roll
    case("roll", M34, 1, 0, grad=(0,)),
    case("roll", M34, [1, -5], [1, 1], grad=(0,)),
    case("roll", M34, [2, 7], [0, -1], grad=(0,)),
    case("roll", T([[1, 2, 3]], "int64"), -1, 1),
    case("roll", T([], "float32"), 3, 0),
    case("roll", T(1.), 1, 0),
    case("roll", M34, [1, 2], [0], modes=EAGER),
    case("roll", M34, 1, 2),
    # --- repeat
    case("repeat", M34, 2, axis=1, grad=(0,)),
    case("repeat", M34, [1, 0, 3], axis=0, grad=(0,)),
    case("repeat", M34, [2, 0, 1, 1], axis=-1, grad=(0,)),
    case("repeat", T([[1, 2], [3, 4]], "int32"), 2),
    case("repeat", T([[1, 2], [3, 4]], "int32"), [1, 2], axis=0),
    case("repeat", T([], "float32"), 3, axis=0),
    # --- meshgrid
    case("meshgrid", T([1., 2., 3.]), T([4., 5.]), grad=(0, 1)),
    case("meshgrid", T([1., 2., 3.]), T([4., 5.]), T([6., 7., 8., 9.]), indexing="ij",
         grad=(0, 1, 2)),
    case("meshgrid", T([1, 2], "int32"), T([], "int32")),
    # --- sequence_mask
    case("sequence_mask", T([1, 3, 0], "int32"), 4),
    case("sequence_mask", T([[1, 2], [0, 2]], "int64"), modes=EAGER_GRAPH),
    case("sequence_mask", T([2, 0, 5], "int32"), 3, dtype="float32"),
    case("sequence_mask", T([2, 1], "int32"), 0),
    # --- reverse_sequence
    case("reverse_sequence", M34, T([2, 4, 0], "int32"), seq_axis=1, batch_axis=0, grad=(0,)),
    case("reverse_sequence", T([[1, 2], [3, 4], [5, 6]], "int32"), T([3, 1], "int64"),
         seq_axis=0, batch_axis=1),
    case("reverse_sequence", T([[[1., 2.], [3., 4.]], [[5., 6.], [7., 8.]]]),
         T([1, 2], "int32"), seq_axis=1, batch_axis=2, grad=(0,)),
    case("reverse_sequence", M34, T([2, 5, 0], "int32"), seq_axis=1, batch_axis=0,
         modes=EAGER),
    # --- tensor_scatter_nd_sub
    case("tensor_scatter_nd_sub", T([1., 2., 3., 4.]), T([[1], [1], [3]], "int32"),
         T([2., 3., "inf"]), grad=(0, 2)),
    case("tensor_scatter_nd_sub", T([[1, 2], [3, 4]], "int32"), T([[0]], "int32"),
         T([[5, 6]], "int32")),
    # --- broadcast shapes, histogram bins, unravel_index
    case("broadcast_dynamic_shape", T([2, 1, 3], "int32"), T([4, 1], "int32")),
    case("broadcast_dynamic_shape", T([5, 1], "int64"), T([], "int64")),
    case("broadcast_dynamic_shape", T([2, 3], "int32"), T([4], "int32"), modes=EAGER),
    case("histogram_fixed_width_bins", T([-1., 0., 1.5, 2., 4.999, 5., 100.]),
         T([0., 5.]), nbins=5),
    case("histogram_fixed_width_bins", T([[1., 2.], [3., 9.]], "float64"), T([0., 10.], "float64"),
         nbins=3),
    case("unravel_index", T([1, 5, 4], "int32"), T([3, 2], "int32")),
    case("unravel_index", T(7, "int64"), T([2, 2, 2], "int64")),
    case("unravel_index", T([6], "int32"), T([3, 2], "int32"), modes=EAGER),
    case("shape_n", [T([[1., 2.]]), T([], "float32")]),
    case("shape_n", [T([[1., 2.]]), T([], "int32")], modes=EAGER),
    case("parallel_stack", [T([1., 2.]), T([3., 4.])], modes=EAGER),
    # --- tf.math composites
    case("math.angle", T([-2., 0., "-0.0", 3., "nan", "-inf"]), grad=(0,)),
    case("math.angle", T([-2., 0., 3.], "float64")),
    case("math.invert_permutation", T([2, 0, 1, 3], "int32")),
    case("math.invert_permutation", T([], "int64")),
    case("math.invert_permutation", T([0, 0, 1], "int32"), modes=EAGER),
    case("math.invert_permutation", T([0, 3, 1], "int32"), modes=EAGER),
    case("math.polyval", [T([1., -2.]), T([2., 0.5]), T(3.)], T([0., 1., 2., -1.]),
         grad=(1,)),
    case("math.polyval", [], T([1., 2.])),
    case("math.polyval", [T(2.), T(-1.), T(0.5)], T([[0., 1.], [2., "inf"]]), grad=(1,)),
    case("math.zero_fraction", T([[0., 1.], [0., "nan"]])),
    case("math.zero_fraction", T([0, 5, 0], "int32")),
    case("math.is_non_decreasing", T([1, 1, 2], "int32")),
    case("math.is_non_decreasing", T([[1., 2.], [2., 1.]])),
    case("math.is_strictly_increasing", T([1, 1, 2], "int32")),
    case("math.is_strictly_increasing", T([], "float32")),
    case("math.is_strictly_increasing", T([-1., 0., 5.])),
    case("math.accumulate_n", [T([1., 2.]), T([3., "inf"]), T([0.5, 1.])], grad=()),
    case("math.unsorted_segment_mean", T([[1., 2.], [3., 4.], [5., 6.]]),
         T([0, 2, 0], "int32"), 4, grad=(0,)),
    case("math.unsorted_segment_mean", T([1, 2, 4], "int32"), T([1, 1, 0], "int64"), 2),
    case("math.unsorted_segment_sqrt_n", T([1., 2., 3., 4.]), T([0, 0, 1, 0], "int32"), 3,
         grad=(0,)),
    case("math.confusion_matrix", T([1, 2, 4], "int32"), T([2, 2, 4], "int32"),
         modes=EAGER),
    case("math.confusion_matrix", T([0, 1, 1], "int64"), T([1, 1, 0], "int64"),
         num_classes=3, weights=T([0.5, 1., 2.]), dtype="float32", modes=EAGER),
    case("math.in_top_k", T([0, 2, 1], "int32"), T([[1., 3., 2.], [1., 1., 1.], [0., 5., 4.]]),
         2),
    case("math.in_top_k", T([0, 3], "int64"), T([[1., "nan"], [2., 1.]]), 1, modes=EAGER),
    # --- aliases TF exports twice
    case("tan", T([0., 1., -1.5]), grad=(0,)),
    case("scalar_mul", 2.5, T([1., -2.]), grad=(1,)),
    case("dtypes.complex", T([1, -2], "int32"), T([0, 3], "int32")),
    case("dtypes.saturate_cast", T([300, -5, 7], "int32"), "uint8"),
    case("dtypes.saturate_cast", T([1e10, -1., 7.5], "float32"), "uint16"),
]
