"""matmul, tensordot, einsum and top_k -> StableHLO.

Everything multiplies through stablehlo.dot_general. float16/bfloat16 operands are converted
to float32 and the result rounded once, as the NumPy kernels do; int8/uint8 matmuls with
output_type=int32 convert the operands to int32 first. Float dots ask for HIGHEST precision
so that a GPU does not silently use reduced-precision (TF32) products that the kernels never do.

einsum is planned here from its (explicit) equation: per operand, repeated labels become
diagonals and labels nobody else needs are summed out; then operands are contracted pairwise,
left to right, with dot_general (shared labels still needed are batch dims, the others
contracting), and a final transpose puts the labels in output order.
"""
from __future__ import annotations

import numpy as np
from jax._src.lib.mlir import ir
import jaxlib.mlir.dialects.stablehlo as hlo

from ...ir import dtypes as D
from ...ir.ops.linalg import ELLIPSIS, parse_einsum
from .core import register_lowering
from .math import compare

_HALF = (D.float16, D.bfloat16)


def _i64(values):
    return ir.DenseI64ArrayAttr.get([int(v) for v in values])


def _convert(ctx, x, dt: D.DType):
    if ctx.dtype(x) is dt:
        return x
    return hlo.convert(ctx.tensor_type(dt, ctx.shape(x)), x)


def _compute_dtype(dt: D.DType) -> D.DType:
    return D.float32 if dt in _HALF else dt


def dot(ctx, a, b, batch_a, batch_b, contract_a, contract_b):
    """dot_general; the result has the batch dims, then a's free dims, then b's (in order)."""
    sa, sb = ctx.shape(a), ctx.shape(b)
    free_a = [d for i, d in enumerate(sa) if i not in batch_a and i not in contract_a]
    free_b = [d for i, d in enumerate(sb) if i not in batch_b and i not in contract_b]
    dt = ctx.dtype(a)
    out_t = ctx.tensor_type(dt, [sa[i] for i in batch_a] + free_a + free_b)
    dims = hlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=list(batch_a), rhs_batching_dimensions=list(batch_b),
        lhs_contracting_dimensions=list(contract_a), rhs_contracting_dimensions=list(contract_b))
    precision = None
    if dt.is_floating or dt.is_complex:
        highest = hlo.PrecisionAttr.get("HIGHEST")
        precision = ir.ArrayAttr.get([highest, highest])
    return hlo.dot_general(out_t, a, b, dims, precision_config=precision)


def _broadcast_batch(ctx, x, batch):
    """Broadcast x's leading (batch) dims to `batch`, keeping its last two dims."""
    shape = ctx.shape(x)
    target = list(batch) + shape[-2:]
    if shape == target:
        return x
    offset = len(target) - len(shape)
    return hlo.broadcast_in_dim(ctx.tensor_type(ctx.dtype(x), target), x,
                                _i64(range(offset, len(target))))


# --- matmul / tensordot --------------------------------------------------------------------
@register_lowering("matmul")
def _matmul(ctx, op, a, b):
    attrs = op.python_attrs()
    t = ctx.result_type(op)
    out_dt = ctx.tt(op.results[0]).dtype
    compute = _compute_dtype(ctx.dtype(a))
    if out_dt.is_integer and out_dt is not ctx.dtype(a):     # int8/uint8 -> int32
        compute = out_dt
    a, b = _convert(ctx, a, compute), _convert(ctx, b, compute)
    batch = list(ir.RankedTensorType(t).shape[:-2])
    a, b = _broadcast_batch(ctx, a, batch), _broadcast_batch(ctx, b, batch)
    nb = len(batch)
    ca = nb if attrs["transpose_a"] else nb + 1
    cb = nb + 1 if attrs["transpose_b"] else nb
    out = dot(ctx, a, b, range(nb), range(nb), [ca], [cb])
    return _convert(ctx, out, out_dt)


@register_lowering("tensordot")
def _tensordot(ctx, op, a, b):
    attrs = op.python_attrs()
    dt = ctx.dtype(a)
    ra, rb = len(ctx.shape(a)), len(ctx.shape(b))
    axa = [x % ra for x in attrs["a_axes"]]
    axb = [x % rb for x in attrs["b_axes"]]
    c = _compute_dtype(dt)
    out = dot(ctx, _convert(ctx, a, c), _convert(ctx, b, c), [], [], axa, axb)
    return _convert(ctx, out, dt)


# --- einsum --------------------------------------------------------------------------------
class _Operand:
    """A lowered value and the label of each of its dims."""

    def __init__(self, value, labels):
        self.value = value
        self.labels = list(labels)


def _expand_ellipsis(ins, out, shapes):
    """Replace "..." by one label per broadcast dim: ("...", k) for the k-th dim counted from
    the right. Returns (input label lists, output label list, ellipsis shape)."""
    ell_shapes = []
    for toks, shape in zip(ins, shapes):
        if ELLIPSIS in toks:
            nell = len(shape) - (len(toks) - 1)
            pos = toks.index(ELLIPSIS)
            ell_shapes.append(list(shape[pos:pos + nell]))
    ell = list(np.broadcast_shapes(*[tuple(s) for s in ell_shapes])) if ell_shapes else []

    def expand(toks, n):
        if ELLIPSIS not in toks:
            return list(toks)
        pos = toks.index(ELLIPSIS)
        return toks[:pos] + [(ELLIPSIS, n - 1 - k) for k in range(n)] + toks[pos + 1:]

    new_ins = [expand(toks, len(shape) - (len(toks) - 1)) if ELLIPSIS in toks else list(toks)
               for toks, shape in zip(ins, shapes)]
    return new_ins, expand(out, len(ell)), ell


def _drop_broadcast_ones(ctx, x, labels, sizes):
    """A size-1 ellipsis dim broadcast against a larger one: drop it, so the label is simply
    absent from this operand (dot_general and the final broadcast then repeat the values)."""
    shape = ctx.shape(x)
    keep = [i for i, (lab, d) in enumerate(zip(labels, shape))
            if not (d == 1 and sizes[lab] != 1)]
    if len(keep) == len(shape):
        return x, labels
    x = hlo.reshape(ctx.tensor_type(ctx.dtype(x), [shape[i] for i in keep]), x)
    return x, [labels[i] for i in keep]


def _diagonal(ctx, x, labels):
    """Merge repeated labels of one operand into one dim (the diagonal)."""
    while len(set(labels)) != len(labels):
        lab = next(lab for lab in labels if labels.count(lab) > 1)
        i = labels.index(lab)
        j = labels.index(lab, i + 1)
        shape = ctx.shape(x)
        dt = ctx.dtype(x)
        idx_t = ctx.tensor_type(D.int32, shape)
        dim_i = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), i)
        dim_j = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), j)
        on_diag = compare(ctx, hlo.iota(idx_t, dim_i), hlo.iota(idx_t, dim_j), "EQ")
        # Off-diagonal entries become the additive identity and the j dim is summed away.
        # -0.0 is an exact identity for floats (x + -0.0 == x, even for x = -0.0), so the
        # sum reproduces the diagonal bit for bit, NaN and Inf included.
        zero = -0.0 if dt.is_floating else 0
        x = hlo.select(on_diag, x, ctx.splat(zero, x.type))
        x = _sum(ctx, x, [j], zero)
        labels = labels[:j] + labels[j + 1:]
    return x, labels


def _sum(ctx, x, dims, init=0):
    if not dims:
        return x
    dt = ctx.dtype(x)
    shape = ctx.shape(x)
    scalar_t = ctx.tensor_type(dt, ())
    out_t = ctx.tensor_type(dt, [d for i, d in enumerate(shape) if i not in dims])
    red = hlo.ReduceOp([out_t], [x], [ctx.constant(np.asarray(init, dt.np))], _i64(dims))
    block = red.body.blocks.append(scalar_t, scalar_t)
    with ir.InsertionPoint(block):
        hlo.return_([hlo.add(*block.arguments)])
    return red.result


@register_lowering("einsum")
def _einsum(ctx, op, *xs):
    eq = op.python_attrs()["equation"]
    dt = ctx.dtype(xs[0])
    c = _compute_dtype(dt)
    ins, out = parse_einsum(eq, len(xs))
    shapes = [ctx.shape(x) for x in xs]
    ins, out, ell = _expand_ellipsis(ins, out, shapes)
    sizes = {}
    for labels, shape in zip(ins, shapes):
        for lab, d in zip(labels, shape):
            if isinstance(lab, tuple):
                sizes[lab] = ell[len(ell) - 1 - lab[1]]
            else:
                sizes[lab] = d
    ops = []
    for x, labels in zip(xs, ins):
        x = _convert(ctx, x, c)
        x, labels = _drop_broadcast_ones(ctx, x, labels, sizes)
        x, labels = _diagonal(ctx, x, labels)
        ops.append(_Operand(x, labels))

    def needed_elsewhere(k):
        """Labels used by the output or by an operand other than ops[k]."""
        keep = set(out)
        for m, o in enumerate(ops):
            if m != k:
                keep.update(o.labels)
        return keep

    for k, o in enumerate(ops):
        keep = needed_elsewhere(k)
        dims = [i for i, lab in enumerate(o.labels) if lab not in keep]
        if dims:
            o.value = _sum(ctx, o.value, dims)
            o.labels = [lab for i, lab in enumerate(o.labels) if i not in dims]

    while len(ops) > 1:
        a, b = ops[0], ops[1]
        later = set(out)
        for o in ops[2:]:
            later.update(o.labels)
        shared = [lab for lab in a.labels if lab in b.labels]
        batch = [lab for lab in shared if lab in later]
        contract = [lab for lab in shared if lab not in later]
        value = dot(ctx, a.value, b.value,
                    [a.labels.index(lab) for lab in batch], [b.labels.index(lab) for lab in batch],
                    [a.labels.index(lab) for lab in contract],
                    [b.labels.index(lab) for lab in contract])
        labels = (batch + [lab for lab in a.labels if lab not in shared]
                  + [lab for lab in b.labels if lab not in shared])
        ops[:2] = [_Operand(value, labels)]

    result, labels = ops[0].value, ops[0].labels
    # Only output labels are left, and all of them: a size-1 ellipsis dim dropped from one
    # operand survives in the operand whose size it broadcast to.
    if labels != out:
        result = hlo.transpose(result, _i64([labels.index(lab) for lab in out]))
    return _convert(ctx, result, dt)


# --- top_k ---------------------------------------------------------------------------------
@register_lowering("top_k")
def _top_k(ctx, op, x):
    """A stable descending sort of (value, index) pairs along the last axis, sliced to k.
    Stability keeps the lower index first among equal values (0.0 and -0.0 are equal), and
    NaN sorts above everything, as in the kernel."""
    attrs = op.python_attrs()
    k, idx_dt = attrs["k"], attrs["index_type"]
    shape = ctx.shape(x)
    axis = len(shape) - 1
    dt = ctx.dtype(x)
    iota = hlo.iota(ctx.tensor_type(idx_dt, shape),
                    ir.IntegerAttr.get(ir.IntegerType.get_signless(64), axis))
    sort = hlo.SortOp([x.type, iota.type], [x, iota], dimension=axis, is_stable=True)
    val_s, idx_s = ctx.tensor_type(dt, ()), ctx.tensor_type(idx_dt, ())
    block = sort.comparator.blocks.append(val_s, val_s, idx_s, idx_s)
    with ir.InsertionPoint(block):
        a, b = block.arguments[0], block.arguments[1]
        greater = compare(ctx, a, b, "GT")
        if dt.is_floating:
            a_nan = compare(ctx, a, a, "NE")
            b_num = compare(ctx, b, b, "EQ")
            greater = hlo.or_(greater, hlo.and_(a_nan, b_num))
        hlo.return_([greater])
    out_shape = shape[:-1] + [k]
    start, limit, strides = [0] * len(shape), out_shape, [1] * len(shape)
    values = hlo.slice(sort.results[0], _i64(start), _i64(limit), _i64(strides))
    indices = hlo.slice(sort.results[1], _i64(start), _i64(limit), _i64(strides))
    return [values, indices]
