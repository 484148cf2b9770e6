"""TF's raw window ops at the top level, composed from tf.nn's convolutions and slices:
`tf.conv` (2 or 3 spatial dims, leading batch dims, explicit padding),
`conv2d_backprop_input_v2` / `conv2d_backprop_filter_v2` (conv2d's gradients, given the
operand whose shape they take) and `extract_volume_patches` (extract_patches in 3-D).
Their values and gradients are those of the ops they are built from."""
from __future__ import annotations

from ...ir import errors
from ..eager.dispatch import convert_pair
from ..export import tf_export
from . import array as A
from .image_geometry import _patch_geometry
from .nn import conv2d
from .nn_conv import conv3d, linear_backprop


def _explicit_pairs(explicit_paddings, rank):
    flat = list(explicit_paddings)
    if len(flat) != 2 * rank:
        raise errors.InvalidArgumentError(
            None, "Conv", f"explicit_paddings attribute must contain {2 * rank} values, but "
                          f"got: {len(flat)}")
    return [flat[i:i + 2] for i in range(0, 2 * rank, 2)]


@tf_export("conv")
def conv(input, filter, strides, padding, explicit_paddings=(),  # noqa: A002 (TF's names)
         data_format="CHANNELS_LAST", dilations=(), batch_dims=1, groups=1, name=None):
    """An N-D convolution (N = 2 or 3, the filter's rank - 2) of `input` [batch dims...,
    spatial..., channels]; padding "SAME", "VALID" or "EXPLICIT" (`explicit_paddings`: a
    (before, after) pair per dim of [batch, spatial..., channels]). TF registers no gradient
    for it; flowjit's is the convolution's."""
    x, f = convert_pair(input, filter)
    n = f.shape.rank - 2
    if n not in (2, 3):
        raise errors.InvalidArgumentError(None, "Conv", f"The input must have 2 or 3 spatial "
                                                        f"dimensions but got {n}")
    if data_format != "CHANNELS_LAST":
        raise errors.UnimplementedError(
            None, "Conv", f"The Conv{n}D op currently only supports the "
                          f"{'NHWC' if n == 2 else 'NDHWC'} tensor format on the CPU. The op "
                          f"was given the format: {'NCHW' if n == 2 else 'NCDHW'}")
    if groups != 1:
        raise errors.UnimplementedError(None, "Conv", "Grouped/Depthwise Convolutions are not "
                                                      "supported yet.")
    batch = x.shape.as_list()[:batch_dims]
    x = A.reshape(x, [-1] + x.shape.as_list()[batch_dims:])
    if padding == "EXPLICIT":
        x = A.pad(x, [[0, 0]] + _explicit_pairs(explicit_paddings, n + 2)[1:])
        padding = "VALID"
    dilations = list(dilations) or [1] * (n + 2)
    run = conv2d if n == 2 else conv3d
    y = run(x, f, list(strides), padding, dilations=dilations)
    return A.reshape(y, batch + y.shape.as_list()[1:])


def _conv2d_args(padding, explicit_paddings, strides, data_format, dilations):
    if padding == "EXPLICIT":
        padding = _explicit_pairs(explicit_paddings, 4)
    return {"strides": strides, "padding": padding, "data_format": data_format,
            "dilations": dilations}


@tf_export("conv2d_backprop_input_v2")
def conv2d_backprop_input_v2(input, filter, out_backprop, strides, padding,  # noqa: A002
                             use_cudnn_on_gpu=True, explicit_paddings=(), data_format="NHWC",
                             dilations=(1, 1, 1, 1), name=None):
    """The gradient of conv2d(input, filter) with respect to `input` (its values unused) at
    `out_backprop`."""
    x, f = convert_pair(input, filter)
    return linear_backprop(conv2d, A.zeros_like(x), f, out_backprop, True, **_conv2d_args(
        padding, explicit_paddings, strides, data_format, dilations))


@tf_export("conv2d_backprop_filter_v2")
def conv2d_backprop_filter_v2(input, filter, out_backprop, strides, padding,  # noqa: A002
                              use_cudnn_on_gpu=True, explicit_paddings=(), data_format="NHWC",
                              dilations=(1, 1, 1, 1), name=None):
    """The gradient of conv2d(input, filter) with respect to `filter` (its values unused)
    at `out_backprop`."""
    x, f = convert_pair(input, filter)
    return linear_backprop(conv2d, x, A.zeros_like(f), out_backprop, False, **_conv2d_args(
        padding, explicit_paddings, strides, data_format, dilations))


def _space_window(value, what):
    values = [int(v) for v in value]
    if len(values) != 5:
        raise errors.InvalidArgumentError(None, "ExtractVolumePatches",
                                          f"{what} must be a list of 5 ints, got {values}")
    if values[0] != 1 or values[4] != 1:
        raise errors.UnimplementedError(None, "ExtractVolumePatches",
                                        f"Only support {what} across space.")
    return values[1:4]


@tf_export("extract_volume_patches")
def extract_volume_patches(input, ksizes, strides, padding, name=None):  # noqa: A002
    """Every [planes, rows, cols] patch of the [batch, planes, rows, cols, depth] input
    (patches `strides` apart) flattened in plane, row, column, depth order into the last
    dim."""
    x = convert_pair(input, input)[0]
    if x.shape.rank != 5:
        raise ValueError(f"Shape must be rank 5 but is rank {x.shape.rank}")
    sizes, steps = _space_window(ksizes, "ksizes"), _space_window(strides, "strides")
    geometry = [_patch_geometry(n, k, s, 1, padding)
                for n, k, s in zip(x.shape.as_list()[1:4], sizes, steps)]
    x = A.pad(x, [[0, 0]] + [[before, after] for _, before, after in geometry] + [[0, 0]])
    (np_, sp), (nr, sr), (nc, sc) = ((g[0], s) for g, s in zip(geometry, steps))
    taps = [x[:, p:p + (np_ - 1) * sp + 1:sp, r:r + (nr - 1) * sr + 1:sr,
              c:c + (nc - 1) * sc + 1:sc]
            for p in range(sizes[0]) for r in range(sizes[1]) for c in range(sizes[2])]
    return A.concat(taps, -1)
