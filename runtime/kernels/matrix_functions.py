"""NumPy kernels of the matrix square root and logarithm: SciPy's Schur-based sqrtm and
logm, per matrix, in the input's double-width type. A real matrix whose principal square root
is not real (a negative eigenvalue: SciPy then answers complex) is NaN throughout, as TF's
real Schur method gives."""
from __future__ import annotations

import functools
import importlib

import numpy as np

from . import kernel


@functools.cache
def _linalg():
    return importlib.import_module("scipy.linalg")


def _per_matrix(fn, x, wide):
    """fn over the matrices of x in type `wide`; a matrix with an inf or NaN entry is NaN
    throughout, as TF gives (1x1 ones aside, README: Differences): there SciPy's logm
    never converges and its sqrtm returns infinities."""
    flat = x.reshape((-1,) + x.shape[-2:]).astype(wide)
    out = np.empty(flat.shape, x.dtype)
    nan = complex(np.nan, np.nan) if np.iscomplexobj(out) else np.nan
    if flat.size:
        for i, m in enumerate(flat):
            out[i] = fn(m) if np.isfinite(m).all() else nan
    return out.reshape(x.shape)


def _real_sqrtm(m):
    root = _linalg().sqrtm(m)
    return np.full(m.shape, np.nan) if np.iscomplexobj(root) else root


@kernel("matrix_square_root")
def matrix_square_root(x):
    if np.iscomplexobj(x):
        return _per_matrix(_linalg().sqrtm, x, np.complex128)
    return _per_matrix(_real_sqrtm, x, np.float64)


@kernel("matrix_logarithm")
def matrix_logarithm(x):
    return _per_matrix(_linalg().logm, x, np.complex128)
