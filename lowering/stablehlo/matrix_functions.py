"""The matrix square root and logarithm under XLA, through jax (decomp.call_jax), in the
double-width types. The square root is jax.scipy's complex Schur method; for a real input
its imaginary part is rounding unless the principal root is not real (a negative
eigenvalue), which gives NaN as the kernel does. The logarithm has no jax function: inverse
scaling and squaring (square roots until the matrix is within 1/4 of I in the 1-norm, then
the series of log(I + X), times 2**k)."""
from __future__ import annotations

from ...ir import dtypes as D
from .core import register_lowering
from .decomp import JAX_FUNCTIONS, call_jax

# |imag(root)| beyond this fraction of |root| means the principal root is not real
_NOT_REAL = 1e-8
# the series of log(I + X) for ||X|| <= 1/4: 1/4**40 / 40 is below float64's resolution
_SERIES_TERMS, _CLOSE_TO_I, _MAX_ROOTS = 40, 0.25, 64


def _sqrtm(real):
    import jax.numpy as jnp
    from jax.scipy.linalg import sqrtm
    batched = jnp.vectorize(sqrtm, signature="(n,n)->(n,n)")

    def run(a):
        finite = jnp.all(jnp.isfinite(a), axis=(-2, -1), keepdims=True)
        root = batched(jnp.where(finite, a, 0))
        if not real:
            return jnp.where(finite, root, _complex_nan(a.dtype))
        size = jnp.max(jnp.abs(root), axis=(-2, -1), keepdims=True)
        complex_root = jnp.max(jnp.abs(root.imag), axis=(-2, -1), keepdims=True) > \
            _NOT_REAL * size
        return jnp.where(complex_root | ~finite, jnp.nan, root.real)
    return run


def _complex_nan(dtype):
    import jax.numpy as jnp
    return jnp.asarray(complex(jnp.nan, jnp.nan), dtype)


def _logm_one(a):
    import jax
    import jax.numpy as jnp
    from jax.scipy.linalg import sqrtm
    eye = jnp.eye(a.shape[-1], dtype=a.dtype)

    def far(state):
        root, k = state
        return (jnp.max(jnp.sum(jnp.abs(root - eye), axis=0)) > _CLOSE_TO_I) & (k < _MAX_ROOTS)

    finite = jnp.all(jnp.isfinite(a))     # a non-finite matrix is NaN, as in the kernel
    start = jnp.where(finite, a, eye)
    root, k = jax.lax.while_loop(far, lambda s: (sqrtm(s[0]), s[1] + 1), (start, 0))
    x = root - eye
    term, total = eye, jnp.zeros_like(a)
    for j in range(1, _SERIES_TERMS + 1):
        term = term @ x
        total = total + term * ((-1) ** (j + 1) / j)
    return jnp.where(finite, total * (2.0 ** k), _complex_nan(a.dtype))


def _logm():
    import jax.numpy as jnp
    return jnp.vectorize(_logm_one, signature="(n,n)->(n,n)")


JAX_FUNCTIONS.update({"sqrtm": _sqrtm, "logm": _logm})


def _wide(ctx, x):
    dt = ctx.dtype(x)
    return ctx.convert(x, D.complex128 if dt in D.COMPLEX else D.float64), dt


@register_lowering("matrix_square_root")
def _matrix_square_root(ctx, op, x):
    if ctx.is_empty(x):
        return x
    wide, dt = _wide(ctx, x)
    out = call_jax(ctx, ("sqrtm", dt not in D.COMPLEX), wide)[0]
    return ctx.convert(out, dt)


@register_lowering("matrix_logarithm")
def _matrix_logarithm(ctx, op, x):
    if ctx.is_empty(x):
        return x
    wide, dt = _wide(ctx, x)
    return ctx.convert(call_jax(ctx, ("logm",), wide)[0], dt)
