"""tf.signal's N-dimensional FFTs (fftnd, ifftnd, rfftnd, irfftnd; the top-level names are
TF 2.21's raw ops: fft_length and axes required, no norm, the result's dtype an argument): transforms over any `axes`, each cropped or zero-padded to its `fft_length`,
composed of the one-dimensional FFT ops one axis at a time (the innermost-axis ops,
with the axis moved inward and back), so every mode and gradient the 1-D ops have, these
have. `norm` scales as TF's wrappers do: "backward" (the default) leaves the forward
transform unscaled, "forward" divides it by the product of the lengths, "ortho" by its
square root; the inverse transforms scale the other way.

TF 2.21 has no CPU or XLA kernel for these ops (only a GPU one); flowjit follows
numpy.fft.fftn's conventions, which TF's GPU kernel shares where its wrapper's defaults do
(README, "Differences from TF")."""
from __future__ import annotations

import math

from ...ir import dtypes as D
from ...ir import errors
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from .signal import _index, fft, ifft, irfft, rfft

def _axes(x, axes, opname):
    rank = x.shape.rank
    if rank is None:
        raise ValueError(f"{opname}: flowjit needs the input's rank known while tracing")
    if axes is None:
        return list(range(rank))
    if hasattr(axes, "numpy"):
        axes = axes.numpy().tolist()
    axes = [axes] if isinstance(axes, int) else [_index(a, "axes") for a in axes]
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError(f"{opname}: axis {a} is out of range for a tensor of rank {rank}")
    normalized = [a % rank for a in axes]
    if len(set(normalized)) != len(normalized):
        raise ValueError(f"{opname}: axes must be distinct, got {axes}")
    return normalized


def _lengths(x, axes, fft_length, opname, inverse_real=False):
    if fft_length is None:
        dims = x.shape.as_list()
        lengths = [dims[a] for a in axes]
        if any(n is None for n in lengths):
            raise ValueError(f"{opname}: flowjit needs the transformed dimensions known "
                             f"while tracing, got shape {x.shape}")
        if inverse_real and lengths:
            lengths[-1] = max(0, 2 * (lengths[-1] - 1))
        return lengths
    if hasattr(fft_length, "numpy"):
        fft_length = fft_length.numpy().tolist()
    lengths = [fft_length] if isinstance(fft_length, int) else \
        [_index(n, "fft_length") for n in fft_length]
    if len(lengths) != len(axes):
        raise ValueError(f"{opname}: fft_length has {len(lengths)} element(s) for "
                         f"{len(axes)} axes")
    return lengths


def _along(x, axis, transform):
    """`transform` (of the innermost axis) applied along `axis`."""
    rank = x.shape.rank
    if axis == rank - 1:
        return transform(x)
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return A.transpose(transform(A.transpose(x, perm)), perm)


def _fit(x, axis, n):
    """x cropped or zero-padded to length n along axis (a complex x part by part: the
    array ops move real values)."""
    size = x.shape.as_list()[axis]
    if size == n:
        return x
    if x.dtype in D.COMPLEX:
        return M.complex(_fit(M.real(x), axis, n), _fit(M.imag(x), axis, n))
    if size > n:
        begin, extent = [0] * x.shape.rank, [-1] * x.shape.rank
        extent[axis] = n
        return A.slice(x, begin, extent)
    pads = [[0, 0]] * x.shape.rank
    pads[axis] = [0, n - size]
    return A.pad(x, pads)


def _scale(x, lengths, norm, forward):
    """The input scaled for `norm`, as TF's wrappers scale it before the transform (a norm
    other than "forward" and "ortho" leaves it as it is, as there)."""
    norm = "backward" if norm is None else norm
    n = math.prod(lengths)
    factor = {"forward": n, "ortho": math.sqrt(n)}.get(norm)
    if factor is None:
        return x
    return M.divide(x, factor) if forward else M.multiply(x, factor)


def _complex_input(input_tensor):
    return convert_to_tensor(input_tensor, dtype_hint=D.complex64)


def _complex_nd(input_tensor, fft_length, axes, norm, forward: bool):
    """The DFT (or its inverse) over `axes` (all by default), each cropped/padded to its
    fft_length."""
    opname = "fftnd" if forward else "ifftnd"
    x = _complex_input(input_tensor)
    axes = _axes(x, axes, opname)
    lengths = _lengths(x, axes, fft_length, opname)
    x = _scale(x, lengths, norm, forward=forward)
    for axis, n in zip(axes, lengths):
        x = _along(_fit(x, axis, n), axis, fft if forward else ifft)
    return x


@tf_export("signal.fftnd")
def fftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The DFT over `axes` (all by default), each cropped/padded to its fft_length."""
    return _complex_nd(input_tensor, fft_length, axes, norm, forward=True)


@tf_export("signal.ifftnd")
def ifftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The inverse DFT over `axes` (all by default), each cropped/padded to its length."""
    return _complex_nd(input_tensor, fft_length, axes, norm, forward=False)


@tf_export("signal.rfftnd")
def rfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The DFT of a real signal over `axes`: the last axis keeps its fft_length // 2 + 1
    non-negative frequencies."""
    x = convert_to_tensor(input_tensor, dtype_hint=D.float32)
    if x.dtype not in (D.float32, D.float64):
        raise errors.noted(ValueError(
            f"RFFT requires tf.float32 or tf.float64 inputs, got: {x}"))
    axes = _axes(x, axes, "rfftnd")
    lengths = _lengths(x, axes, fft_length, "rfftnd")
    x = _scale(x, lengths, norm, forward=True)
    if not axes:
        return M.cast(x, D.complex64 if x.dtype == D.float32 else D.complex128)
    x = _along(x, axes[-1], lambda t: rfft(t, [lengths[-1]]))
    for axis, n in zip(axes[:-1], lengths[:-1]):
        x = _along(_fit(x, axis, n), axis, fft)
    return x


@tf_export("signal.irfftnd")
def irfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The real signal whose rfftnd over `axes` is the input; the last axis's length is
    2 * (n - 1) by default."""
    x = _complex_input(input_tensor)
    if x.dtype not in D.COMPLEX:
        raise errors.noted(ValueError(
            f"IRFFT requires tf.complex64 or tf.complex128 inputs, got: {x}"))
    axes = _axes(x, axes, "irfftnd")
    lengths = _lengths(x, axes, fft_length, "irfftnd", inverse_real=True)
    x = _scale(x, lengths, norm, forward=False)
    if not axes:
        return M.real(x)
    for axis, n in zip(axes[:-1], lengths[:-1]):
        x = _along(_fit(x, axis, n), axis, ifft)
    return _along(x, axes[-1], lambda t: irfft(t, [lengths[-1]]))


# --- the top-level raw-op forms ---------------------------------------------------------------
@tf_export("fftnd")
def raw_fftnd(input, fft_length, axes, name=None):  # noqa: A002  (TF's names)
    """The raw FFTND op: the DFT over `axes`, each cropped/padded to its fft_length."""
    return fftnd(input, fft_length, axes)


@tf_export("ifftnd")
def raw_ifftnd(input, fft_length, axes, name=None):  # noqa: A002
    """The raw IFFTND op: the inverse DFT over `axes`."""
    return ifftnd(input, fft_length, axes)


@tf_export("rfftnd")
def raw_rfftnd(input, fft_length, axes, Tcomplex=D.complex64, name=None):  # noqa: A002,N803
    """The raw RFFTND op: rfftnd with the result in `Tcomplex`."""
    return M.cast(rfftnd(input, fft_length, axes), D.as_dtype(Tcomplex))


@tf_export("irfftnd")
def raw_irfftnd(input, fft_length, axes, Treal=D.float32, name=None):  # noqa: A002,N803
    """The raw IRFFTND op: irfftnd with the result in `Treal`."""
    return M.cast(irfftnd(input, fft_length, axes), D.as_dtype(Treal))
