"""Gradients of matmul, tensordot, einsum and top_k."""
from __future__ import annotations

from ...ir.ops.linalg import ELLIPSIS, parse_einsum
from ..ops import array as A
from ..ops import linalg as L
from ..ops import math as M
from ..ops import reduce as R
from ._util import attr, broadcast_like, dims, gradient, need_rank, positions, unbroadcast


@gradient("matmul")
def _matmul_grad(op, g):
    a, b = op.inputs
    ta, tb = attr(op, "transpose_a"), attr(op, "transpose_b")
    mm = L.matmul
    # C = op(a) @ op(b); each case writes dA and dB in the stored layouts of a and b.
    if not ta and not tb:
        ga, gb = mm(g, b, transpose_b=True), mm(a, g, transpose_a=True)
    elif ta and not tb:
        ga, gb = mm(b, g, transpose_b=True), mm(a, g)
    elif not ta and tb:
        ga, gb = mm(g, b), mm(g, a, transpose_a=True)
    else:
        ga, gb = mm(b, g, transpose_a=True, transpose_b=True), \
            mm(g, a, transpose_a=True, transpose_b=True)
    return [unbroadcast(ga, a), unbroadcast(gb, b)]


def _perm_to(order):
    """The transpose that puts axes currently in `order` (their target positions) in place."""
    perm = [order.index(i) for i in range(len(order))]
    return None if perm == list(range(len(perm))) else perm


@gradient("tensordot")
def _tensordot_grad(op, g):
    a, b = op.inputs
    ra, rb = need_rank(a, "tensordot"), need_rank(b, "tensordot")
    a_axes = [x % ra for x in attr(op, "a_axes")]
    b_axes = [x % rb for x in attr(op, "b_axes")]
    a_free = [i for i in range(ra) if i not in a_axes]
    b_free = [j for j in range(rb) if j not in b_axes]
    nfa = len(a_free)
    # dA: contract g's b-free part with b's free axes; what is left of b are its contracted
    # axes in increasing order, each standing for its partner axis of a.
    ga = L.tensordot(g, b, [list(range(nfa, nfa + len(b_free))), b_free])
    order = a_free + [a_axes[b_axes.index(j)] for j in sorted(b_axes)]
    perm = _perm_to(order)
    if perm is not None:
        ga = A.transpose(ga, perm)
    gb = L.tensordot(a, g, [a_free, list(range(nfa))])
    order = [b_axes[a_axes.index(i)] for i in sorted(a_axes)] + b_free
    perm = _perm_to(order)
    if perm is not None:
        gb = A.transpose(gb, perm)
    return [ga, gb]


# --- einsum -------------------------------------------------------------------------------
def _term(tokens):
    return "".join(tokens)


def _einsum_input_grad(i, ins, out, inputs, g):
    """d einsum / d inputs[i]: contract g with the other operands onto input i's labels, then
    restore what a plain einsum cannot produce: summed-only labels (broadcast back), repeated
    labels (a diagonal), and a broadcast ellipsis (summed back)."""
    x = inputs[i]
    toks = ins[i]
    rx = need_rank(x, "einsum")
    rg = need_rank(g, "einsum")
    others = [j for j in range(len(ins)) if j != i]
    elsewhere = set(out)
    for j in others:
        elsewhere.update(ins[j])
    has_ell = ELLIPSIS in toks
    n_out_ell = rg - sum(1 for c in out if c != ELLIPSIS) if ELLIPSIS in out else 0
    # Labels of the gradient einsum's result: x's labels known elsewhere, each once.
    target = []
    for c in toks:
        if c == ELLIPSIS or (c in elsewhere and c not in target):
            target.append(c)
    lead_ell = not has_ell and n_out_ell > 0  # g's ellipsis must be summed away
    if lead_ell:
        target = [ELLIPSIS] + target
    eq = ",".join([_term(out)] + [_term(ins[j]) for j in others]) + "->" + _term(target)
    res = L.einsum(eq, g, *[inputs[j] for j in others])
    if lead_ell:
        res = R.reduce_sum(res, tuple(range(n_out_ell)))
        target = target[1:]
    # The ellipsis block of `res` is as long as g's; x's may be shorter or have size-1 dims.
    if has_ell:
        n_x_ell = rx - sum(1 for c in toks if c != ELLIPSIS)
        e = target.index(ELLIPSIS)
        extra = n_out_ell - n_x_ell
        if extra:
            res = R.reduce_sum(res, tuple(range(e, e + extra)))
        x_ell = dims(x)[toks.index(ELLIPSIS):toks.index(ELLIPSIS) + n_x_ell]
        r_ell = dims(res)[e:e + n_x_ell]
        ones = tuple(e + k for k, (xd, rd) in enumerate(zip(x_ell, r_ell))
                     if xd == 1 and rd != 1)
        if ones:
            res = R.reduce_sum(res, ones, keepdims=True)
    # Lay res out along x's axes: the first occurrence of a label known elsewhere takes res's
    # axis, every other position gets a size-1 axis (broadcast or diagonal below).
    expanded = []
    for c in toks:
        if c == ELLIPSIS:
            expanded.extend([ELLIPSIS] * n_x_ell)
        else:
            expanded.append(c)
    seen = set()
    pos = 0
    for k, c in enumerate(expanded):
        if c == ELLIPSIS or (c in elsewhere and c not in seen):
            seen.add(c)
            pos += 1
            continue
        res = A.expand_dims(res, pos)
        pos += 1
    # Repeated labels: keep only the diagonal.
    for c in set(expanded) - {ELLIPSIS}:
        where = [k for k, t in enumerate(expanded) if t == c]
        if len(where) < 2:
            continue
        first = where[0]
        pf = A.reshape(positions(x, first), [-1 if k == first else 1 for k in range(rx)])
        for k in where[1:]:
            pk = A.reshape(positions(x, k), [-1 if m == k else 1 for m in range(rx)])
            res = M.multiply(res, M.cast(M.equal(pf, pk), res.dtype))
    return broadcast_like(res, x)


@gradient("einsum")
def _einsum_grad(op, g):
    ins, out = parse_einsum(attr(op, "equation"), len(op.inputs))
    return [_einsum_input_grad(i, ins, out, op.inputs, g) if x.dtype.is_floating else None
            for i, x in enumerate(op.inputs)]


@gradient("top_k")
def _top_k_grad(op, g, g_indices=None):
    x = op.inputs[0]
    idx = op.outputs[1]
    if g is None:
        return [None]
    need_rank(x, "top_k")
    if dims(x)[-1] == 0 or attr(op, "k") == 0:
        return [A.zeros_like(x)]
    # One-hot rows of the chosen positions ([..., k, n]) carry each value's gradient home.
    hot = M.cast(M.equal(A.expand_dims(idx, -1), positions(x, -1, idx.dtype)), g.dtype)
    return [A.squeeze(L.matmul(A.expand_dims(g, -2), hot), -2)]



# --- square-matrix solvers: TF's linalg_grad rules ----------------------------------------
@gradient("matrix_inverse")
def _matrix_inverse_grad(op, g):
    y = op.outputs[0]
    if attr(op, "adjoint"):   # y = inv(a^T): da = -y g^T y
        return [M.negative(L.matmul(L.matmul(y, g, transpose_b=True), y))]
    return [M.negative(L.matmul(y, L.matmul(g, y, transpose_b=True), transpose_a=True))]


@gradient("matrix_determinant")
def _matrix_determinant_grad(op, g):
    scale = A.expand_dims(A.expand_dims(M.multiply(g, op.outputs[0]), -1), -1)
    return [M.multiply(scale, L.inv(op.inputs[0], adjoint=True))]


@gradient("matrix_solve")
def _matrix_solve_grad(op, g):
    a = op.inputs[0]
    c = op.outputs[0]
    adjoint = attr(op, "adjoint")
    grad_rhs = L.solve(a, g, adjoint=not adjoint)
    if adjoint:
        return [M.negative(L.matmul(c, grad_rhs, transpose_b=True)), grad_rhs]
    return [M.negative(L.matmul(grad_rhs, c, transpose_b=True)), grad_rhs]


@gradient("cholesky")
def _cholesky_grad(op, g):
    low = op.outputs[0]
    low_inv = L.inv(low)
    middle = L.matmul(low, g, transpose_a=True)
    # The lower triangle of l^T g with its diagonal halved.
    middle = M.subtract(L.band_part(middle, -1, 0),
                        M.multiply(L.band_part(middle, 0, 0), 0.5))
    grad = L.matmul(L.matmul(low_inv, middle, transpose_a=True), low_inv)
    rank = need_rank(grad, "cholesky")
    grad_t = A.transpose(grad, list(range(rank - 2)) + [rank - 1, rank - 2])
    return [M.multiply(M.add(grad, grad_t), 0.5)]


@gradient("matrix_triangular_solve")
def _matrix_triangular_solve_grad(op, g):
    a, b = op.inputs
    c = op.outputs[0]
    lower, adjoint = attr(op, "lower"), attr(op, "adjoint")
    grad_b = L.triangular_solve(a, g, lower=lower, adjoint=not adjoint)
    if adjoint:
        grad_a = M.negative(L.matmul(c, grad_b, transpose_b=True))
    else:
        grad_a = M.negative(L.matmul(grad_b, c, transpose_b=True))
    grad_a = L.band_part(grad_a, -1, 0) if lower else L.band_part(grad_a, 0, -1)
    return [unbroadcast(grad_a, a), unbroadcast(grad_b, b)]


@gradient("log_matrix_determinant")
def _log_matrix_determinant_grad(op, g_sign, g_log_abs):
    if g_log_abs is None:
        return [None]
    scale = A.expand_dims(A.expand_dims(g_log_abs, -1), -1)
    return [M.multiply(scale, L.inv(op.inputs[0], adjoint=True))]
