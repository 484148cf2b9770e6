"""`tf.linalg.LinearOperatorCirculant` and its 2-D and 3-D forms: the circulant matrix (for
2-D and 3-D, block circulant with circulant blocks) that the DFT diagonalizes, given by its
`spectrum` [..., N0 (, N1 (, N2))]: A = F^H diag(spectrum) F.

Row r, column c of the dense matrix is the convolution kernel h = ifft(spectrum) at the
per-axis difference of their (row-major) block coordinates, modulo each block size: a static
gather of h's entries. The determinant is the spectrum's product and the log |determinant|
the sum of log |spectrum|; products and solves scale each column's DFT by the spectrum (or
its conjugate, or their reciprocals); the inverse and adjoint are circulant with spectrum
1 / spectrum and conj(spectrum). With a real `input_output_dtype` (a Hermitian spectrum)
the operator is the real part, as TF's."""
from __future__ import annotations

import numpy as np

from ...ir import dtypes as D
from ..eager.dispatch import convert_to_tensor
from ..export import tf_export
from . import array as A
from . import math as M
from . import reduce as R
from .linear_operator import LinearOperator
from .math_composites import angle
from .matrix import matrix_transpose
from .signal import fft, fft2d, fft3d, ifft, ifft2d, ifft3d

_FFT = {1: fft, 2: fft2d, 3: fft3d}
_IFFT = {1: ifft, 2: ifft2d, 3: ifft3d}
_COMPLEX = {D.float16: D.complex64, D.float32: D.complex64, D.float64: D.complex128,
            D.complex64: D.complex64, D.complex128: D.complex128}


def _kernel_index(block_shape) -> np.ndarray:
    """[n, n]: the flat index into the kernel of entry (r, c): ((r_k - c_k) mod N_k)_k."""
    coords = np.indices(block_shape).reshape(len(block_shape), -1)      # [depth, n]
    diff = np.mod(coords[:, :, None] - coords[:, None, :], np.reshape(block_shape, (-1, 1, 1)))
    return np.ravel_multi_index(tuple(diff), block_shape).astype(np.int32)


class _BaseLinearOperatorCirculant(LinearOperator):
    """A circulant operator of `block_depth` nested circulant levels."""
    block_depth = 1

    def __init__(self, spectrum, input_output_dtype=D.complex64, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=True, name=None):
        s = convert_to_tensor(spectrum)
        if s.dtype.is_integer:
            s = M.cast(s, D.float32)
        if s.dtype not in _COMPLEX:
            raise TypeError(f"Argument `spectrum` must have dtype in [float16, float32, "
                            f"float64, complex64, complex128]. Received: {s.dtype.name}.")
        if s.shape.rank is not None and s.shape.rank < self.block_depth:
            raise ValueError(f"Argument `spectrum` must have at least {self.block_depth} "
                             f"dimensions. Received: {spectrum}.")
        if any(d is None for d in s.shape.as_list()[-self.block_depth:]):
            raise ValueError(f"{type(self).__name__}: the spectrum's block shape must be known "
                             f"while tracing")
        self._spectrum = s
        if is_self_adjoint is None and not s.dtype.is_complex:
            is_self_adjoint = True   # a real spectrum is its own conjugate
        super().__init__(input_output_dtype, is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name or type(self).__name__,
                         {"spectrum": spectrum, "input_output_dtype": input_output_dtype})

    @property
    def spectrum(self):
        return self._spectrum

    @property
    def block_shape(self):
        return tuple(self._spectrum.shape.as_list()[-self.block_depth:])

    def block_shape_tensor(self):
        return A.constant(list(self.block_shape), dtype=D.int32)

    def _shape(self):
        dims = tuple(self._spectrum.shape.as_list())
        n = int(np.prod(self.block_shape))
        return dims[:-self.block_depth] + (n, n)

    def _complex_spectrum(self):
        return M.cast(self._spectrum, _COMPLEX[self._spectrum.dtype])

    def _as_dtype(self, value):
        """A complex value as this operator's dtype: its real part for a real operator."""
        return M.cast(value if self.dtype.is_complex else M.real(value), self.dtype)

    def convolution_kernel(self, name="convolution_kernel"):
        """h = ifft(spectrum) over the block dims: the first column of the dense matrix."""
        return self._as_dtype(_IFFT[self.block_depth](self._complex_spectrum()))

    def _to_dense(self):
        dims = self._spectrum.shape.as_list()
        flat = A.reshape(self.convolution_kernel(), dims[:-self.block_depth] + [-1])
        return A.gather(flat, _kernel_index(self.block_shape), axis=flat.shape.rank - 1)

    def _apply_spectrum(self, x, scale):
        """x [..., n, m] with each column transformed, scaled per frequency by `scale`
        (the spectrum, its conjugate or their reciprocals) and transformed back."""
        x = convert_to_tensor(x, dtype=self.dtype)
        depth, block = self.block_depth, list(self.block_shape)
        columns = matrix_transpose(x)                                   # [..., m, n]
        lead = A.shape(columns)[:-1]
        blocks = A.reshape(M.cast(columns, _COMPLEX[self._spectrum.dtype]),
                           A.concat([lead, block], 0))
        freq = _FFT[depth](blocks) * A.expand_dims(scale, -depth - 1)
        back = A.reshape(_IFFT[depth](freq), A.concat([lead, [-1]], 0))
        return matrix_transpose(self._as_dtype(back))

    def _matmul(self, x, adjoint):
        spectrum = self._complex_spectrum()
        return self._apply_spectrum(x, M.conj(spectrum) if adjoint else spectrum)

    def _solve(self, rhs, adjoint):
        spectrum = self._complex_spectrum()
        spectrum = M.conj(spectrum) if adjoint else spectrum
        return self._apply_spectrum(rhs, M.divide(A.ones_like(spectrum), spectrum))

    def _flat_spectrum(self):
        dims = self._spectrum.shape.as_list()
        return A.reshape(self._complex_spectrum(), dims[:-self.block_depth] + [-1])

    def _log_abs_spectrum_sum(self):
        return R.reduce_sum(M.log(M.abs(self._flat_spectrum())), axis=-1)

    def _determinant(self):
        # the spectrum's product in polar form (flowjit's reduce_prod takes real numbers)
        magnitude = M.exp(self._log_abs_spectrum_sum())
        phase = R.reduce_sum(angle(self._flat_spectrum()), axis=-1)
        real = magnitude * M.cos(phase)
        if not self.dtype.is_complex:
            return M.cast(real, self.dtype)
        return M.cast(M.complex(real, magnitude * M.sin(phase)), self.dtype)

    def _log_abs_determinant(self):
        return M.cast(self._log_abs_spectrum_sum(), self.dtype.real_dtype)

    def _like(self, spectrum):
        return type(self)(spectrum, input_output_dtype=self.dtype,
                          is_non_singular=self.is_non_singular,
                          is_positive_definite=self.is_positive_definite)

    def _inverse(self):
        spectrum = self._complex_spectrum()
        return self._like(M.divide(A.ones_like(spectrum), spectrum))

    def _adjoint(self):
        return self._like(M.conj(self._complex_spectrum()))


@tf_export("linalg.LinearOperatorCirculant")
class LinearOperatorCirculant(_BaseLinearOperatorCirculant):
    """The N x N circulant matrix of `spectrum` [..., N]: A x is the circular convolution of
    x with ifft(spectrum)."""
    block_depth = 1


@tf_export("linalg.LinearOperatorCirculant2D")
class LinearOperatorCirculant2D(_BaseLinearOperatorCirculant):
    """The (N0 N1) x (N0 N1) block circulant matrix with circulant blocks of `spectrum`
    [..., N0, N1]: a 2-D circular convolution of the flattened input."""
    block_depth = 2


@tf_export("linalg.LinearOperatorCirculant3D")
class LinearOperatorCirculant3D(_BaseLinearOperatorCirculant):
    """The 3-D form: `spectrum` [..., N0, N1, N2], a 3-D circular convolution."""
    block_depth = 3
