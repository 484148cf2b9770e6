"""`tf.image.ssim` and `ssim_multiscale` as TF composes them: means, variances and the
covariance under a Gaussian window (a depthwise VALID conv2d per channel), the luminance and
contrast-structure terms, averaged over height and width; MS-SSIM repeats that on images
halved by 2x2 average pools (symmetric padding to even sizes first) and takes the weighted
geometric mean of the scales. The image sizes are read while tracing."""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from . import reduce as R
from .image_color import convert_image_dtype
from .nn import avg_pool, depthwise_conv2d, relu

_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def _gaussian(size, sigma):
    """TF's _fspecial_gauss: a softmax over the squared distances from the window center
    scaled by -1/(2 sigma^2), in float32."""
    coords = np.arange(size, dtype=np.float32) - np.float32(size - 1) / np.float32(2)
    g = np.square(coords) * (np.float32(-0.5) / np.square(np.float32(sigma)))
    g = (g[None, :] + g[:, None]).reshape(-1)
    g = np.exp(g - g.max())
    return (g / g.sum()).astype(np.float32).reshape(size, size, 1, 1)


def _images(img1, img2, max_val):
    """Both images and max_val in float32, integer images scaled to [0, 1] as TF's."""
    a, b = convert_to_tensor(img1), convert_to_tensor(img2)
    peak = convert_image_dtype(M.cast(max_val, a.dtype), D.float32)
    return convert_image_dtype(a, D.float32), convert_image_dtype(b, D.float32), peak


def _dims(x, opname):
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims is None or len(dims) < 3 or None in dims[-3:]:
        raise ValueError(f"{opname}: flowjit needs images of rank >= 3 with height, width and "
                         f"channels known while tracing, got shape {x.shape}")
    return dims


def _batch(dims):
    """The leading (batch) dims of an image shape, as a reshape target."""
    return [-1 if d is None else d for d in dims[:-3]]


def _per_channel(x, y, peak, filter_size, filter_sigma, k1, k2, opname):
    """(SSIM map, contrast-structure map) per channel, [..., h', w', c]."""
    dims = _dims(x, opname)
    h, w, c = dims[-3:]
    if h < filter_size or w < filter_size:
        shape = ", ".join(str(d) for d in dims)   # TF's failed assert prints the shape
        raise errors.InvalidArgumentError(
            None, opname, f"Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. "
                          f"Summarized data: {shape}\n{filter_size}")
    kernel = A.constant(np.tile(_gaussian(filter_size, filter_sigma), [1, 1, c, 1]))

    def reducer(t):
        y4 = depthwise_conv2d(A.reshape(t, [-1, h, w, c]), kernel, [1, 1, 1, 1], "VALID")
        return A.reshape(y4, _batch(dims) + y4.shape.as_list()[1:])

    c1 = M.square(k1 * peak)
    c2 = M.square(k2 * peak)
    mean0, mean1 = reducer(x), reducer(y)
    num0 = mean0 * mean1 * 2.0
    den0 = M.square(mean0) + M.square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(x * y) * 2.0
    den1 = reducer(M.square(x) + M.square(y))
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    return luminance * cs, cs


@tf_export("image.ssim")
def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         return_index_map=False):
    """Structural similarity of each image pair ([..., h, w, c]), averaged over channels;
    with `return_index_map` the per-pixel map instead of its mean."""
    x, y, peak = _images(img1, img2, max_val)
    index_map, _ = _per_channel(x, y, peak, int(filter_size), filter_sigma, k1, k2, "ssim")
    if not return_index_map:
        index_map = R.reduce_mean(index_map, [-3, -2])
    return R.reduce_mean(index_map, [-1])


def _halved(x, dims):
    """x [..., h, w, c] padded symmetrically to even h and w, then 2x2 average pooled."""
    h, w, c = dims[-3:]
    flat = A.reshape(x, [-1, h, w, c])
    if h % 2 or w % 2:
        flat = A.pad(flat, [[0, 0], [0, h % 2], [0, w % 2], [0, 0]], mode="SYMMETRIC")
    pooled = avg_pool(flat, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    return A.reshape(pooled, _batch(dims) + pooled.shape.as_list()[1:])


@tf_export("image.ssim_multiscale")
def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11,
                    filter_sigma=1.5, k1=0.01, k2=0.03):
    """MS-SSIM: the product over scales of the contrast-structure terms (the SSIM at the
    coarsest), each to its power factor, averaged over channels."""
    x, y, peak = _images(img1, img2, max_val)
    factors = list(power_factors)
    terms = []
    for k in range(len(factors)):
        if k:
            dims = _dims(x, "ssim_multiscale")
            x, y = _halved(x, dims), _halved(y, dims)
        index_map, cs = _per_channel(x, y, peak, int(filter_size), filter_sigma, k1, k2,
                                     "ssim_multiscale")
        terms.append(relu(R.reduce_mean(cs, [-3, -2])))
    terms[-1] = relu(R.reduce_mean(index_map, [-3, -2]))
    stacked = A.stack(terms, -1)
    weights = A.constant(np.asarray(factors, np.float32))
    return R.reduce_mean(R.reduce_prod(M.pow(stacked, weights), [-1]), [-1])
