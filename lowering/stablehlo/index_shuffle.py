"""`random_index_shuffle` under XLA: the kernel's cipher steps (runtime/kernels/
index_shuffle.py) built as StableHLO uint64 ops; the cycle walk is a stablehlo.while that
runs while any element exceeds its bound."""
from __future__ import annotations

import numpy as np
from ...ir import dtypes as D
from ...runtime.jax_internals import hlo, ir
from ...runtime.kernels.index_shuffle import shuffle
from .core import register_lowering


def _compare(direction):
    return lambda self, x, y: self.ctx.compare(x, y, direction)


class _HloBits:
    """The kernel's arithmetic backend over StableHLO values of one shape."""

    def __init__(self, ctx, shape):
        self.ctx, self.shape = ctx, list(shape)
        self.type = ctx.tensor_type(D.uint64, self.shape)

    def const(self, value, like):
        return self.ctx.splat(np.uint64(value), self.type)

    xor, and_, or_ = staticmethod(hlo.xor), staticmethod(hlo.and_), staticmethod(hlo.or_)
    shl, shr = staticmethod(hlo.shift_left), staticmethod(hlo.shift_right_logical)
    add, sub = staticmethod(hlo.add), staticmethod(hlo.subtract)
    ge, gt, eq = _compare("GE"), _compare("GT"), _compare("EQ")
    select = staticmethod(hlo.select)

    def walk(self, value, top, step):
        ctx = self.ctx
        loop = hlo.WhileOp([value.type], [value])
        cond = loop.cond.blocks.append(value.type)
        with ir.InsertionPoint(cond):
            over = self.gt(cond.arguments[0], top)
            hlo.return_([ctx.reduce(over, list(range(len(self.shape))), "or")
                         if self.shape else over])
        body = loop.body.blocks.append(value.type)
        with ir.InsertionPoint(body):
            v = body.arguments[0]
            hlo.return_([self.select(self.gt(v, top), step(v), v)])
        return loop.result


@register_lowering("random_index_shuffle")
def _random_index_shuffle(ctx, op, index, seed, max_index, *, rounds):
    shape = list(ir.RankedTensorType(ctx.result_type(op)).shape)
    bits = _HloBits(ctx, shape)

    def as_u64(x, dims):
        wide = ctx.convert(x, D.int64) if ctx.dtype(x).kind == "i" else x
        return ctx.broadcast(ctx.convert(wide, D.uint64), bits.type) if not dims else \
            ctx.spread(ctx.convert(wide, D.uint64), shape, dims)

    seed_dims = ctx.shape(seed)
    words = []
    for i in range(3):
        start = [0] * len(seed_dims)
        start[-1] = i
        limit = list(seed_dims)
        limit[-1] = i + 1
        word = ctx.reshape(ctx.slice(seed, start, limit), seed_dims[:-1])
        word = as_u64(word, list(range(len(seed_dims) - 1)) if len(seed_dims) == 2 else [])
        words.append(hlo.and_(word, bits.const(0xffffffff, None)))
    index_dims = list(range(len(ctx.shape(index))))
    top_dims = list(range(len(ctx.shape(max_index))))
    out = shuffle(bits, as_u64(index, index_dims), words, as_u64(max_index, top_dims),
                  int(rounds))
    return ctx.convert(out, ctx.dtype(index))
