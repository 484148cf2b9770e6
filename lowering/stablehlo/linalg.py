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

from ...ir import dtypes as D
from ...ir.ops.linalg import ELLIPSIS, parse_einsum
from ...runtime.jax_internals import hlo, ir
from .core import register_lowering

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
    return ctx.broadcast(x, ctx.like(x, target))


# --- matmul / tensordot --------------------------------------------------------------------
@register_lowering("matmul")
def _matmul(ctx, op, a, b, *, transpose_a, transpose_b):
    t = ctx.result_type(op)
    out_dt = ctx.tt(op.results[0]).dtype
    compute = D.compute_dtype(ctx.dtype(a))
    if out_dt.is_integer and out_dt is not ctx.dtype(a):     # int8/uint8 -> int32
        compute = out_dt
    a, b = ctx.convert(a, compute), ctx.convert(b, compute)
    batch = list(ir.RankedTensorType(t).shape[:-2])
    a, b = _broadcast_batch(ctx, a, batch), _broadcast_batch(ctx, b, batch)
    nb = len(batch)
    ca = nb if transpose_a else nb + 1
    cb = nb + 1 if transpose_b else nb
    out = dot(ctx, a, b, range(nb), range(nb), [ca], [cb])
    return ctx.convert(out, out_dt)


@register_lowering("tensordot")
def _tensordot(ctx, op, a, b, *, a_axes, b_axes):
    dt = ctx.dtype(a)
    c = D.compute_dtype(dt)
    out = dot(ctx, ctx.convert(a, c), ctx.convert(b, c), [], [], list(a_axes), list(b_axes))
    return ctx.convert(out, dt)


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
    x = ctx.reshape(x, [shape[i] for i in keep])
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
        on_diag = ctx.compare(ctx.iota(idx_t, i), ctx.iota(idx_t, j), "EQ")
        # Off-diagonal entries become the additive identity and the j dim is summed away.
        # -0.0 is an exact identity for floats (x + -0.0 == x, even for x = -0.0), so the
        # sum reproduces the diagonal bit for bit, NaN and Inf included.
        zero = -0.0 if dt.is_floating else 0
        x = hlo.select(on_diag, x, ctx.splat(zero, x.type))
        x = ctx.reduce(x, [j], "add", init=zero)
        labels = labels[:j] + labels[j + 1:]
    return x, labels


@register_lowering("einsum")
def _einsum(ctx, op, *xs, equation):
    dt = ctx.dtype(xs[0])
    c = D.compute_dtype(dt)
    ins, out = parse_einsum(equation, len(xs))
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
        x = ctx.convert(x, c)
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
            o.value = ctx.reduce(o.value, dims, "add")
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
        result = hlo.transpose(result, ctx.i64s([labels.index(lab) for lab in out]))
    return ctx.convert(result, dt)


# --- top_k ---------------------------------------------------------------------------------
@register_lowering("top_k")
def _top_k(ctx, op, x, *, k, index_type):
    """A stable descending sort of (value, index) pairs along the last axis, sliced to k.
    Stability keeps the lower index first among equal values (0.0 and -0.0 are equal), and
    NaN sorts above everything, as in the kernel."""
    shape = ctx.shape(x)
    axis = len(shape) - 1
    dt = ctx.dtype(x)
    iota = ctx.iota(ctx.tensor_type(index_type, shape), axis)
    sort = hlo.SortOp([x.type, iota.type], [x, iota], dimension=axis, is_stable=True)
    val_s, idx_s = ctx.tensor_type(dt, ()), ctx.tensor_type(index_type, ())

    def greater(a, b, *_):
        above = ctx.compare(a, b, "GT")
        if dt.is_floating:
            above = hlo.or_(above, hlo.and_(ctx.compare(a, a, "NE"), ctx.compare(b, b, "EQ")))
        return above
    ctx.body(sort.comparator, (val_s, val_s, idx_s, idx_s), greater)
    start, limit = [0] * len(shape), shape[:-1] + [k]
    return [ctx.slice(sort.results[0], start, limit), ctx.slice(sort.results[1], start, limit)]


# --- square-matrix solvers -----------------------------------------------------------------
# inverse, solve and determinant share one Gauss-Jordan elimination with partial pivoting,
# one pivot column per stablehlo.while iteration (the module stays small for any n). A
# singular matrix divides by a zero pivot (Inf/NaN results) where the eager kernel raises, as
# XLA cannot raise. Cholesky is stablehlo.cholesky with the upper triangle zeroed.
def _solver_operand(ctx, x, adjoint=False):
    x = ctx.convert(x, D.compute_dtype(ctx.dtype(x)))
    if adjoint:
        rank = ctx.rank(x)
        x = hlo.transpose(x, ctx.i64s(list(range(rank - 2)) + [rank - 1, rank - 2]))
    return x


def _eye_mask(ctx, shape):
    """True on the diagonal of the innermost matrices of `shape`."""
    idx_t = ctx.tensor_type(D.int32, shape)
    nb = len(shape) - 2
    return ctx.compare(ctx.iota(idx_t, nb), ctx.iota(idx_t, nb + 1), "EQ")


def _gauss_jordan(ctx, a, rhs=None):
    """Reduce [a | rhs] (a [..., n, n], rhs [..., n, m]) until a is diagonal. Returns the
    diagonal ([..., n]), the reduced rhs and the sign of the row permutation ([...])."""
    shape = ctx.shape(a)
    n, batch = shape[-1], shape[:-2]
    nb = len(batch)
    dt = ctx.dtype(a)
    vec = batch + [n]
    rows = ctx.iota(ctx.tensor_type(D.int64, vec), nb)
    zero = ctx.constant(np.int64(0))
    carried = [ctx.constant(np.int64(0)), a, ctx.splat(1, ctx.tensor_type(dt, batch))]
    carried += [rhs] if rhs is not None else []
    types = [v.type for v in carried]
    loop = hlo.WhileOp(types, carried)
    cond = loop.cond.blocks.append(*types)
    with ir.InsertionPoint(cond):
        hlo.return_([ctx.compare(cond.arguments[0], ctx.constant(np.int64(n)), "LT")])
    body = loop.body.blocks.append(*types)
    with ir.InsertionPoint(body):
        k, a, sign, *rest = body.arguments
        k_vec = ctx.spread(k, vec, [])

        def column(m):
            cut = hlo.dynamic_slice(m, [zero] * (nb + 1) + [k], ctx.i64s(batch + [n, 1]))
            return ctx.reshape(cut, vec)

        def row(m, pick):
            """The row of m selected by the 0/1 vector `pick` ([..., n])."""
            full = ctx.shape(m)
            weighted = hlo.multiply(m, ctx.spread(pick, full, range(nb + 1)))
            return ctx.reduce(weighted, [nb], "add")

        def swap(m, at_k, at_p):
            """m with rows k and p exchanged, and the new row k."""
            full = ctx.shape(m)
            row_k, row_p = row(m, at_k), row(m, at_p)
            move = hlo.subtract(ctx.spread(at_k, full, range(nb + 1)),
                                ctx.spread(at_p, full, range(nb + 1)))
            delta = ctx.spread(hlo.subtract(row_p, row_k), full, list(range(nb)) + [nb + 1])
            return hlo.add(m, hlo.multiply(move, delta)), row_p

        # The pivot: the largest |entry| of column k at or below row k (the first on ties).
        col = column(a)
        below = ctx.compare(rows, k_vec, "GE")
        cand = hlo.select(below, hlo.abs(col), ctx.splat(-1, col.type))
        best = ctx.spread(ctx.reduce(cand, [nb], "max"), vec, range(nb))
        p = ctx.reduce(hlo.select(ctx.compare(cand, best, "EQ"), rows, ctx.splat(n, rows.type)),
                       [nb], "min")
        is_k = ctx.compare(rows, k_vec, "EQ")
        at_k = ctx.convert(is_k, dt)
        at_p = ctx.convert(ctx.compare(rows, ctx.spread(p, vec, range(nb)), "EQ"), dt)
        a, pivot_row = swap(a, at_k, at_p)
        same = ctx.compare(p, ctx.spread(k, batch, []), "EQ")
        sign = hlo.multiply(sign, hlo.select(same, ctx.splat(1, sign.type),
                                             ctx.splat(-1, sign.type)))
        # Eliminate column k from every other row.
        col = column(a)
        pivot = ctx.spread(ctx.reduce(hlo.multiply(col, at_k), [nb], "add"), vec, range(nb))
        # A zero pivot (a singular matrix) eliminates nothing: the zero stays on the
        # diagonal (det 0, log|det| -inf) instead of spreading 0/0 through the matrix.
        skip = hlo.or_(is_k, ctx.compare(pivot, ctx.zeros(pivot.type), "EQ"))
        factor = hlo.select(skip, ctx.splat(0, col.type), hlo.divide(col, pivot))

        def eliminate(m, m_row):
            full = ctx.shape(m)
            return hlo.subtract(m, hlo.multiply(ctx.spread(factor, full, range(nb + 1)),
                                                ctx.spread(m_row, full,
                                                        list(range(nb)) + [nb + 1])))

        a = eliminate(a, pivot_row)
        if rest:
            r, r_row = swap(rest[0], at_k, at_p)
            rest = [eliminate(r, r_row)]
        hlo.return_([hlo.add(k, ctx.constant(np.int64(1))), a, sign] + rest)
    _, a, sign, *rest = loop.results
    diag = ctx.reduce(hlo.select(_eye_mask(ctx, shape), a, ctx.zeros(a.type)), [nb + 1], "add")
    return diag, (rest[0] if rest else None), sign


def _divide_rows(ctx, r, diag):
    shape = ctx.shape(r)
    return hlo.divide(r, ctx.spread(diag, shape, range(len(shape) - 1)))


@register_lowering("matrix_inverse")
def _matrix_inverse(ctx, op, x, *, adjoint):
    a = _solver_operand(ctx, x, adjoint)
    eye = _eye_mask(ctx, ctx.shape(a))
    ident = hlo.select(eye, ctx.splat(1, a.type), ctx.splat(0, a.type))
    diag, r, _ = _gauss_jordan(ctx, a, ident)
    return ctx.convert(_divide_rows(ctx, r, diag), ctx.dtype(x))


@register_lowering("matrix_solve")
def _matrix_solve(ctx, op, matrix, rhs, *, adjoint):
    a = _solver_operand(ctx, matrix, adjoint)
    diag, r, _ = _gauss_jordan(ctx, a, _solver_operand(ctx, rhs))
    return ctx.convert(_divide_rows(ctx, r, diag), ctx.dtype(rhs))


@register_lowering("matrix_determinant")
def _matrix_determinant(ctx, op, x):
    a = _solver_operand(ctx, x)
    diag, _, sign = _gauss_jordan(ctx, a)
    nb = len(ctx.shape(a)) - 2
    return ctx.convert(hlo.multiply(sign, ctx.reduce(diag, [nb], "mul")), ctx.dtype(x))


@register_lowering("cholesky")
def _cholesky(ctx, op, x):
    a = _solver_operand(ctx, x)
    shape = ctx.shape(a)
    idx_t = ctx.tensor_type(D.int32, shape)
    nb = len(shape) - 2
    lower = ctx.compare(ctx.iota(idx_t, nb), ctx.iota(idx_t, nb + 1), "GE")
    out = hlo.select(lower, hlo.cholesky(a, lower=True), ctx.zeros(a.type))
    return ctx.convert(out, ctx.dtype(x))


@register_lowering("log_matrix_determinant")
def _log_matrix_determinant(ctx, op, x):
    a = _solver_operand(ctx, x)
    diag, _, sign = _gauss_jordan(ctx, a)
    nb = len(ctx.shape(a)) - 2
    sign = hlo.multiply(sign, ctx.reduce(hlo.sign(diag), [nb], "mul"))
    log_abs = ctx.reduce(hlo.log(hlo.abs(diag)), [nb], "add")
    return [ctx.convert(sign, ctx.dtype(x)), ctx.convert(log_abs, ctx.dtype(x))]


@register_lowering("matrix_triangular_solve")
def _matrix_triangular_solve(ctx, op, matrix, rhs, *, lower, adjoint):
    """stablehlo.triangular_solve on operands broadcast to the result's batch dims; the
    unread triangle is zeroed first so NaN there cannot leak."""
    a, b = _solver_operand(ctx, matrix), _solver_operand(ctx, rhs)
    out_shape = list(ctx.result_type(op).shape)
    n = ctx.shape(a)[-1]
    a = ctx.broadcast(a, ctx.like(a, out_shape[:-2] + [n, n]))
    b = ctx.broadcast(b, ctx.like(b, out_shape))
    nb = len(out_shape) - 2
    idx_t = ctx.tensor_type(D.int32, ctx.shape(a))
    keep = ctx.compare(ctx.iota(idx_t, nb), ctx.iota(idx_t, nb + 1), "GE" if lower else "LE")
    a = hlo.select(keep, a, ctx.zeros(a.type))
    transpose = hlo.TransposeAttr.get("TRANSPOSE" if adjoint else "NO_TRANSPOSE")
    x = hlo.triangular_solve(a, b, True, lower, False, transpose)
    return ctx.convert(x, ctx.dtype(rhs))
