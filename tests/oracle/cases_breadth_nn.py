"""TF-oracle cases for the tf.nn, tf.image and tf.strings names of the breadth work (format:
tests/oracle/spec.py): convolutions of every rank with strides, dilations, both paddings and
channel counts that differ in and out, their transposes, pools, and the error cases."""
from oracle.spec import T, case


def ramp(shape, scale=0.25, mod=11, dtype="float32"):
    """A tensor of `shape` with values ((3 i) mod `mod` - mod // 2) * scale: signed, zeros and
    repeats included, no two neighbours equal."""
    n = 1
    for d in shape:
        n *= d
    flat = [((3 * i) % mod - mod // 2) * scale for i in range(n)]

    def build(dims, start):
        if not dims:
            return flat[start]
        step = n_of(dims[1:])
        return [build(dims[1:], start + i * step) for i in range(dims[0])]
    return T(build(list(shape), 0), dtype)


def n_of(dims):
    n = 1
    for d in dims:
        n *= d
    return n


X3 = ramp([1, 4, 4, 3, 2])
F3 = ramp([2, 2, 2, 2, 3], 0.5, 7)
X2 = ramp([2, 5, 5, 2])
F2 = ramp([2, 2, 2, 3], 0.5, 7)
X1 = ramp([2, 5, 2])
F1 = ramp([3, 2, 3], 0.5, 7)

CASES = [
    case("nn.conv3d", X3, F3, [1, 2, 1, 2, 1], "SAME", grad=(0, 1)),
    case("nn.conv3d", X3, F3, [1, 1, 2, 1, 1], "VALID", grad=(0, 1)),
    case("nn.conv3d", ramp([1, 1, 4, 3, 2]), F3, [1, 1, 1, 1, 1], "VALID"),
    case("nn.conv3d_transpose", ramp([1, 2, 4, 2, 3]), F3, [1, 4, 4, 3, 2],
         [1, 2, 1, 2, 1], "SAME", grad=(0, 1)),
    case("nn.conv3d_transpose", ramp([1, 3, 3, 2, 3]), F3, [1, 4, 4, 3, 2],
         [1, 1, 1, 1, 1], "VALID", grad=(0, 1)),
    case("nn.conv3d_transpose", ramp([1, 2, 3, 2, 3]), F3, [1, 5, 4, 3, 2],
         [1, 2, 1, 1, 1], "VALID", grad=(0, 1)),
    case("nn.conv1d_transpose", ramp([1, 3, 3]), F1, [1, 6, 2], 2, grad=(0, 1)),
    case("nn.conv1d_transpose", ramp([1, 3, 3]), F1, [1, 7, 2], 2, "VALID", grad=(0, 1)),
    case("nn.convolution", X1, F1, padding="SAME", grad=(0, 1)),
    case("nn.convolution", X1, F1, strides=2, dilations=None, padding="VALID"),
    case("nn.convolution", X2, F2, padding="SAME", dilations=2, grad=(0, 1)),
    case("nn.convolution", X2, F2, strides=[2, 1]),
    case("nn.convolution", X3, F3, strides=[2, 1, 2], padding="SAME", data_format="NDHWC",
         grad=(0, 1)),
    case("nn.conv_transpose", ramp([2, 3, 3, 3]), F2, [2, 5, 5, 2], 2, grad=(0, 1)),
    case("nn.conv_transpose", ramp([1, 3, 3]), F1, [1, 6, 2], [2], grad=(0, 1)),
    case("nn.atrous_conv2d", X2, F2, 2, "SAME", grad=(0, 1)),
    case("nn.atrous_conv2d", X2, F2, 2, "VALID"),
    case("nn.atrous_conv2d", X2, F2, 0, "VALID"),
    case("nn.atrous_conv2d_transpose", ramp([2, 5, 5, 3]), F2, [2, 5, 5, 2], 2, "SAME",
         grad=(0, 1)),
    case("nn.atrous_conv2d_transpose", ramp([2, 3, 3, 3]), F2, [2, 5, 5, 2], 2, "VALID",
         grad=(0, 1)),
    case("nn.separable_conv2d", X2, ramp([2, 2, 2, 2], 0.5, 5), ramp([1, 1, 4, 3], 0.5, 7),
         [1, 1, 1, 1], "SAME", grad=(0, 1, 2)),
    case("nn.separable_conv2d", X2, ramp([3, 3, 2, 1], 0.5, 5), ramp([1, 1, 2, 3], 0.5, 7),
         [1, 1, 1, 1], "VALID", dilations=[2, 2], grad=(0, 1, 2)),
    case("nn.separable_conv2d", X2, ramp([2, 2, 2, 2]), ramp([2, 1, 4, 3]), [1, 1, 1, 1],
         "SAME"),
    case("nn.pool", X2, [2, 2], "MAX", strides=[2, 2], padding="SAME", grad=(0,)),
    case("nn.pool", X1, [3], "AVG", padding="SAME", grad=(0,)),
    case("nn.pool", X3, [2, 2, 2], "AVG", strides=[1, 2, 2], grad=(0,)),
    case("nn.pool", X2, [2, 2], "MIN"),
]

CTC_LOGITS = ramp([2, 5, 4], 0.5, 13)
FAST = ("eager", "graph")   # each XLA compile of the CTC loop and its gradient takes seconds
CASES += [
    case("nn.ctc_loss", T([[1, 2, 2], [3, 1, 0]], "int32"), CTC_LOGITS, T([3, 1], "int32"),
         T([5, 4], "int32"), logits_time_major=False, grad=(1,)),
    case("nn.ctc_loss", T([[1, 2, 2], [3, 1, 0]], "int64"), ramp([5, 2, 4], 0.5, 13),
         T([3, 2], "int64"), T([5, 3], "int64"), grad=(1,), modes=FAST),
    case("nn.ctc_loss", T([[0, 1, 1], [2, 0, 0]], "int32"), CTC_LOGITS, T([3, 0], "int32"),
         T([5, 0], "int32"), logits_time_major=False, blank_index=3, grad=(1,), modes=FAST),
    case("nn.ctc_loss", T([[1, 1], [2, 2]], "int32"), CTC_LOGITS, T([2, 1], "int32"),
         T([5, 4], "int32"), logits_time_major=False, blank_index=-4, grad=(1,)),
]

IMG = ramp([1, 5, 4, 2], 0.5, 9)
A8 = ramp([2, 8, 8, 2], 0.125, 17)
B8 = ramp([2, 8, 8, 2], 0.0625, 23)
CASES += [
    case("image.extract_patches", IMG, [1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 1, 1], "VALID",
         grad=(0,)),
    case("image.extract_patches", IMG, [1, 2, 2, 1], [1, 2, 3, 1], [1, 2, 1, 1], "SAME",
         grad=(0,)),
    case("image.extract_patches", ramp([2, 3, 3, 1], 1, 7, "int32"), [1, 2, 2, 1],
         [1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
    case("image.extract_patches", IMG, [1, 6, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
    case("image.resize_with_pad", ramp([4, 6, 1]), 6, 6, grad=(0,)),
    case("image.resize_with_pad", ramp([2, 5, 3, 2]), 8, 5, grad=(0,)),
    case("image.resize_with_pad", ramp([5, 3, 1], 1, 7, "int32"), 4, 7, method="nearest"),
    case("image.resize_with_pad", ramp([4, 6, 1]), 0, 6),
    case("image.ssim", A8, B8, 2.0, filter_size=3, filter_sigma=1.0, grad=(0, 1)),
    case("image.ssim", A8, A8, 1.0, filter_size=5),
    case("image.ssim", ramp([8, 8, 2], 0.125, 17), ramp([8, 8, 2]), 4.0,
         filter_size=3, return_index_map=True, grad=(0,)),
    case("image.ssim", T([[[[(37 * r + 11 * c) % 256] for c in range(6)] for r in range(6)]],
                         "uint8"),
         T([[[[(29 * r + 53 * c + 7) % 256] for c in range(6)] for r in range(6)]], "uint8"),
         255, filter_size=3),
    case("image.ssim", A8, B8, 1.0),
    case("image.ssim_multiscale", ramp([1, 12, 12, 2], 0.125, 17),
         ramp([1, 12, 12, 2], 0.1, 17), 2.0, power_factors=(0.5, 0.3, 0.2), filter_size=3,
         grad=(0, 1)),
    case("image.ssim_multiscale", ramp([2, 13, 11, 1], 0.125, 17),
         ramp([2, 13, 11, 1], 0.0625, 23), 1.0, power_factors=(0.6, 0.4), filter_size=3,
         grad=(0,)),
]

TEXT = T(["", "a", "hello world", "abcdefgh", "abcdefghijklmnopq", "x" * 33, "y" * 70,
          "z" * 129, "h\u00e9llo \u20ac"], "string")
NO_XLA = ("eager", "graph")   # XLA has no string type
CASES += [case(*args, modes=NO_XLA, **kwargs) for args, kwargs in [
    (("strings.to_hash_bucket_fast", TEXT, 2 ** 62), {}),
    (("strings.to_hash_bucket_fast", T([["a", "b"], ["c", ""]], "string"), 3), {}),
    (("strings.to_hash_bucket_fast", TEXT, 0), {}),
    (("strings.to_hash_bucket_strong", TEXT, 2 ** 62, [1, 2]), {}),
    (("strings.to_hash_bucket_strong", TEXT, 10, [2 ** 63 - 1, 0]), {}),
    (("strings.to_hash_bucket_strong", TEXT, 10, [1]), {}),
    (("strings.to_hash_bucket", TEXT, 2 ** 62), {}),
    (("strings.regex_replace", T(["abxd", "aaa", "h\u00e9\u00e9", ""], "string"), "x*", "-"),
     {}),
    (("strings.regex_replace", T(["abxd", "aaa"], "string"), "(a)(b)?", "<\\2\\1\\\\>"), {}),
    (("strings.regex_replace", T(["abxd", "aaa"], "string"), "(a)", "\\2"), {}),
    (("strings.regex_replace", T(["abxd", "aaa"], "string"), "(a)", "y\\q"), {}),
    (("strings.regex_replace", T(["abxd", "aaa"], "string"), "(a", "x"), {}),
    (("strings.regex_replace", T([["abxd"], ["aaa"]], "string"), "a", "x"),
     {"replace_global": False}),
    (("strings.ngrams", T([["a", "b", "c"], ["d", "e", "f"]], "string"), 2), {}),
    (("strings.ngrams", T([["a", "b", "c"], ["d", "e", "f"]], "string"), (1, 3)),
     {"separator": "|", "pad_values": ("<", ">")}),
    (("strings.ngrams", T([["a", "b"]], "string"), 4),
     {"pad_values": "#", "padding_width": 1, "preserve_short_sequences": True}),
    (("strings.ngrams", T([["a", "b"]], "string"), 4), {}),
    (("strings.ngrams", T([["a", "b"]], "string"), 4), {"preserve_short_sequences": True}),
    (("strings.ngrams", T(["a", "b", "c"], "string"), 2),
     {"pad_values": "#", "padding_width": 5}),
    (("strings.unicode_split", T("h\u00e9llo\u20ac", "string"), "UTF-8"), {}),
    (("strings.unicode_split", T("", "string"), "UTF-8"), {}),
]]

RGB = T([[[0.0, 0.5, 1.0], [1.0, 1.0, 1.0]], [[0.2, -0.1, 0.7], [0.0, 0.0, 0.0]]])
SIGNAL = ramp([2, 16], 0.25, 13)
CASES += [
    case("image.rgb_to_yiq", RGB, grad=(0,)),
    case("image.yiq_to_rgb", RGB, grad=(0,)),
    case("image.rgb_to_yiq", T([[1.0, 2.0]])),
    case("nn.batch_norm_with_global_normalization", X2, T([0.5, -1]), T([1, 0.25]),
         T([0.1, 0.2]), T([2, -1]), 0.001, True, grad=(0, 1, 2, 3, 4)),
    case("nn.batch_norm_with_global_normalization", X2, T([0.5, -1]), T([1, 0.25]),
         T([0.1, 0.2]), T([2, -1]), 0.001, False, grad=(0, 1, 2, 3)),
    case("nn.local_response_normalization", ramp([2, 2, 3, 7]), grad=(0,)),
    case("nn.local_response_normalization", ramp([1, 2, 2, 5]), 1, 0.5, 2.0, 0.75,
         grad=(0,)),
    case("nn.lrn", ramp([1, 2, 2, 3], dtype="float16"), 2, 1.0, 0.5, 0.5),
    case("nn.lrn", ramp([2, 3])),
    case("signal.kaiser_bessel_derived_window", 8),
    case("signal.kaiser_bessel_derived_window", 7, 4.0),
    case("signal.kaiser_bessel_derived_window", 1),
    case("signal.mdct", SIGNAL, 8, grad=(0,)),
    case("signal.mdct", SIGNAL, 4, window_fn=None, pad_end=True, norm="ortho", grad=(0,)),
    case("signal.mdct", SIGNAL, 6),
    case("signal.inverse_mdct", ramp([2, 3, 4], 0.25, 13), grad=(0,)),
    case("signal.inverse_mdct", ramp([3, 2], 0.25, 13, "float64"), window_fn=None,
         norm="ortho", grad=(0,)),
]

TIES = T([[[[1, 0], [1, 2], [3, 3]], [[3, -1], [0, 2], [3, "-inf"]], [[2, 2], [2, 2], [0, 5]]]])
CASES += [
    case("nn.max_pool_with_argmax", X2, [1, 2, 2, 1], [1, 2, 2, 1], "SAME", grad=(0,)),
    case("nn.max_pool_with_argmax", X2, 3, 2, "VALID", include_batch_in_index=True,
         grad=(0,)),
    case("nn.max_pool_with_argmax", X2, 3, 2, "VALID", output_dtype="int32"),
    case("nn.max_pool_with_argmax", TIES, 2, 1, "VALID", grad=(0,)),
    case("nn.max_pool_with_argmax", X2, 2, 2, "SAME", data_format="NCHW"),
    case("nn.dilation2d", X2, ramp([2, 3, 2], 0.5, 7), [1, 1, 1, 1], "SAME", "NHWC",
         [1, 1, 1, 1], grad=(0, 1)),
    case("nn.dilation2d", X2, ramp([2, 2, 2], 0.5, 7), [1, 2, 1, 1], "VALID", "NHWC",
         [1, 2, 2, 1], grad=(0, 1)),
    case("nn.dilation2d", TIES, T([[[0, 0], [0, 0]], [[0, 0], [0, 0]]]), [1, 1, 1, 1],
         "SAME", "NHWC", [1, 1, 1, 1], grad=(0, 1)),
    case("nn.erosion2d", X2, ramp([2, 3, 2], 0.5, 7), [1, 2, 2, 1], "SAME", "NHWC",
         [1, 1, 1, 1], grad=(0, 1)),
    case("nn.erosion2d", TIES, T([[[0, 1]], [[1, 0]]]), [1, 1, 1, 1], "VALID", "NHWC",
         [1, 1, 2, 1], grad=(0, 1)),
]
CASES += [case(*args, modes=NO_XLA, **kwargs) for args, kwargs in [
    (("strings.unicode_decode", T("h\u00e9\x01\u20ac", "string"), "UTF-8"), {}),
    (("strings.unicode_decode", T("h\u00e9\x01", "string"), "UTF-8"),
     {"replace_control_characters": True, "replacement_char": 63}),
    (("strings.unicode_decode", T("h\u00e9", "string"), "UTF-16-BE"), {}),
    (("strings.unicode_encode", T([104, 233, 8364], "int32"), "UTF-8"), {}),
    (("strings.unicode_encode", T([[104, 233], [-1, 0x110000]], "int32"), "UTF-8"), {}),
    (("strings.unicode_encode", T([[104, 233], [-1, 0xD800]], "int32"), "UTF-16-BE"),
     {"replacement_char": 63}),
    (("strings.unicode_encode", T([104, -1], "int32"), "UTF-8"), {"errors": "ignore"}),
    (("strings.unicode_encode", T([104, -1], "int32"), "UTF-8"), {"errors": "strict"}),
    (("strings.unicode_encode", T([104.0]), "UTF-8"), {}),
    (("strings.unicode_transcode", T(["h\u00e9", "a\u20acb\x02"], "string"), "UTF-8",
      "UTF-16-BE"), {}),
    (("strings.unicode_transcode", T(["h\u00e9", "a\x02"], "string"), "UTF-8", "UTF-32-BE"),
     {"replace_control_characters": True}),
    (("strings.bytes_split", T("h\u00e9", "string")), {}),
    (("strings.bytes_split", T("", "string")), {}),
    (("strings.unsorted_segment_join", T(["a", "b", "c", "d"], "string"), T([1, 0, 1, 3],
                                                                           "int32"), 4),
     {"separator": ":"}),
    (("strings.unsorted_segment_join", T([["a", "b"], ["c", "d"]], "string"),
      T([1, 1], "int64"), 2), {}),
    (("strings.unsorted_segment_join", T(["a", "b"], "string"), T([1, 5], "int32"), 2), {}),
    (("strings.unsorted_segment_join", T(["a", "b"], "string"), T([-1, 0], "int32"), 2), {}),
]]

DW = ramp([2, 2, 2, 2], 0.5, 7)
CASES += [
    case("nn.depthwise_conv2d_backprop_input", [2, 5, 5, 2], DW, ramp([2, 3, 3, 4]),
         [1, 2, 2, 1], "SAME", grad=(1, 2)),
    case("nn.depthwise_conv2d_backprop_input", [2, 5, 5, 2], DW, ramp([2, 4, 4, 4]),
         [1, 1, 1, 1], "VALID", grad=(1, 2)),
    case("nn.depthwise_conv2d_backprop_filter", X2, [2, 2, 2, 2], ramp([2, 3, 3, 4]),
         [1, 2, 2, 1], "SAME", grad=(0, 2)),
    case("nn.depthwise_conv2d_backprop_filter", X2, [2, 2, 2, 2], ramp([2, 4, 4, 4]),
         [1, 1, 1, 1], "VALID", grad=(0, 2)),
]

BOXES = T([[0, 0, 1, 1], [0.1, 0.2, 0.6, 0.9], [0.8, 0.7, 0.2, 0.1], [-0.5, 0.25, 1.5, 0.5]])
CASES += [
    case("image.crop_and_resize", ramp([2, 4, 5, 2], 0.5, 9), BOXES, T([0, 1, 1, 0], "int32"),
         [3, 4], grad=(0, 1)),
    case("image.crop_and_resize", ramp([2, 4, 5, 2], 0.5, 9), BOXES, T([1, 0, 0, 1], "int32"),
         [1, 2], method="nearest", extrapolation_value=-1.0, grad=(0,)),
    case("image.crop_and_resize", ramp([1, 3, 3, 1], 1, 7, "int32"), BOXES,
         T([0, 0, 0, 0], "int32"), [2, 2], extrapolation_value=9.0),
    case("image.crop_and_resize", ramp([2, 4, 5, 2], 0.5, 9), BOXES, T([0, 2, 1, 0], "int32"),
         [2, 2], modes=("eager",)),   # traced: gather's InvalidArgumentError (README)
    case("image.crop_and_resize", ramp([2, 4, 5, 2], 0.5, 9), BOXES, T([0, 1, 1, 0], "int32"),
         [0, 2]),
]

NMS_BOXES = T([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11],
               [1, 11, 0, 10.1], [0, 100, 1, 101], [0.5, 0.5, 0.5, 0.9]])
NMS_SCORES = T([0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.99])
CASES += [case(*args, modes=NO_XLA, **kwargs) for args, kwargs in [
    (("image.non_max_suppression", NMS_BOXES, NMS_SCORES, 3), {}),
    (("image.non_max_suppression", NMS_BOXES, NMS_SCORES, 10, 0.5, 0.4), {}),
    (("image.non_max_suppression", NMS_BOXES, T([0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]), 10,
      0.0), {}),
    (("image.non_max_suppression", NMS_BOXES, NMS_SCORES, 0), {}),
    (("image.non_max_suppression", NMS_BOXES, NMS_SCORES, 3, 1.5), {}),
    (("image.non_max_suppression_with_scores", NMS_BOXES, NMS_SCORES, 4, 0.3), {}),
    (("image.non_max_suppression_overlaps",
      T([[1, 0.8, 0.2], [0.8, 1, 0.6], [0.2, 0.6, 1]]), T([0.5, 0.9, 0.7]), 3, 0.5), {}),
]]

CANVAS = ramp([2, 5, 6, 3], 0.0625, 5)
DRAW_BOXES = T([[[0, 0, 1, 1], [0.3, 0.25, 0.6, 0.7], [-0.5, 0.5, 0.5, 1.5]],
                [[0.9, 0.1, 0.2, 0.8], [0.2, 0.2, 0.21, 0.9], [1.5, 0, 2, 1]]])
CASES += [
    case("image.draw_bounding_boxes", CANVAS, DRAW_BOXES, T([[1, 0, 0, 1], [0, 1, 0, 1]])),
    case("image.draw_bounding_boxes", ramp([2, 5, 6, 1], 0.0625, 5), DRAW_BOXES,
         T([[0, 0.5, 0, 1]])),
    case("image.draw_bounding_boxes", ramp([1, 5, 6, 4], 0.0625, 5),
         T([[[0, 0, 1, 1], [0.3, 0.25, 0.6, 0.7]]]), T([[]], "float32")),
    case("image.draw_bounding_boxes", ramp([1, 3, 3, 2]), T([[[0, 0, 1, 1]]]),
         T([[1, 0, 0, 1]])),
]
