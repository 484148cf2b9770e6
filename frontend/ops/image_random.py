"""`tf.image`'s random augmentations as TF composes them: one uniform draw (per image for
the flips of a batch) feeding the deterministic op (`flip_*`, `adjust_brightness`,
`adjust_contrast`, `adjust_hue`, `adjust_saturation`, a slice for the crops). The stateful
forms draw with `tf.random.uniform`, the stateless forms with `tf.random.stateless_uniform`;
the numbers are flowjit's generator's, so a seed picks other flips and factors than in TF
(README, Differences from TF)."""
from __future__ import annotations

from ...ir import dtypes as D
from ...ir import errors
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from .image import adjust_contrast
from .image_color import adjust_brightness, adjust_hue, adjust_saturation
from .random import stateless_uniform, uniform


def _flip(image, axis, draw):
    """Each image (or the one image) reversed along its height (0) or width (1) axis when
    its draw is below one half."""
    x = convert_to_tensor(image)
    rank = x.shape.rank
    if rank not in (3, 4):
        raise ValueError(f"'image' (shape {x.shape}) must have either 3 (unbatched) or 4 "
                         f"(batched) dimensions.")
    if rank == 3:
        return M.where(M.less(draw([]), 0.5), A.reverse(x, [axis]), x)
    flips = M.less(draw(A.shape(x)[:1]), 0.5)
    return M.where(A.reshape(flips, [-1, 1, 1, 1]), A.reverse(x, [axis + 1]), x)


def _stateful(seed):
    return lambda shape, **bounds: uniform(shape, seed=seed, **bounds)


def _stateless(seed):
    return lambda shape, **bounds: stateless_uniform(shape, seed=seed, **bounds)


def _check_range(lower, upper):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


def _brightness(image, max_delta, draw):
    """adjust_brightness by a delta drawn from [-max_delta, max_delta)."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, draw([], minval=-max_delta, maxval=max_delta))


def _contrast(image, lower, upper, draw):
    """adjust_contrast by a factor drawn from [lower, upper)."""
    _check_range(lower, upper)
    return adjust_contrast(image, draw([], minval=lower, maxval=upper))


def _hue(image, max_delta, draw):
    """adjust_hue by a delta drawn from [-max_delta, max_delta), max_delta <= 0.5."""
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_hue(image, draw([], minval=-max_delta, maxval=max_delta))


def _saturation(image, lower, upper, draw):
    """adjust_saturation by a factor drawn from [lower, upper)."""
    _check_range(lower, upper)
    return adjust_saturation(image, draw([], minval=lower, maxval=upper))


def _crop(value, size, draw):
    """A window of shape `size` at a uniformly drawn offset (static shapes)."""
    x = convert_to_tensor(value)
    dims = x.shape.as_list() if x.shape.rank is not None else None
    size = [int(s) for s in (size.numpy() if hasattr(size, "numpy") else size)]
    if dims is None or None in dims or len(size) != len(dims):
        raise ValueError(f"random_crop: flowjit needs a static value shape and one size per "
                         f"dimension, got shape {x.shape} and size {size}")
    if any(s > d for s, d in zip(size, dims)):
        raise errors.InvalidArgumentError(None, "random_crop", f"Need value.shape >= size, "
                                                               f"got {dims} {size}")
    limit = A.constant([d - s + 1 for d, s in zip(dims, size)], dtype=D.int32)
    offset = M.floormod(draw([len(dims)], maxval=D.int32.max, dtype=D.int32), limit)
    for axis, s in enumerate(size):   # gathers: a drawn offset stays a value under XLA
        x = A.gather(x, offset[axis] + A.range(s), axis=axis)
    return x


@tf_export("image.random_flip_left_right")
def random_flip_left_right(image, seed=None):
    """The image mirrored left to right with probability one half (each image of a batch
    on its own)."""
    return _flip(image, 1, _stateful(seed))


@tf_export("image.stateless_random_flip_left_right")
def stateless_random_flip_left_right(image, seed):
    """random_flip_left_right, a deterministic function of `seed` (an int pair)."""
    return _flip(image, 1, _stateless(seed))


@tf_export("image.random_flip_up_down")
def random_flip_up_down(image, seed=None):
    """The image flipped upside down with probability one half (each image of a batch on
    its own)."""
    return _flip(image, 0, _stateful(seed))


@tf_export("image.stateless_random_flip_up_down")
def stateless_random_flip_up_down(image, seed):
    """random_flip_up_down, a deterministic function of `seed`."""
    return _flip(image, 0, _stateless(seed))


@tf_export("image.random_brightness")
def random_brightness(image, max_delta, seed=None):
    return _brightness(image, max_delta, _stateful(seed))


@tf_export("image.stateless_random_brightness")
def stateless_random_brightness(image, max_delta, seed):
    return _brightness(image, max_delta, _stateless(seed))


@tf_export("image.random_contrast")
def random_contrast(image, lower, upper, seed=None):
    return _contrast(image, lower, upper, _stateful(seed))


@tf_export("image.stateless_random_contrast")
def stateless_random_contrast(image, lower, upper, seed):
    return _contrast(image, lower, upper, _stateless(seed))


@tf_export("image.random_hue")
def random_hue(image, max_delta, seed=None):
    return _hue(image, max_delta, _stateful(seed))


@tf_export("image.stateless_random_hue")
def stateless_random_hue(image, max_delta, seed):
    return _hue(image, max_delta, _stateless(seed))


@tf_export("image.random_saturation")
def random_saturation(image, lower, upper, seed=None):
    return _saturation(image, lower, upper, _stateful(seed))


@tf_export("image.stateless_random_saturation")
def stateless_random_saturation(image, lower, upper, seed):
    return _saturation(image, lower, upper, _stateless(seed))


@tf_export("image.random_crop")
def random_crop(value, size, seed=None, name=None):
    return _crop(value, size, _stateful(seed))


@tf_export("image.stateless_random_crop")
def stateless_random_crop(value, size, seed, name=None):
    return _crop(value, size, _stateless(seed))
