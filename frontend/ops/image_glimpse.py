"""`tf.image.extract_glimpse` as TF's ExtractGlimpseV2 kernel computes it, composed of
gathers: each image's window of `size` is the image translated by its offset (truncated
towards zero), the part outside the image filled with noise. Zero noise matches TF's values;
uniform and gaussian noise are drawn from flowjit's generator with TF's ranges (uniform over
the image's [min, max]; per channel, the mean plus its standard deviation times a normal,
clipped to the channel's [min, max]), so their numbers differ from TF's. Not differentiable,
as TF's kernel (a gradient through it is None where TF raises LookupError)."""
from __future__ import annotations

from ...ir import dtypes as D
from ..eager.dispatch import convert_to_tensor, op_error
from ..export import tf_export
from . import array as A
from . import math as M
from . import reduce as R
from .program import get_static_value
from .random import normal, uniform

_OP = "ExtractGlimpseV2"


def _corners(offsets, height, width, sizes, centered, normalized):
    """[batch] int32 rows and columns of each window's top-left corner, as the kernel
    computes them in float32 (the half window comes off only when centered and normalized)."""
    y, x = offsets[:, 0], offsets[:, 1]
    h, w = float(height), float(width)
    sizes = [M.cast(s, D.float32) for s in sizes]
    if normalized:
        y, x = y * h, x * w
        if centered:
            y, x = y / 2.0 + h / 2.0, x / 2.0 + w / 2.0
            y, x = y - sizes[0] / 2.0, x - sizes[1] / 2.0
    elif centered:
        y, x = y + h / 2.0, x + w / 2.0
    return M.cast(y, D.int32), M.cast(x, D.int32)


def _window(corner, size, extent):
    """[batch, size] indices from each corner, clipped into [0, extent), and whether each
    lies inside."""
    at = A.expand_dims(corner, 1) + A.range(size)
    inside = M.logical_and(M.greater_equal(at, 0), M.less(at, extent))
    return M.minimum(M.maximum(at, 0), extent - 1), inside


def _noise(x, shape, noise):
    """What fills the window outside the image: [batch, h, w, channels]."""
    if noise == "zero":
        return A.zeros(shape, x.dtype)
    if noise == "uniform":
        low = R.reduce_min(x, [1, 2, 3], keepdims=True)
        span = R.reduce_max(x, [1, 2, 3], keepdims=True) - low
        return low + uniform(shape) * span
    low, high = R.reduce_min(x, [1, 2], keepdims=True), R.reduce_max(x, [1, 2], keepdims=True)
    mean = R.reduce_mean(x, [1, 2], keepdims=True)
    sigma = M.sqrt(R.reduce_mean(M.square(x - mean), [1, 2], keepdims=True))
    return M.minimum(M.maximum(mean + normal(shape) * sigma, low), high)


@tf_export("image.extract_glimpse")
def extract_glimpse(input, size, offsets, centered=True, normalized=True,  # noqa: A002
                    noise="uniform", name=None):
    """Windows of `size` [height, width] from a float32 batch [batch, height, width,
    channels] at `offsets` [batch, 2] (y, x): from the image's center when `centered`, in
    fractions of half the image when also `normalized`; else from the top-left corner, in
    fractions of the image when `normalized`, pixels otherwise."""
    x = A.stop_gradient(convert_to_tensor(input, dtype=D.float32))
    offsets = convert_to_tensor(offsets, dtype=D.float32)
    size = convert_to_tensor(size, dtype_hint=D.int32)
    known = get_static_value(size)
    if size.shape.rank != 1 or size.shape[0] != 2:
        raise op_error(_OP, f"input must be a vector of size 2 (height, width)"
                            f"[{','.join(map(str, size.shape.as_list()))}]")
    for s in [] if known is None else known:
        if s < 0:
            raise op_error(_OP, f"Expected a non-negative size, got {s}")
    # A size known only when the graph runs gives windows of unknown height and width.
    sizes = [int(s) for s in known] if known is not None else [size[0], size[1]]
    if noise not in ("uniform", "gaussian", "zero"):
        raise op_error(_OP, f"The noise could only be uniform, gaussian, or zero, got{noise}")
    if x.shape.rank != 4:
        raise op_error(_OP, f"input must be 4-dimensional{x.shape.as_list()}")
    batch, height, width, channels = x.shape.as_list()
    listed = "[" + ",".join(map(str, offsets.shape.as_list())) + "]"
    if None in (height, width, channels) or offsets.shape.rank != 2:
        raise NotImplementedError("extract_glimpse: flowjit needs the images' height, width "
                                  "and channels and the offsets' rank known while tracing")
    if batch is not None and offsets.shape[0] not in (None, batch):
        raise op_error(_OP, f"first dimension should be batch{listed}")
    if offsets.shape[1] not in (None, 2):
        raise op_error(_OP, f"second dimension should be of size 2 (y,x)"
                            f"{listed}")
    top, left = _corners(offsets, height, width, sizes, centered, normalized)
    rows, row_inside = _window(top, sizes[0], height)
    cols, col_inside = _window(left, sizes[1], width)
    picked = A.gather(A.gather(x, rows, axis=1, batch_dims=1), cols, axis=2, batch_dims=1)
    inside = M.logical_and(A.expand_dims(row_inside, 2), A.expand_dims(col_inside, 1))
    shape = A.shape(picked)
    return M.where(A.broadcast_to(A.expand_dims(inside, 3), shape), picked,
                   _noise(x, shape, noise))
