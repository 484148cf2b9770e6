"""Fast Fourier transforms over the innermost 1, 2 or 3 dims (TF's FFT/IFFT/RFFT/IRFFT and
their 2D/3D forms: one op each, the number of transformed dims in `rank`). The real
transforms keep `fft_length` static: the input is cropped or zero-padded to it."""
from __future__ import annotations

from .. import dtypes as D
from ..infer import TT, check_dtype
from ..registry import InferenceError, op

REAL_OF = {D.complex64: D.float32, D.complex128: D.float64}
COMPLEX_OF = {v: k for k, v in REAL_OF.items()}
_RANK = (("rank", "int", 1),)


def _inner(t: TT, rank: int):
    if rank not in (1, 2, 3):
        raise InferenceError(f"fft rank must be 1, 2 or 3, got {rank}")
    if t.shape is not None and len(t.shape) < rank:
        raise InferenceError(f"Input must have rank of at least {rank} but got: "
                             f"{len(t.shape)}")


def _lengths(attrs):
    lengths = tuple(attrs["fft_length"])
    if len(lengths) != attrs["rank"]:
        raise InferenceError(f"fft_length must have {attrs['rank']} elements, got "
                             f"{len(lengths)}")
    if any(n < 0 for n in lengths):
        raise InferenceError(f"fft_length must be non-negative, got {list(lengths)}")
    return lengths


def _complex_to_complex(types, attrs):
    t = types[0]
    check_dtype(t, D.COMPLEX)
    _inner(t, attrs["rank"])
    return t


op("fft", ("input",), attrs=_RANK)(_complex_to_complex)
op("ifft", ("input",), attrs=_RANK)(_complex_to_complex)


@op("rfft", ("input",), attrs=_RANK + (("fft_length", "ints"),))
def _rfft(types, attrs):
    """Real input [..., n1, ..., nk] to the non-negative frequencies: the last transformed
    dim becomes fft_length[-1] // 2 + 1, the others fft_length."""
    t = types[0]
    check_dtype(t, (D.float32, D.float64))
    _inner(t, attrs["rank"])
    lengths = _lengths(attrs)
    shape = None if t.shape is None else (
        t.shape[:-len(lengths)] + lengths[:-1] + (lengths[-1] // 2 + 1,))
    return TT(COMPLEX_OF[t.dtype], shape)


@op("irfft", ("input",), attrs=_RANK + (("fft_length", "ints"),))
def _irfft(types, attrs):
    """The inverse of rfft: a real signal with the transformed dims fft_length."""
    t = types[0]
    check_dtype(t, D.COMPLEX)
    _inner(t, attrs["rank"])
    lengths = _lengths(attrs)
    shape = None if t.shape is None else t.shape[:-len(lengths)] + lengths
    return TT(REAL_OF[t.dtype], shape)
