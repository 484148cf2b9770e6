"""Gradients of reductions and scans. reduce_max/reduce_min split the gradient equally among
tied extremes (as TF does); reduce_prod is exact at zeros (products of the other elements
come from exclusive cumulative products, no division); cumprod divides by x as TF does, so
its gradient at an element equal to 0 is 0 (TF's convention, not the true derivative)."""
from __future__ import annotations

from ..ops import array as A
from ..ops import math as M
from ..ops import reduce as R
from ._util import (attr, broadcast_like, dims, gradient, keep_reduced, need_rank, norm_axes,
                    rank, unsupported)


def _axis(op):
    return attr(op, "axis"), attr(op, "keepdims")


@gradient("reduce_sum")
def _sum_grad(op, g):
    x = op.inputs[0]
    axis, keepdims = _axis(op)
    return [broadcast_like(keep_reduced(g, x, axis, keepdims, "reduce_sum"), x)]


def _reduced_count(x, y, axis):
    """The number of elements each output of a reduction summarizes: a Python int when the
    reduced dims are static, else size(x) / size(y) computed at run time."""
    xs = dims(x)
    if xs is not None:
        reduced = [xs[a] for a in norm_axes(axis, len(xs))]
        if None not in reduced:
            n = 1
            for d in reduced:
                n *= d
            return n
    dt = x.dtype
    size_y = M.maximum(A.size(y), 1)
    return M.divide(M.cast(A.size(x), dt), M.cast(size_y, dt))


@gradient("reduce_mean")
def _mean_grad(op, g):
    x = op.inputs[0]
    axis, keepdims = _axis(op)
    n = _reduced_count(x, op.outputs[0], axis)
    if isinstance(n, int):
        scaled = M.multiply(g, 1.0 / n) if n else g  # an empty reduction: x has no elements
    else:
        scaled = M.divide(g, n)
    return [broadcast_like(keep_reduced(scaled, x, axis, keepdims, "reduce_mean"), x)]


def _others_product(x, axis):
    """For each element, the product of the other elements along `axis` (exact at zeros)."""
    return M.multiply(R.cumprod(x, axis, exclusive=True),
                      R.cumprod(x, axis, exclusive=True, reverse=True))


def _prod_grad_keep(x, axes, g):
    """Gradient of reduce_prod(x, axes, keepdims=True) for upstream `g`: one axis at a time,
    through the intermediate product over the first axis."""
    a, rest = axes[0], axes[1:]
    if rest:
        g = _prod_grad_keep(R.reduce_prod(x, (a,), keepdims=True), rest, g)
    return M.multiply(g, _others_product(x, a))


@gradient("reduce_prod")
def _prod_grad(op, g):
    x = op.inputs[0]
    axis, keepdims = _axis(op)
    r = need_rank(x, "reduce_prod")
    axes = norm_axes(axis, r)
    g = keep_reduced(g, x, axis, keepdims, "reduce_prod")
    if not axes:
        return [g]
    return [_prod_grad_keep(x, axes, g)]


def _extreme_grad(name):
    @gradient(name)
    def _grad(op, g):
        x = op.inputs[0]
        axis, keepdims = _axis(op)
        if rank(x) is None and axis is not None:
            raise unsupported(name, "the input's rank is unknown")
        y = keep_reduced(op.outputs[0], x, axis, keepdims, name)
        g = keep_reduced(g, x, axis, keepdims, name)
        hits = M.cast(M.equal(y, x), x.dtype)
        count = R.reduce_sum(hits, axis, keepdims=True)
        return [M.multiply(M.divide(hits, count), g)]


_extreme_grad("reduce_max")
_extreme_grad("reduce_min")


@gradient("cumsum")
def _cumsum_grad(op, g):
    return [R.cumsum(g, attr(op, "axis"), exclusive=attr(op, "exclusive"),
                     reverse=not attr(op, "reverse"))]


@gradient("cumprod")
def _cumprod_grad(op, g):
    x = op.inputs[0]
    axis, exclusive, reverse = attr(op, "axis"), attr(op, "exclusive"), attr(op, "reverse")
    prod = R.cumprod(x, axis, exclusive=exclusive, reverse=reverse)
    out = R.cumsum(M.multiply(prod, g), axis, exclusive=exclusive, reverse=not reverse)
    zero = M.equal(x, A.zeros_like(x))
    safe_x = M.where(zero, A.ones_like(x), x)
    return [M.where(zero, A.zeros_like(x), M.divide(out, safe_x))]
