"""TF-oracle cases for the last tf.nn / tf.image names (format: tests/oracle/spec.py):
with_space_to_batch, extract_glimpse, the fractional pools with sizes their ratios divide
(TF's pooling sequences are random otherwise), and their error cases."""
from oracle.spec import T, WindowOp, case

IMAGE = T([[[[((7 * (r * 6 + c) + b) % 11 - 5) / 2] for c in range(6)] for r in range(5)]
           for b in range(2)])
FILTER = T([[[[1, -1]], [[0.5, 2]], [[0, 1]]], [[[-2, 0]], [[1, 1]], [[0.25, -1]]],
            [[[1, 0]], [[0, 0.5]], [[-1, 3]]]])
TIES = T([[[[0], [1], [1], ["-inf"]], [[1], [0], [2], [2]], [[-1], [1], ["inf"], [0]]]])
CASES = [
    case("nn.with_space_to_batch", IMAGE, [2, 2], "SAME", WindowOp("nn.conv2d", FILTER, 1),
         filter_shape=[3, 3, 1, 2], grad=(0,)),
    case("nn.with_space_to_batch", IMAGE, [2, 3], "VALID", WindowOp("nn.conv2d", FILTER, 1),
         grad=(0,)),
    case("nn.with_space_to_batch", IMAGE, [3, 1], [[0, 0], [1, 2], [0, 1], [0, 0]],
         WindowOp("nn.conv2d", FILTER, 1), grad=(0,)),
    case("nn.with_space_to_batch", TIES, [2], "VALID", WindowOp("nn.max_pool2d", [1, 2], 1),
         spatial_dims=[2], grad=(0,)),
    case("nn.with_space_to_batch", TIES, [1, 1], "SAME", WindowOp("nn.max_pool2d", 2, 1),
         grad=(0,)),
    case("nn.with_space_to_batch", IMAGE, [2, 0], "VALID", WindowOp("nn.max_pool2d", 2, 1)),
    case("nn.with_space_to_batch", IMAGE, [2, 2], "SAME", WindowOp("nn.max_pool2d", 2, 1)),
    case("nn.with_space_to_batch", IMAGE, [2, 2], "VALID", WindowOp("nn.max_pool2d", 2, 1),
         spatial_dims=[2, 1]),
]

PICTURE = T([[[[r * 6 + c, -(r * 6 + c) / 4] for c in range(6)] for r in range(5)],
             [[[(r * c) % 5 - 2, "inf" if r == c == 0 else 0.5] for c in range(6)]
              for r in range(5)]])
NO_XLA = ("eager", "graph")   # a size known only when the graph runs
CORNERS = T([[1.5, 2.5], [-1.5, 0.5]])
CASES += [
    case("image.extract_glimpse", PICTURE, [3, 3], T([[0, 0], [0.5, 0.5]]), noise="zero"),
    case("image.extract_glimpse", PICTURE, [3, 3], T([[0.1, -0.1], [-0.9, 1.2]]),
         noise="zero"),
    case("image.extract_glimpse", PICTURE, [3, 4], CORNERS, centered=False,
         normalized=False, noise="zero"),
    case("image.extract_glimpse", PICTURE, T([2, 7], "int32"),
         T([[0.7, -3.2], [4.9, 5.5]]), centered=False, normalized=False, noise="zero",
         modes=NO_XLA),
    case("image.extract_glimpse", PICTURE, [2, 2], T([[-0.7, -3.2], [-0.1, 2.5]]),
         normalized=False, noise="zero"),
    case("image.extract_glimpse", PICTURE, [4, 1], T([[0.5, 0.25], [-0.4, 0.9]]),
         centered=False, noise="zero"),
    case("image.extract_glimpse", PICTURE, [0, 2], CORNERS, noise="zero"),
    case("image.extract_glimpse", PICTURE, [2, 2], T([[0, 0], [0.5, -0.5]]), noise="zero"),
    case("image.extract_glimpse", PICTURE, [-1, 2], CORNERS),
    case("image.extract_glimpse", PICTURE, [2], CORNERS),
    case("image.extract_glimpse", PICTURE, [2, 2], T([[0, 0]])),
    case("image.extract_glimpse", PICTURE, [2, 2], T([[0, 0, 0], [1, 1, 1]])),
    case("image.extract_glimpse", PICTURE, [2, 2], CORNERS, noise="pink"),
]

# Sizes the ratios divide: TF's cells are regular there (random only otherwise).
GRID = T([[[[(3 * r + 5 * c + k) % 7 - 3, (r * c) % 3] for c in range(6)] for r in range(4)]
          for k in range(2)])
SPECIAL = T([[[[1], [1], [2], [2]], [[1], ["inf"], [0], [2]], [["-inf"], [-1], [3], [3]],
              [[-2], [-2], ["-inf"], [-1]]]])
CASES += [
    case("nn.fractional_max_pool", GRID, [1, 2, 3, 1], grad=(0,)),
    case("nn.fractional_max_pool", GRID, 2.0, overlapping=True, seed=7, grad=(0,)),
    case("nn.fractional_max_pool", SPECIAL, [1, 2, 2, 1], pseudo_random=True, grad=(0,)),
    case("nn.fractional_max_pool", SPECIAL, [1.0, 4.0], overlapping=True, grad=(0,)),
    case("nn.fractional_max_pool", T([[[[3], [-7]], [[-7], [3]]]], "int32"), 2),
    case("nn.fractional_max_pool", T([[[[1.5, 2]], [[-1, "nan"]]]], "float64"), [1, 2, 1, 1],
         grad=(0,)),
    case("nn.fractional_avg_pool", GRID, [1, 2, 3, 1], grad=(0,)),
    case("nn.fractional_avg_pool", GRID, [1, 2, 2, 1], overlapping=True, seed=7, grad=(0,)),
    case("nn.fractional_avg_pool", SPECIAL, [1, 2, 2, 1], pseudo_random=True, grad=(0,)),
    case("nn.fractional_avg_pool", T([[[[-3], [-4]], [[2], [0]]]], "int64"), [1, 2, 2, 1]),
    case("nn.fractional_avg_pool", T([[[[1.5, 2]], [[-1, 4]]]], "float64"), [1, 2, 1, 1],
         grad=(0,)),
    case("nn.fractional_max_pool", GRID, [1, 2, 2, 2]),
    case("nn.fractional_max_pool", GRID, [1, 0.5, 2, 1]),
    case("nn.fractional_max_pool", GRID, 0.5),
    case("nn.fractional_max_pool", GRID, [1, 2, 1]),
    case("nn.fractional_max_pool", GRID, [1, 5, 2, 1]),
    case("nn.fractional_max_pool", T([[1, 2]]), 1.0),
    case("nn.fractional_max_pool", T([[[[1]]]], "float16"), 1.0),
    case("nn.fractional_avg_pool", GRID, 2.0),
    case("nn.fractional_avg_pool", GRID, [1, 2, 2]),
    case("nn.fractional_avg_pool", GRID, [2, 2, 2, 1]),
    case("nn.fractional_avg_pool", GRID, [1, 0.5, 2, 1]),
]

# The crops TF draws are its generator's (tests/ops/test_image_crop_sampling.py checks the
# crops, and the answers no draw changes); these are TF's errors.
BOX = T([[[0.1, 0.2, 0.5, 0.9]]])
SEED = T([1, 2], "int32")
CASES += [
    case("image.stateless_sample_distorted_bounding_box", [40, 60, 3], T([[], []]), SEED),
    case("image.stateless_sample_distorted_bounding_box", [40, 60, 3], BOX, SEED,
         min_object_covered=-0.1),
    case("image.stateless_sample_distorted_bounding_box", [40, 60, 3],
         T([[[0.1, 0.2, 1.5, 0.9]]]), SEED),
    case("image.stateless_sample_distorted_bounding_box", [40, 60], BOX, SEED),
    case("image.stateless_sample_distorted_bounding_box", [40, 60, 3],
         T([[0.1, 0.2, 0.5, 0.9]]), SEED),
    case("image.stateless_sample_distorted_bounding_box", [40, 60, 3], BOX, SEED,
         aspect_ratio_range=[1.0]),
    case("image.sample_distorted_bounding_box", [40, 60, 3], BOX, max_attempts=0),
    case("image.sample_distorted_bounding_box", [40, 60, 3], BOX, area_range=[0.0, 0.0]),
    case("image.sample_distorted_bounding_box", [40, 60, 3], BOX, area_range=[0.5, 3]),
    case("image.sample_distorted_bounding_box", T([40.0, 60, 3]), BOX),
]

# Logits [time, batch, classes] whose beams branch and merge: a repeated label needs a blank
# between, and several prefixes meet; the last class is the blank.
LOGITS = T([[[0.5, 0.2, -1.0, 0.3], [2.0, 0.0, 0.1, -0.5], [0.0, 0.0, 0.0, 3.0]],
            [[0.4, 0.1, 0.0, 0.35], [-1.0, 1.5, 0.3, 0.2], [1.0, -2.0, 0.5, 0.0]],
            [[0.6, -0.3, 0.2, 0.1], [0.2, 0.2, 1.7, 0.0], [-0.5, 0.5, 0.25, 1.0]],
            [[-0.2, 0.9, 0.1, 0.4], [2.5, -1.0, 0.0, 0.6], [0.3, 0.2, 0.1, 0.0]],
            [[0.7, 0.7, -0.6, 0.2], [0.0, 0.3, -0.2, 1.1], [0.0, 1.2, 0.4, -0.3]]])
BEAM = ("eager", "graph")   # its label counts depend on the values: XLA refuses, as TF's
CASES += [
    case("nn.ctc_beam_search_decoder", LOGITS, T([5, 4, 3], "int32"), beam_width=3,
         top_paths=3, modes=BEAM),
    case("nn.ctc_beam_search_decoder", LOGITS, T([5, 5, 1], "int32"), beam_width=1,
         modes=BEAM),
    # float64 logits, but TF's log-sum correction is float32 (log1pf, expf): one float32 ulp
    # of it (6e-8) differs between libms and NumPy's SIMD paths on different CPUs
    case("nn.ctc_beam_search_decoder", T([[[1.0, 2.0], [0.0, "-inf"]],
                                          [[3.0, 0.5], [1.0, 1.0]]], "float64"),
         T([2, 1], "int32"), beam_width=2, top_paths=2, modes=BEAM, tol=(1e-6, 2e-7)),
    case("nn.ctc_beam_search_decoder", LOGITS, T([5, 4, 3], "int32"), modes=BEAM),
    case("nn.ctc_beam_search_decoder", LOGITS, T([5, 4, 0], "int32"), beam_width=3,
         top_paths=2, modes=BEAM),
    case("nn.ctc_beam_search_decoder", LOGITS, T([5, 4, 1], "int32"), beam_width=2,
         top_paths=3, modes=BEAM),
    case("nn.ctc_beam_search_decoder", LOGITS, T([5, 6, 1], "int32"), modes=BEAM),
    case("nn.ctc_beam_search_decoder", LOGITS, T([5, 4], "int32"), modes=BEAM),
    case("nn.ctc_beam_search_decoder", LOGITS, T([5, 4, 3], "int64"), modes=BEAM),
]
