"""NumPy kernels of the FFT family (numpy.fft computes in double precision; results are
rounded to the op's dtype once)."""
from __future__ import annotations

import numpy as np

from . import kernel


def _axes(rank):
    return tuple(range(-rank, 0))


@kernel("fft")
def fft(x, rank):
    return np.fft.fftn(x, axes=_axes(rank)).astype(x.dtype, copy=False)


@kernel("ifft")
def ifft(x, rank):
    return np.fft.ifftn(x, axes=_axes(rank)).astype(x.dtype, copy=False)


@kernel("rfft")
def rfft(x, rank, fft_length):
    out = np.fft.rfftn(x, s=tuple(fft_length), axes=_axes(rank))
    return out.astype(np.complex64 if x.dtype == np.float32 else np.complex128, copy=False)


@kernel("irfft")
def irfft(x, rank, fft_length):
    if 0 in fft_length:
        shape = x.shape[:-rank] + tuple(fft_length)
        return np.zeros(shape, np.float32 if x.dtype == np.complex64 else np.float64)
    bins = tuple(fft_length[:-1]) + (fft_length[-1] // 2 + 1,)
    out = np.fft.irfftn(_zero_padded(x, bins), s=tuple(fft_length), axes=_axes(rank))
    return out.astype(np.float32 if x.dtype == np.complex64 else np.float64, copy=False)


def _zero_padded(x, sizes):
    """x with each empty trailing dim zero-padded to its size in `sizes`: numpy's irfftn
    reads uninitialized memory for an empty axis (so does TF's kernel); the transform of
    the zero-padded input is what XLA computes."""
    lead = x.ndim - len(sizes)
    pads = [(0, 0)] * lead + [(0, n if d == 0 else 0) for d, n in zip(x.shape[lead:], sizes)]
    return np.pad(x, pads) if any(p for _, p in pads) else x
