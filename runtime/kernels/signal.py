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
    out = np.fft.irfftn(x, s=tuple(fft_length), axes=_axes(rank))
    return out.astype(np.float32 if x.dtype == np.complex64 else np.float64, copy=False)
