"""`tf.signal`'s modified DCT as TF composes it: frames half a frame apart, windowed
(Vorbis by default, or the Kaiser-Bessel-derived window), folded into half-length frames
and transformed by the type-IV DCT; the inverse unfolds the type-IV DCT and overlap-adds."""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from .signal import _static_int, _window, dct, frame, overlap_and_add, vorbis_window


@tf_export("signal.kaiser_bessel_derived_window")
def kaiser_bessel_derived_window(window_length, beta=12.0, dtype=D.float32, name=None):
    """The square root of the running sum of a Kaiser window of half the length + 1,
    normalized by its total, mirrored."""
    half = _static_int(window_length, "window_length") // 2
    kaiser = np.kaiser(half + 1, float(beta))
    running = np.cumsum(kaiser)
    rising = np.sqrt(running[:-1] / running[-1])
    return _window(np.concatenate([rising, rising[::-1]]), dtype)


def _reversed(x):
    return A.reverse(x, [-1])


@tf_export("signal.mdct")
def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None, name=None):
    """The MDCT of the frames of `signals` (frame_length a multiple of 4, frames
    frame_length / 2 apart): [..., frames, frame_length / 2]."""
    x = convert_to_tensor(signals)
    if x.shape.rank == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    length = _static_int(frame_length, "frame_length")
    if length % 4:
        raise ValueError("The frame length must be a multiple of 4.")
    frames = frame(x, length, length // 2, pad_end=pad_end)
    if window_fn is None:
        frames = frames * (1.0 / np.sqrt(2))
    else:
        frames = frames * window_fn(length, dtype=frames.dtype)
    a, b, c, d = A.split(frames, 4, axis=-1)
    folded = A.concat([-_reversed(c) - d, a - _reversed(b)], -1)
    return dct(folded, type=4, norm=norm)


@tf_export("signal.inverse_mdct")
def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None):
    """The signal whose mdct (with the same window and norm) is `mdcts`, overlap-added
    (exact for windows meeting the Princen-Bradley condition)."""
    y = convert_to_tensor(mdcts)
    if y.shape.rank == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    half = y.shape.as_list()[-1]
    if norm is None:
        unfolded = dct(y, type=4) * (0.5 / half)
    elif norm == "ortho":
        unfolded = dct(y, type=4, norm="ortho")
    else:
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
    first, second = A.split(unfolded, 2, axis=-1)
    frames = A.concat([second, -_reversed(second), -_reversed(first), -first], -1)
    if window_fn is None:
        frames = frames * (1.0 / np.sqrt(2))
    else:
        frames = frames * window_fn(2 * half, dtype=frames.dtype)
    return overlap_and_add(frames, half)
