"""StableHLO rules of the FFT family: stablehlo.fft, with the real transforms' inputs
cropped or zero-padded to the shape stablehlo.fft requires."""
from __future__ import annotations

import numpy as np

from ...runtime.jax_internals import hlo
from .core import register_lowering


def _fit(ctx, x, sizes):
    """x with its trailing dims cropped or zero-padded to `sizes`."""
    shape = ctx.shape(x)
    lead = len(shape) - len(sizes)
    target = shape[:lead] + list(sizes)
    x = ctx.slice(x, [0] * len(shape), [min(a, b) for a, b in zip(shape, target)])
    high = [max(0, b - a) for a, b in zip(shape, target)]
    if any(high):
        x = hlo.pad(x, ctx.scalar(0, x), ctx.i64s([0] * len(shape)), ctx.i64s(high),
                    ctx.i64s([0] * len(shape)))
    return x


def _row_major(ctx, x):
    """x, with XLA's layout assignment kept from giving it a non-default layout.

    XLA's CPU FFT requires row-major operands but does not tell layout assignment so: a
    consumer with a column-major operand constraint (LAPACK's custom calls, e.g. eigh)
    propagates its layout back into the FFT, which then fails at run time
    (fft_thunk.cc: IsMonotonicWithDim0Major); plain jax.jit fails the same way. A reshape
    to rank 1 is a bitcast only from the row-major layout, and the barrier keeps the
    simplifier from folding the reshape pair away before layout assignment sees it."""
    shape = ctx.shape(x)
    if len(shape) < 2:
        return x
    flat = hlo.optimization_barrier([ctx.reshape(x, [int(np.prod(shape))])])
    return ctx.reshape(flat, shape)


def _transform(ctx, x, kind, lengths):
    out = hlo.fft(_row_major(ctx, x), hlo.FftTypeAttr.get(kind), ctx.i64s(lengths))
    return _row_major(ctx, out)


@register_lowering("fft")
def _fft(ctx, op, x, *, rank):
    return _transform(ctx, x, "FFT", ctx.shape(x)[-rank:])


@register_lowering("ifft")
def _ifft(ctx, op, x, *, rank):
    return _transform(ctx, x, "IFFT", ctx.shape(x)[-rank:])


@register_lowering("rfft")
def _rfft(ctx, op, x, *, rank, fft_length):
    return _transform(ctx, _fit(ctx, x, fft_length), "RFFT", list(fft_length))


@register_lowering("irfft")
def _irfft(ctx, op, x, *, rank, fft_length):
    sizes = list(fft_length[:-1]) + [fft_length[-1] // 2 + 1]
    return _transform(ctx, _fit(ctx, x, sizes), "IRFFT", list(fft_length))
