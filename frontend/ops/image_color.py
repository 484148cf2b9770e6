"""`tf.image`'s pixel-value ops as TF composes them: dtype conversion, grayscale and YUV
conversions, brightness and gamma, per-image standardization, total variation, PSNR and
image gradients (forward differences and Sobel filters)."""
from __future__ import annotations

import math

import numpy as np

from ...ir import dtypes as D
from ...ir.errors import InvalidArgumentError
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from . import reduce as R
from .linalg import tensordot
from .nn import depthwise_conv2d

_YUV = np.array([[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
                 [0.114, 0.43601035, -0.10001026]])
_RGB_FROM_YUV = np.array([[1, 1, 1], [0, -0.394642334, 2.03206185],
                          [1.13988303, -0.58062185, 0]])
_GRAY = np.array([0.2989, 0.5870, 0.1140])
_YIQ = np.array([[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
                 [0.114, -0.32134392, 0.31119955]])
_RGB_FROM_YIQ = np.array([[1, 1, 1], [0.95598634, -0.27201283, -1.10674021],
                          [0.6208248, -0.64720424, 1.70423049]])


@tf_export("image.convert_image_dtype")
def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Convert between image dtypes, rescaling: floats span [0, 1], integers [0, max]."""
    x = convert_to_tensor(image)
    dt = D.as_dtype(dtype)
    if not (dt.is_floating or dt.is_integer):
        raise AttributeError(f"dtype must be either floating point or integer, got {dt.name}")
    src = x.dtype
    if not (src.is_floating or src.is_integer):
        raise AttributeError(f"image dtype must be either floating point or integer, got "
                             f"{src.name}")
    if src is dt:
        return x
    cast = M.saturate_cast if saturate else M.cast
    if src.is_integer and dt.is_integer:
        scale_in, scale_out = src.max, dt.max
        if scale_in > scale_out:
            return cast(M.floordiv(x, M.cast((scale_in + 1) // (scale_out + 1), src)), dt)
        return M.multiply(cast(x, dt), M.cast((scale_out + 1) // (scale_in + 1), dt))
    if src.is_floating and dt.is_floating:
        return M.cast(x, dt)
    if src.is_integer:
        return M.multiply(M.cast(x, dt), M.cast(1.0 / src.max, dt))
    return cast(M.multiply(x, M.cast(dt.max + 0.5, src)), dt)


def _as_float(x):
    """Images as float32 in [0, 1], floats as they are (TF's colour ops' rule)."""
    return x if x.dtype.is_floating else convert_image_dtype(x, D.float32)


def _channels(x, opname, n=3):
    c = x.shape.as_list()[-1] if x.shape.rank else None
    if x.shape.rank is not None and (x.shape.rank == 0 or (c is not None and c != n)):
        raise ValueError(f"{opname}: the last dimension must be of size {n}, got shape "
                         f"{x.shape}")


def _mix(image, kernel, opname):
    """The channels mixed by a 3x3 matrix; other channel counts are TF's matrix product
    error, its operands the images flattened to rows."""
    x = convert_to_tensor(image)
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims and None not in dims and dims[-1] != 3:
        raise InvalidArgumentError(None, opname, f"Matrix size-incompatible: In[0]: "
                                                 f"[{math.prod(dims[:-1])},{dims[-1]}], "
                                                 f"In[1]: [3,3]")
    return tensordot(x, A.constant(kernel.astype(x.dtype.np)), [[-1], [0]])


@tf_export("image.rgb_to_grayscale")
def rgb_to_grayscale(images, name=None):
    """Luma [..., 1] = 0.2989 R + 0.5870 G + 0.1140 B, in the images' dtype."""
    x = convert_to_tensor(images)
    _channels(x, "rgb_to_grayscale")
    f = convert_image_dtype(x, D.float32)
    gray = tensordot(f, A.constant(_GRAY.astype(np.float32)), [[-1], [-1]])
    return convert_image_dtype(A.expand_dims(gray, -1), x.dtype)


@tf_export("image.grayscale_to_rgb")
def grayscale_to_rgb(images, name=None):
    """The one channel repeated three times."""
    x = convert_to_tensor(images)
    _channels(x, "grayscale_to_rgb", 1)
    return A.concat([x, x, x], -1)


@tf_export("image.rgb_to_yuv")
def rgb_to_yuv(images):
    """YUV of float RGB images (TF's matrix)."""
    return _mix(images, _YUV, "rgb_to_yuv")


@tf_export("image.yuv_to_rgb")
def yuv_to_rgb(images):
    """RGB of YUV images (TF's matrix)."""
    return _mix(images, _RGB_FROM_YUV, "yuv_to_rgb")


@tf_export("image.rgb_to_yiq")
def rgb_to_yiq(images):
    """YIQ of float RGB images (TF's matrix)."""
    return _mix(images, _YIQ, "rgb_to_yiq")


@tf_export("image.yiq_to_rgb")
def yiq_to_rgb(images):
    """RGB of YIQ images (TF's matrix)."""
    return _mix(images, _RGB_FROM_YIQ, "yiq_to_rgb")


@tf_export("image.adjust_brightness")
def adjust_brightness(image, delta):
    """image + delta in [0, 1] float scale (integer images saturate on the way back)."""
    x = convert_to_tensor(image)
    f = _as_float(x)
    return convert_image_dtype(M.add(f, M.cast(delta, f.dtype)), x.dtype, saturate=True)


@tf_export("image.adjust_gamma")
def adjust_gamma(image, gamma=1, gain=1):
    """gain * image ** gamma in [0, 1] float scale; gamma must be non-negative."""
    x = convert_to_tensor(image)
    f = x if x.dtype in (D.float16, D.float32) else convert_image_dtype(x, D.float32)
    if isinstance(gamma, (int, float)) and gamma < 0:
        raise ValueError("Gamma should be a non-negative real number.")
    adjusted = M.multiply(M.cast(gain, f.dtype), M.pow(f, M.cast(gamma, f.dtype)))
    return convert_image_dtype(adjusted, x.dtype, saturate=True)


@tf_export("image.per_image_standardization")
def per_image_standardization(image):
    """(x - mean) / max(stddev, 1 / sqrt(pixels)) per image, over height, width and
    channels; float16 stays float16, other dtypes become float32."""
    x = convert_to_tensor(image)
    if x.shape.rank is None or x.shape.rank < 3 or None in x.shape.as_list()[-3:]:
        raise ValueError(f"per_image_standardization: the image must be at least 3-D with "
                         f"its last three dims known while tracing, got shape {x.shape}")
    f = x if x.dtype in (D.float16, D.float32) else M.cast(x, D.float32)
    pixels = int(np.prod(x.shape.as_list()[-3:]))
    mean = R.reduce_mean(f, [-1, -2, -3], keepdims=True)
    stddev = R.reduce_std(f, [-1, -2, -3], keepdims=True)
    floor = M.cast(1.0 / math.sqrt(pixels), f.dtype) if pixels else M.cast(math.inf, f.dtype)
    return M.divide(M.subtract(f, mean), M.maximum(stddev, floor))


@tf_export("image.total_variation")
def total_variation(images, name=None):
    """The sum of absolute differences of neighbouring pixels, per image: a scalar for one
    [h, w, c] image, [n] for a batch."""
    x = convert_to_tensor(images)
    rank = x.shape.rank
    if rank not in (3, 4):
        raise ValueError("'images' must be either 3 or 4-dimensional.")
    axes = [-3, -2, -1]
    down = M.abs(x[..., 1:, :, :] - x[..., :-1, :, :])
    right = M.abs(x[..., :, 1:, :] - x[..., :, :-1, :])
    return R.reduce_sum(down, axes) + R.reduce_sum(right, axes)


@tf_export("image.psnr")
def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio per image: 10 log10(max_val^2 / mse), in float32 after
    scaling integer images (and max_val) to [0, 1]."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    peak = convert_image_dtype(M.cast(max_val, a.dtype), D.float32)
    fa, fb = convert_image_dtype(a, D.float32), convert_image_dtype(b, D.float32)
    mse = R.reduce_mean(M.squared_difference(fa, fb), [-3, -2, -1])
    return M.subtract(M.multiply(20.0 / math.log(10.0), M.log(peak)),
                      M.multiply(10.0 / math.log(10.0), M.log(mse)))


@tf_export("image.image_gradients")
def image_gradients(image):
    """(dy, dx): forward differences of [n, h, w, d] images, zero in the last row/column."""
    x = convert_to_tensor(image)
    if x.shape.rank != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not "
                         f"{x.shape}.")
    dy = x[:, 1:, :, :] - x[:, :-1, :, :]
    dx = x[:, :, 1:, :] - x[:, :, :-1, :]
    dy = A.pad(dy, [[0, 0], [0, 1], [0, 0], [0, 0]])
    dx = A.pad(dx, [[0, 0], [0, 0], [0, 1], [0, 0]])
    return dy, dx


_SOBEL = np.array([[[-1, -2, -1], [0, 0, 0], [1, 2, 1]],
                   [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]])


@tf_export("image.sobel_edges")
def sobel_edges(image):
    """[n, h, w, d, 2]: the vertical and horizontal Sobel responses of each channel, the
    image padded by reflection."""
    x = convert_to_tensor(image)
    if x.shape.rank != 4 or x.shape.as_list()[-1] is None:
        raise ValueError(f"sobel_edges expects a 4D tensor [batch_size, h, w, d] with d known "
                         f"while tracing, got {x.shape}")
    channels = x.shape.as_list()[-1]
    # [3, 3, d, 2]: each channel convolved with both kernels (depthwise multiplier 2).
    kernels = np.tile(np.transpose(_SOBEL, (1, 2, 0))[:, :, None, :], (1, 1, channels, 1))
    padded = A.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    out = depthwise_conv2d(padded, A.constant(kernels.astype(x.dtype.np)), [1, 1, 1, 1],
                           "VALID")
    shape = A.concat([A.shape(x), [2]], 0)
    return A.reshape(out, shape)


# --- HSV: TF's kernels' arithmetic, elementwise ------------------------------------------
def _rgb_channels(x, opname):
    _channels(x, opname)
    return A.unstack(x, 3, -1)


@tf_export("image.rgb_to_hsv")
def rgb_to_hsv(images, name=None):
    """Hue, saturation and value in [0, 1] of float RGB images (TF's RGBToHSV arithmetic:
    hue 0 for greys)."""
    x = convert_to_tensor(images)
    r, g, b = _rgb_channels(x, "rgb_to_hsv")
    value = M.maximum(M.maximum(r, g), b)
    spread = value - M.minimum(M.minimum(r, g), b)
    zero = A.zeros_like(value)
    positive = M.greater(value, zero)
    saturation = M.where(positive, spread / M.where(positive, value, A.ones_like(value)), zero)
    grey = M.less_equal(spread, zero)
    norm = 1.0 / (6.0 * M.where(grey, A.ones_like(spread), spread))
    hue = M.where(M.equal(r, value), norm * (g - b),
                  M.where(M.equal(g, value), norm * (b - r) + 2.0 / 6.0,
                          norm * (r - g) + 4.0 / 6.0))
    hue = M.where(grey, zero, hue)
    hue = M.where(M.less(hue, zero), hue + 1.0, hue)
    return A.stack([hue, saturation, value], -1)


@tf_export("image.hsv_to_rgb")
def hsv_to_rgb(images, name=None):
    """RGB of HSV images (TF's HSVToRGB arithmetic: the hue's sextant picks the channels)."""
    x = convert_to_tensor(images)
    h, s, v = _rgb_channels(x, "hsv_to_rgb")
    chroma = s * v
    low = v - chroma
    sextant_f = h * 6.0
    sextant = M.cast(sextant_f, D.int32)          # truncation, as the kernel's int cast
    halves = M.cast(M.cast(sextant_f / 2.0, D.int32), x.dtype) * 2.0
    mid = chroma * (1.0 - M.abs(M.abs(sextant_f - halves) - 1.0))
    zero = A.zeros_like(chroma)
    # (r, g, b) before adding `low`, per sextant 0..5; any other sextant (h = 1 or out of
    # [0, 1]) takes the kernel's default, pure red chroma.
    table = ((chroma, mid, zero), (mid, chroma, zero), (zero, chroma, mid),
             (zero, mid, chroma), (mid, zero, chroma), (chroma, zero, mid))
    out = []
    for channel, default in enumerate((chroma, zero, zero)):
        value = default
        for k, row in enumerate(table):
            value = M.where(M.equal(sextant, k), row[channel], value)
        out.append(value + low)
    return A.stack(out, -1)


def _adjust_hsv(image, opname, adjust):
    x = convert_to_tensor(image)
    f = _as_float(x)
    wide = f if f.dtype in (D.float32, D.float64) else M.cast(f, D.float32)
    h, s, v = A.unstack(rgb_to_hsv(wide), 3, -1)
    h, s = adjust(h, s)
    out = hsv_to_rgb(A.stack([h, s, v], -1))
    return convert_image_dtype(M.cast(out, f.dtype), x.dtype)


@tf_export("image.adjust_saturation")
def adjust_saturation(image, saturation_factor, name=None):
    """The HSV saturation scaled by `saturation_factor` and clipped to [0, 1]."""
    def scale(h, s):
        return h, M.clip_by_value(s * M.cast(saturation_factor, s.dtype), 0.0, 1.0)
    return _adjust_hsv(image, "adjust_saturation", scale)


@tf_export("image.adjust_hue")
def adjust_hue(image, delta, name=None):
    """The HSV hue rotated by `delta` (in [-1, 1]; wrapped into [0, 1))."""
    if isinstance(delta, (int, float)) and not -1 <= delta <= 1:
        raise ValueError("delta must be in the interval [-1, 1]")

    def rotate(h, s):
        shifted = h + M.cast(delta, h.dtype)
        wrapped = shifted - M.cast(M.cast(shifted, D.int32), h.dtype)   # C's fmod(x, 1)
        return M.where(M.less(wrapped, A.zeros_like(wrapped)), wrapped + 1.0, wrapped), s
    return _adjust_hsv(image, "adjust_hue", rotate)
