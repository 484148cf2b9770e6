"""TF-named `tf.signal`: the FFT ops, and what TF composes from them and from array ops
(framing, overlap-add, windows, STFT, DCT, mel filterbanks, MFCCs).

Windows and filterbanks depend only on static sizes, so they are NumPy constants computed in
float64 and rounded once (TF computes them in the window's dtype: the last bit may differ).
The DCTs are products with a cosine matrix rather than TF's padded FFT: the same sums, and
they stay differentiable while flowjit's tape does not differentiate complex tensors.
"""
from __future__ import annotations

import math

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ..eager.dispatch import apply, convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from .linalg import _index, tensordot
from .reduce import reduce_sum
from .segment import unsorted_segment_sum


def _static_int(v, what):
    if hasattr(v, "numpy"):
        v = v.numpy()
    return _index(v.item() if hasattr(v, "item") else v, what)


def _inner_dims(x, rank, opname):
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims is None or len(dims) < rank or any(d is None for d in dims[-rank:]):
        raise ValueError(f"{opname}: flowjit needs the innermost {rank} dimension(s) known "
                         f"while tracing, got shape {x.shape}")
    return dims[-rank:]


def _lengths(fft_length, rank, what):
    if hasattr(fft_length, "numpy"):
        fft_length = fft_length.numpy()
    if hasattr(fft_length, "tolist"):
        fft_length = fft_length.tolist()
    lengths = [fft_length] if isinstance(fft_length, int) else list(fft_length)
    if len(lengths) != rank:
        raise ValueError(f"{what}: fft_length must have {rank} element(s), got {lengths}")
    return tuple(_index(n, "fft_length") for n in lengths)


def _public(opname, rank):
    return opname if rank == 1 else f"{opname}{rank}d"


def _complex_transform(opname, rank, doc):
    def fn(input, name=None):  # noqa: A002  (TF's name)
        return apply(opname, (convert_to_tensor(input),), {"rank": rank})
    fn.__name__ = fn.__qualname__ = _public(opname, rank)
    fn.__doc__ = doc
    return tf_export(f"signal.{fn.__name__}")(fn)


_REAL_INPUTS = (D.float32, D.float64)


def _real_transform(opname, rank, doc):
    def fn(input_tensor, fft_length=None, name=None):
        x = convert_to_tensor(input_tensor)
        allowed = _REAL_INPUTS if opname == "rfft" else D.COMPLEX
        if x.dtype not in allowed:
            names = " or ".join(f"tf.{d.name}" for d in allowed)
            raise errors.noted(ValueError(f"{opname.upper()} requires {names} inputs, got: {x!s}"))
        if fft_length is None:
            dims = _inner_dims(x, rank, fn.__name__)
            lengths = tuple(dims) if opname == "rfft" else \
                tuple(dims[:-1]) + (2 * (dims[-1] - 1),)
        else:
            lengths = _lengths(fft_length, rank, fn.__name__)
        return apply(opname, (x,), {"rank": rank, "fft_length": lengths})
    fn.__name__ = fn.__qualname__ = _public(opname, rank)
    fn.__doc__ = doc
    return tf_export(f"signal.{fn.__name__}")(fn)


fft = _complex_transform("fft", 1, "The DFT of the innermost dim.")
ifft = _complex_transform("ifft", 1, "The inverse DFT of the innermost dim.")
fft2d = _complex_transform("fft", 2, "The DFT of the innermost 2 dims.")
ifft2d = _complex_transform("ifft", 2, "The inverse DFT of the innermost 2 dims.")
fft3d = _complex_transform("fft", 3, "The DFT of the innermost 3 dims.")
ifft3d = _complex_transform("ifft", 3, "The inverse DFT of the innermost 3 dims.")
rfft = _real_transform("rfft", 1, "The DFT of a real innermost dim: its fft_length // 2 + 1 "
                                  "non-negative frequencies (input cropped/padded to "
                                  "fft_length).")
irfft = _real_transform("irfft", 1, "The real signal of length fft_length whose rfft is the "
                                    "input.")
rfft2d = _real_transform("rfft", 2, "rfft over the innermost 2 dims.")
irfft2d = _real_transform("irfft", 2, "irfft over the innermost 2 dims.")
rfft3d = _real_transform("rfft", 3, "rfft over the innermost 3 dims.")
irfft3d = _real_transform("irfft", 3, "irfft over the innermost 3 dims.")


# --- shifts -------------------------------------------------------------------------------
def _shift(x, axes, half):
    x = convert_to_tensor(x)
    rank = x.shape.rank
    if rank is None:
        raise ValueError("fftshift: flowjit needs the rank known while tracing")
    axes = range(rank) if axes is None else ([axes] if isinstance(axes, int) else axes)
    for ax in axes:
        n = x.shape.as_list()[ax]
        if n is None:
            raise ValueError(f"fftshift: flowjit needs dimension {ax} known while tracing")
        cut = n - half(n)    # the last `half(n)` entries move to the front
        if n:
            index = [slice(None)] * rank
            head, tail = list(index), list(index)
            head[ax], tail[ax] = slice(cut, None), slice(None, cut)
            x = A.concat([x[tuple(head)], x[tuple(tail)]], ax)
    return x


@tf_export("signal.fftshift")
def fftshift(x, axes=None, name=None):
    """Move the zero frequency to the middle: a roll by n // 2 along each of `axes`."""
    return _shift(x, axes, lambda n: n // 2)


@tf_export("signal.ifftshift")
def ifftshift(x, axes=None, name=None):
    """The inverse of fftshift: a roll by -(n // 2)."""
    return _shift(x, axes, lambda n: n - n // 2)


# --- framing ------------------------------------------------------------------------------
@tf_export("signal.frame")
def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """Frames of `frame_length` samples every `frame_step` along `axis`: that axis becomes
    [frames, frame_length]. With `pad_end` the end is padded with `pad_value` so that a frame
    starts at every step (ceil(n / frame_step) frames)."""
    x = convert_to_tensor(signal)
    length = _static_int(frame_length, "frame_length")
    step = _static_int(frame_step, "frame_step")
    rank = x.shape.rank
    if rank is None or rank == 0:
        raise ValueError(f"frame: the signal must have rank >= 1 known while tracing, got "
                         f"shape {x.shape}")
    ax = _static_int(axis, "axis") % rank
    n = x.shape.as_list()[ax]
    if n is None:
        raise ValueError("frame: flowjit needs the framed dimension known while tracing")
    if pad_end:
        frames = -(-n // step)
        padded = max(0, (frames - 1) * step + length - n)
        if padded:
            pads = [[0, 0]] * rank
            pads[ax] = [0, padded]
            x = A.pad(x, pads, constant_values=pad_value)
    else:
        frames = 0 if n < length else 1 + (n - length) // step
    index = step * np.arange(frames)[:, None] + np.arange(length)[None, :]
    return A.gather_dense_gradient(x, index.astype(np.int32), ax)


@tf_export("signal.overlap_and_add")
def overlap_and_add(signal, frame_step, name=None):
    """The sum of frames [..., frames, frame_length] placed every `frame_step` samples:
    [..., (frames - 1) * frame_step + frame_length]."""
    x = convert_to_tensor(signal)
    step = _static_int(frame_step, "frame_step")
    rank = x.shape.rank
    if rank is None or rank < 2:
        raise ValueError(f"overlap_and_add: signal must have at least 2 dimensions, got "
                         f"shape {x.shape}")
    frames, length = x.shape.as_list()[-2:]
    if frames is None or length is None:
        raise ValueError("overlap_and_add: flowjit needs the frame count and length known "
                         "while tracing")
    if step > length:
        raise ValueError(f"frame_step ({step}) must be <= frame_length ({length}) for "
                         f"overlap_and_add")
    out_len = max(0, (frames - 1) * step + length) if frames else 0
    flat = A.reshape(x, A.concat([A.shape(x)[:-2], [frames * length]], 0))
    # The sample axis moves to the front, where the segment sum adds the samples that share
    # an output position; a sum (never a product with a 0/1 matrix) keeps NaN local.
    flat = A.transpose(flat, [rank - 2] + list(range(rank - 2)))
    positions = (step * np.arange(frames)[:, None] + np.arange(length)[None, :]).ravel()
    summed = unsorted_segment_sum(flat, positions.astype(np.int32), out_len)
    return A.transpose(summed, list(range(1, rank - 1)) + [0])


# --- windows ------------------------------------------------------------------------------
def _window(values, dtype):
    dt = D.as_dtype(dtype)
    if not dt.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dt.name}")
    return A.constant(np.asarray(values, np.float64).astype(dt.np), dtype=dt)


def _raised_cosine(window_length, periodic, dtype, a, b):
    n = _static_int(window_length, "window_length")
    if n == 1:
        return _window(np.ones(1), dtype)
    even = 1 - n % 2
    denom = n + int(bool(periodic)) * even - 1
    return _window(a - b * np.cos(2 * np.pi * np.arange(n) / denom), dtype)


@tf_export("signal.hann_window")
def hann_window(window_length, periodic=True, dtype=D.float32, name=None):
    """0.5 - 0.5 cos(2 pi n / N): N = length (periodic, even length) or length - 1."""
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5)


@tf_export("signal.hamming_window")
def hamming_window(window_length, periodic=True, dtype=D.float32, name=None):
    """0.54 - 0.46 cos(2 pi n / N), N as in hann_window."""
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46)


@tf_export("signal.vorbis_window")
def vorbis_window(window_length, dtype=D.float32, name=None):
    """sin(pi/2 sin(pi (n + 1/2) / length) ** 2)."""
    n = _static_int(window_length, "window_length")
    arg = (np.arange(n) + 0.5) / n
    return _window(np.sin(np.pi / 2 * np.sin(np.pi * arg) ** 2), dtype)


@tf_export("signal.kaiser_window")
def kaiser_window(window_length, beta=12.0, dtype=D.float32, name=None):
    """I0(beta sqrt(1 - (2n / (length - 1) - 1)^2)) / I0(beta)."""
    n = _static_int(window_length, "window_length")
    return _window(np.kaiser(n, float(beta)) if n > 1 else np.ones(n), dtype)


@tf_export("signal.inverse_stft_window_fn")
def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """The window that makes inverse_stft invert stft with `forward_window_fn`: the forward
    window over the sum of the squared windows that overlap each sample."""
    step = _static_int(frame_step, "frame_step")

    def window_fn(frame_length, dtype):
        forward = forward_window_fn(frame_length, dtype=dtype)
        length = _static_int(frame_length, "frame_length")
        overlaps = -(-length // step)
        square = A.pad(M.square(forward), [[0, overlaps * step - length]])
        denom = reduce_sum(A.reshape(square, [overlaps, step]), 0, keepdims=True)
        denom = A.tile(denom, [overlaps, 1])
        return forward / A.reshape(denom, [overlaps * step])[:length]
    return window_fn


# --- STFT ---------------------------------------------------------------------------------
def _default_fft_length(frame_length):
    return 1 << max(0, math.ceil(math.log2(frame_length))) if frame_length > 0 else 0


@tf_export("signal.stft")
def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window,
         pad_end=False, name=None):
    """The short-time Fourier transform [..., frames, fft_length // 2 + 1] of real signals:
    framed, windowed by `window_fn(frame_length, dtype)`, rfft'd."""
    x = convert_to_tensor(signals)
    length = _static_int(frame_length, "frame_length")
    n_fft = _default_fft_length(length) if fft_length is None else \
        _static_int(fft_length, "fft_length")
    frames = frame(x, length, frame_step, pad_end=pad_end)
    if window_fn is not None:
        frames = frames * window_fn(length, dtype=x.dtype)
    return rfft(frames, [n_fft])


@tf_export("signal.inverse_stft")
def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window,
                 name=None):
    """Real signals from an STFT: irfft'd frames cut (or padded) to frame_length, windowed
    by `window_fn`, overlap-added."""
    z = convert_to_tensor(stfts)
    length = _static_int(frame_length, "frame_length")
    n_fft = _default_fft_length(length) if fft_length is None else \
        _static_int(fft_length, "fft_length")
    frames = irfft(z, [n_fft])
    if n_fft < length:
        rank = frames.shape.rank
        frames = A.pad(frames, [[0, 0]] * (rank - 1) + [[0, length - n_fft]])
    frames = frames[..., :length]
    if window_fn is not None:
        frames = frames * window_fn(length, dtype=frames.dtype)
    return overlap_and_add(frames, frame_step)


# --- DCT ------------------------------------------------------------------------------------
def _dct_matrix(kind, n, ortho):
    """C with dct(x) = x @ C for x of length n (TF's unnormalized sums, or orthonormal)."""
    i = np.arange(n)[:, None]   # input sample
    k = np.arange(n)[None, :]   # output coefficient
    if kind == 1:
        c = 2 * np.cos(np.pi * i * k / max(n - 1, 1))
        c[0, :] = 1
        c[-1, :] = (-1.0) ** np.arange(n)
    elif kind == 2:
        c = 2 * np.cos(np.pi * k * (2 * i + 1) / (2 * n))
        if ortho:
            c *= np.where(k == 0, np.sqrt(1 / (4 * n)), np.sqrt(1 / (2 * n)))
    elif kind == 3:
        c = 2 * np.cos(np.pi * i * (2 * k + 1) / (2 * n))
        c[0, :] = 1
        if ortho:
            c *= np.where(i == 0, 1 / np.sqrt(n), 1 / np.sqrt(2 * n))
    else:
        c = 2 * np.cos(np.pi * (2 * k + 1) * (2 * i + 1) / (4 * n))
        if ortho:
            c *= np.sqrt(1 / (2 * n))
    return c


@tf_export("signal.dct")
def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002  (TF's names)
    """The discrete cosine transform of types 1-4 of the innermost dim (cropped or
    zero-padded to `n`), unnormalized or with `norm="ortho"` (not for type 1)."""
    x = convert_to_tensor(input)
    if type not in (1, 2, 3, 4):
        raise ValueError(f"Types I, II, III and IV (I)DCT are supported, got {type}.")
    if axis != -1:
        raise NotImplementedError("axis must be -1. Got: %s" % axis)
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
    if type == 1 and norm == "ortho":
        raise ValueError("Normalization is not supported for the Type-I DCT.")
    if x.dtype not in _REAL_INPUTS:
        raise TypeError(f"dct: the input must be float32 or float64, got {x.dtype.name}")
    size = _inner_dims(x, 1, "dct")[0]
    if n is not None:
        n = _static_int(n, "n")
        if n < 1:
            raise ValueError(f"Invalid value for n: {n}. n must be positive.")
        if n < size:
            x = x[..., :n]
        elif n > size:
            x = A.pad(x, [[0, 0]] * (x.shape.rank - 1) + [[0, n - size]])
        size = n
    if type == 1 and size < 2:
        raise ValueError("The Type-I DCT requires at least 2 samples, got "
                         f"{size}.")
    matrix = A.constant(_dct_matrix(type, size, norm == "ortho").astype(x.dtype.np))
    return tensordot(x, matrix, [[-1], [0]])


@tf_export("signal.idct")
def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
    """The inverse DCT as TF defines it: the DCT of the inverse type (II <-> III); only
    `norm="ortho"` makes it exact, else it is scaled by 2n (2(n - 1) for type I)."""
    if type not in (1, 2, 3, 4):
        raise ValueError(f"Types I, II, III and IV (I)DCT are supported, got {type}.")
    return dct(input, type={1: 1, 2: 3, 3: 2, 4: 4}[type], n=n, axis=axis, norm=norm)


# --- mel filterbanks and MFCCs -------------------------------------------------------------
def _hertz_to_mel(hertz):
    return 1127.0 * np.log1p(np.asarray(hertz, np.float64) / 700.0)


@tf_export("signal.linear_to_mel_weight_matrix")
def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000,
                                lower_edge_hertz=125.0, upper_edge_hertz=3800.0,
                                dtype=D.float32, name=None):
    """[num_spectrogram_bins, num_mel_bins] triangular filters evenly spaced on the mel
    scale between the edge frequencies (the DC bin gets no weight), as TF's HTK mel."""
    mels = _static_int(num_mel_bins, "num_mel_bins")
    bins = _static_int(num_spectrogram_bins, "num_spectrogram_bins")
    rate = float(sample_rate.numpy() if hasattr(sample_rate, "numpy") else sample_rate)
    lower, upper = float(lower_edge_hertz), float(upper_edge_hertz)
    if mels <= 0:
        raise ValueError("num_mel_bins must be positive. Got: %d" % mels)
    if lower < 0.0:
        raise ValueError("lower_edge_hertz must be non-negative. Got: %s" % lower)
    if lower >= upper:
        raise ValueError("lower_edge_hertz %.1f >= upper_edge_hertz %.1f" % (lower, upper))
    if rate <= 0.0:
        raise ValueError("sample_rate must be positive. Got: %s" % rate)
    if upper > rate / 2:
        raise ValueError("upper_edge_hertz must not be larger than the Nyquist frequency "
                         "(sample_rate / 2). Got %s for sample_rate: %s" % (upper, rate))
    spectrum_mel = _hertz_to_mel(np.linspace(0.0, rate / 2, bins)[1:])[:, None]
    edges = np.linspace(_hertz_to_mel(lower), _hertz_to_mel(upper), mels + 2)
    low, center, high = edges[:-2][None, :], edges[1:-1][None, :], edges[2:][None, :]
    rising = (spectrum_mel - low) / (center - low)
    falling = (high - spectrum_mel) / (high - center)
    weights = np.maximum(0.0, np.minimum(rising, falling))
    return _window(np.pad(weights, [[1, 0], [0, 0]]), dtype)


@tf_export("signal.mfccs_from_log_mel_spectrograms")
def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """MFCCs of [..., num_mel_bins] log-mel spectrograms: their type-II DCT scaled by
    1 / sqrt(2 num_mel_bins) (an orthonormal DCT but for its first coefficient, as TF)."""
    x = convert_to_tensor(log_mel_spectrograms)
    bins = _inner_dims(x, 1, "mfccs_from_log_mel_spectrograms")[0]
    return dct(x, type=2) * M.cast(1.0 / math.sqrt(2.0 * bins), x.dtype)
