"""TF-oracle cases for the top-level tf names of the breadth work (format:
tests/oracle/spec.py): space_to_batch and its inverse (paddings, crops, trailing dims,
their errors), dynamic_partition and dynamic_stitch (empty partitions, repeated and missing
indices, their errors), approx_top_k (ties, -inf; TF's CPU has a kernel for the max only),
check_pinned's refusal on a build without CUDA, tf.conv (2 and 3 spatial dims, two batch
dims, explicit padding, dilations, TF's CPU refusals; values only: TF registers no gradient
for Conv), extract_volume_patches (both paddings, strides per axis, TF's refusals)."""
from oracle.spec import T, case


def ramp(shape, dtype="float32"):
    """Values 1, 2, 3, ... (signed every third) in `shape`: no two equal."""
    n = 1
    for d in shape:
        n *= d
    flat = [(i + 1) * (-1 if i % 3 == 2 else 1) for i in range(n)]

    def build(dims, start):
        if not dims:
            return flat[start]
        step = 1
        for d in dims[1:]:
            step *= d
        return [build(dims[1:], start + i * step) for i in range(dims[0])]
    return T(build(list(shape), 0), dtype)


X = ramp([2, 4, 6, 3])
CASES = [
    case("space_to_batch_nd", X, [2, 3], [[0, 0], [0, 0]], grad=(0,)),
    case("space_to_batch_nd", X, [2, 3], [[1, 1], [0, 3]], grad=(0,)),
    case("space_to_batch_nd", ramp([1, 5, 2], "int32"), [3], [[1, 0]]),
    case("space_to_batch", ramp([2, 3, 3, 1], "float64"), [2, 2], [[1, 0], [0, 1]], grad=(0,)),
    case("nn.space_to_batch", ramp([1, 2, 2]), [2], [[0, 0]]),
    case("space_to_batch_nd", X, [2, 3], [[1, 0], [0, 0]]),
    case("space_to_batch_nd", X, [0, 3], [[0, 0], [0, 0]]),
    case("space_to_batch_nd", X, [2, 3], [[0, 0], [0, -1]]),
    case("space_to_batch_nd", X, [2, 3, 2, 2], [[0, 0]] * 4),
    case("space_to_batch_nd", X, [2], [[0, 0], [0, 0]]),
    case("batch_to_space", ramp([12, 3, 3, 3]), [2, 3], [[1, 1], [0, 3]], grad=(0,)),
    case("batch_to_space", ramp([6, 2, 1]), [3], [[1, 2]], grad=(0,)),
    case("batch_to_space", ramp([4, 1, 1, 2], "int64"), [2, 2], [[0, 0], [0, 1]]),
    case("batch_to_space", ramp([12, 3, 2, 1]), [2, 3], [[1, 1], [0, 9]]),
    case("batch_to_space", ramp([12, 3, 2, 1]), [2, 3], [[1, 1], [0, 6]]),
    case("batch_to_space", X, [3, 2], [[0, 0], [0, 0]]),
    case("batch_to_space", X, [2, 1], [[0, -1], [0, 0]]),
    case("required_space_to_batch_paddings", [5, 7], [2, 3]),
    case("required_space_to_batch_paddings", [5, 7], [2, 3], [[1, 0], [2, 2]]),
    case("required_space_to_batch_paddings", [4, 0, 1], [2, 2, 1]),
    case("dynamic_partition", T([1., 2., "nan", 4.]), [0, 1, 0, 2], 3, grad=(0,)),
    case("dynamic_partition", ramp([2, 2, 3]), [[0, 1], [1, 1]], 3, grad=(0,)),
    case("dynamic_partition", T([[1, 2], [3, 4]], "int32"), [1, 1], 2),
    case("dynamic_partition", T([1., 2., 3., 4.]), [0, 1, 0, 3], 3),
    case("dynamic_partition", T([1., 2.]), [1, 1, 1], 2),
    case("dynamic_stitch", [[0, 2], [1, 3]], [T([1., 2.]), T([3., "inf"])]),
    case("dynamic_stitch", [[0, 2], [1, 2]], [ramp([2, 2]), ramp([2, 2])]),
    case("dynamic_stitch", [[0, 5]], [T([1, 2], "int32")]),
    case("dynamic_stitch", [[4, 0, 4, 1]], [ramp([4, 2])]),
    case("dynamic_stitch", [5, [1, 2]], [T(1.), T([2., 3.])]),
    case("dynamic_stitch", [[]], [T([], "float32")]),
    case("dynamic_stitch", [[0, -1]], [T([1., 2.])]),
    case("dynamic_stitch", [[0, 1]], [T([1., 2., 3.])]),
    case("approx_top_k", T([[1., 5., 3., 5.], [2., "-inf", -1., 4.]]), 2, grad=(0,)),
    case("approx_top_k", T([2., 7., 2., "-inf", 2., 0.]), 3, grad=(0,)),
    case("approx_top_k", T([[1., 5., 3., 5.]]), 5),
    case("check_pinned", T([1., 2.])),
    case("conv", ramp([2, 5, 5, 2]), ramp([2, 2, 2, 3]), [1, 1, 1, 1], "VALID"),
    case("conv", ramp([2, 5, 5, 2]), ramp([3, 2, 2, 3]), [1, 2, 2, 1], "SAME"),
    case("conv", ramp([1, 2, 5, 4, 2]), ramp([2, 2, 2, 1]), [1, 1, 2, 1], "EXPLICIT",
         explicit_paddings=[0, 0, 1, 2, 0, 1, 0, 0], batch_dims=2),
    case("conv", ramp([1, 4, 4, 3, 2]), ramp([2, 2, 2, 2, 2]), [1, 1, 2, 1, 1], "SAME"),
    case("conv", ramp([1, 5, 5, 2]), ramp([2, 2, 2, 3]), [1, 1, 1, 1], "VALID",
         dilations=[1, 2, 1, 1]),
    case("conv", ramp([1, 4, 2]), ramp([2, 2, 3]), [1, 1, 1], "VALID"),
    case("conv", ramp([1, 4, 4, 2]), ramp([2, 2, 1, 4]), [1, 1, 1, 1], "VALID", groups=2),
    case("conv", ramp([1, 2, 4, 4]), ramp([2, 2, 2, 3]), [1, 1, 1, 1], "VALID",
         data_format="CHANNELS_FIRST"),
    case("extract_volume_patches", ramp([1, 4, 4, 4, 2]), [1, 2, 2, 2, 1], [1, 2, 2, 2, 1],
         "VALID", grad=(0,)),
    case("extract_volume_patches", ramp([2, 3, 4, 5, 1]), [1, 3, 2, 2, 1], [1, 2, 1, 3, 1],
         "SAME", grad=(0,)),
    case("extract_volume_patches", ramp([1, 2, 3, 3, 2], "int32"), [1, 1, 2, 3, 1],
         [1, 1, 1, 1, 1], "VALID"),
    case("extract_volume_patches", ramp([1, 4, 4, 4, 2]), [2, 3, 2, 2, 1], [1, 2, 1, 3, 1],
         "SAME"),
]
