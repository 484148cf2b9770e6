"""StableHLO rules of the FFT family: stablehlo.fft, with the real transforms' inputs
cropped or zero-padded to the shape stablehlo.fft requires."""
from __future__ import annotations

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


def _transform(ctx, x, kind, lengths):
    return hlo.fft(x, hlo.FftTypeAttr.get(kind), ctx.i64s(lengths))


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
