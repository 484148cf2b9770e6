"""Linear algebra: batched matmul, tensordot, einsum and top_k.

tensordot is primitive (rather than transpose + reshape + matmul) so that its axes stay static
attributes: the reshape sizes of the composition are products of possibly unknown dims.
einsum carries its equation, always in explicit form ("ij,jk->ik", no spaces; see
`canonical_einsum`), so every consumer reads the output subscripts directly.
"""
from __future__ import annotations

from .. import dtypes as D
from ..infer import NUMERIC, TT, broadcast, check_dtype, norm_axis, same_dtype
from ..registry import InferenceError, op
from ..shapes import format_shape

MATMUL_DTYPES = (D.float16, D.bfloat16, D.float32, D.float64, D.int32, D.int64) + D.COMPLEX
# int8/uint8 inputs multiply only into an int32 result (TF's quantized-style matmul).
NARROW_INTS = (D.int8, D.uint8)
INDEX_TYPES = (D.int16, D.int32, D.int64)


def _dims(shape) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


@op("matmul", ("a", "b"), attrs=(("transpose_a", "bool", False), ("transpose_b", "bool", False),
                                  ("output_type", "dtype", None)))
def _matmul(types, attrs):
    """BatchMatMulV2: rank >= 2 operands, the leading (batch) dims broadcast."""
    a, b = types
    out = attrs["output_type"]
    if out is None or out is a.dtype:
        out = same_dtype(types, MATMUL_DTYPES)
    elif out is D.int32 and a.dtype in NARROW_INTS:
        same_dtype(types, NARROW_INTS)
    else:
        raise InferenceError(f"output_type {out.name} is not supported for {a.dtype.name} "
                             f"inputs: it must be the input dtype, or int32 for int8/uint8")
    for i, t in enumerate(types):
        if t.shape is not None and len(t.shape) < 2:
            raise InferenceError(f"In[{i}] ndims must be >= 2, got shape {_dims(t.shape)}")
    if a.shape is None or b.shape is None:
        return TT(out, None)
    m, ka = (a.shape[-1], a.shape[-2]) if attrs["transpose_a"] else a.shape[-2:]
    kb, n = (b.shape[-1], b.shape[-2]) if attrs["transpose_b"] else b.shape[-2:]
    if ka is not None and kb is not None and ka != kb:
        raise InferenceError(f"Matrix size-incompatible: In[0]: {_dims(a.shape[-2:])}, "
                             f"In[1]: {_dims(b.shape[-2:])}",
                             graph_message=f"Dimensions must be equal, but are {ka} and {kb}")
    try:
        batch = broadcast(a.shape[:-2], b.shape[:-2])
    except InferenceError:
        raise InferenceError(f"In[0] and In[1] must have compatible batch dimensions: "
                             f"{_dims(a.shape)} vs. {_dims(b.shape)}") from None
    return TT(out, batch + (m, n))


def _tensordot_axes(axes, shape, which):
    out = []
    for ax in axes:
        ax = norm_axis(ax, len(shape), f"tensordot axis of {which}")
        if ax in out:
            raise InferenceError(f"tensordot axes of {which} repeat axis {ax}")
        out.append(ax)
    return out


@op("tensordot", ("a", "b"), attrs=(("a_axes", "ints"), ("b_axes", "ints")))
def _tensordot(types, attrs):
    """Contract `a_axes` of a with `b_axes` of b (pairwise); the result has a's free dims, then
    b's, each in order. Negative axes count from the end."""
    a, b = types
    dt = same_dtype(types, MATMUL_DTYPES)
    if len(attrs["a_axes"]) != len(attrs["b_axes"]):
        raise InferenceError(f"Different number of contraction axes a and b, "
                             f"{len(attrs['a_axes'])} != {len(attrs['b_axes'])}")
    if a.shape is None or b.shape is None:
        return TT(dt, None)
    axa = _tensordot_axes(attrs["a_axes"], a.shape, "a")
    axb = _tensordot_axes(attrs["b_axes"], b.shape, "b")
    for i, j in zip(axa, axb):
        da, db = a.shape[i], b.shape[j]
        if da is not None and db is not None and da != db:
            raise InferenceError(f"contracted dimensions differ: a axis {i} has size {da}, "
                                 f"b axis {j} has size {db}")
    return TT(dt, tuple(d for i, d in enumerate(a.shape) if i not in axa)
              + tuple(d for j, d in enumerate(b.shape) if j not in axb))


# --- einsum --------------------------------------------------------------------------------
ELLIPSIS = "..."  # one token in a term's token list


def _terms(side: str, equation: str):
    """Split "ab...c,d" into token lists: one letter per token, "..." as one token."""
    out = []
    for term in side.split(","):
        toks = []
        i = 0
        while i < len(term):
            if term.startswith(ELLIPSIS, i):
                if ELLIPSIS in toks:
                    raise InferenceError(f"einsum equation {equation!r}: more than one "
                                         f"ellipsis in the term {term!r}")
                toks.append(ELLIPSIS)
                i += 3
                continue
            ch = term[i]
            if not ch.isascii() or not ch.isalpha():
                raise InferenceError(f"einsum equation {equation!r}: invalid subscript "
                                     f"{ch!r} in the term {term!r}")
            toks.append(ch)
            i += 1
        out.append(toks)
    return out


def canonical_einsum(equation: str) -> str:
    """The explicit form of an einsum equation, spaces removed, syntax checked. Implicit
    output (no "->"), as in NumPy: an ellipsis if any input has one, then the labels used
    exactly once, in sorted order."""
    eq = "".join(equation.split())
    if eq.count("->") > 1:
        raise InferenceError(f"einsum equation {equation!r} has more than one '->'")
    lhs, arrow, rhs = eq.partition("->")
    terms = _terms(lhs, equation)
    if arrow:
        _output_terms(rhs, equation)
        return eq
    labels = [c for t in terms for c in t if c != ELLIPSIS]
    once = sorted(c for c in set(labels) if labels.count(c) == 1)
    ell = ELLIPSIS if any(ELLIPSIS in t for t in terms) else ""
    return f"{eq}->{ell}{''.join(once)}"


def _output_terms(rhs: str, equation: str):
    if "," in rhs:
        raise InferenceError(f"einsum equation {equation!r} has more than one output")
    return _terms(rhs, equation)[0]


def parse_einsum(equation: str, n_inputs: int):
    """(input token lists, output token list) of an explicit equation."""
    if equation.count("->") != 1:
        raise InferenceError(f"einsum equation {equation!r} must be explicit, with one '->'")
    lhs, rhs = equation.split("->")
    ins = _terms(lhs, equation)
    if len(ins) != n_inputs:
        raise InferenceError(f"einsum equation {equation!r} names {len(ins)} inputs, got "
                             f"{n_inputs}")
    return ins, _output_terms(rhs, equation)


@op("einsum", ("inputs*",), attrs=(("equation", "str"),))
def _einsum(types, attrs):
    eq = attrs["equation"]
    if not types:
        raise InferenceError("einsum needs at least one input")
    dt = same_dtype(types, MATMUL_DTYPES)
    ins, out = parse_einsum(eq, len(types))
    sizes: dict = {}
    ell_shapes = []  # each input's ellipsis dims; None = unknown
    for i, (toks, t) in enumerate(zip(ins, types)):
        nlab = sum(1 for c in toks if c != ELLIPSIS)
        has_ell = ELLIPSIS in toks
        if t.shape is None:
            for c in toks:
                if c != ELLIPSIS:
                    sizes.setdefault(c, None)
            if has_ell:
                ell_shapes.append(None)
            continue
        rank = len(t.shape)
        if rank < nlab or (not has_ell and rank != nlab):
            raise InferenceError(f"Expected input {i} to have rank "
                                 f"{'at least ' if has_ell else ''}{nlab} (subscripts "
                                 f"{''.join(toks)!r}) but got "
                                 f"{rank}, shape {format_shape(t.shape)}")
        nell = rank - nlab
        dims = []
        pos = 0
        for c in toks:
            if c == ELLIPSIS:
                ell_shapes.append(tuple(t.shape[pos:pos + nell]))
                pos += nell
            else:
                dims.append((c, t.shape[pos]))
                pos += 1
        for c, d in dims:
            prev = sizes.get(c)
            if prev is not None and d is not None and prev != d:
                raise InferenceError(f"label '{c}' has size {prev} in one place and {d} at "
                                     f"input {i} (shape {format_shape(t.shape)})")
            if prev is None:
                sizes[c] = d
    ell = ()
    for s in ell_shapes:
        ell = None if s is None or ell is None else broadcast(ell, s)
    seen = set()
    for c in out:
        if c in seen:
            raise InferenceError(f"einsum equation {eq!r}: output label '{c}' appears more "
                                 f"than once")
        seen.add(c)
        if c != ELLIPSIS and c not in sizes:
            raise InferenceError(f"einsum equation {eq!r}: output label '{c}' is not in any "
                                 f"input")
    if ELLIPSIS not in out and ell:
        raise InferenceError(f"einsum equation {eq!r}: the inputs have {len(ell)} broadcasting "
                             f"dimension(s) but the output has no ellipsis (...)")
    if ELLIPSIS in out and ell is None:
        return TT(dt, None)
    shape = []
    for c in out:
        shape.extend(ell if c == ELLIPSIS else (sizes[c],))
    return TT(dt, tuple(shape))


@op("top_k", ("input",), attrs=(("k", "int", 1), ("sorted", "bool", True),
                                 ("index_type", "dtype", D.int32)))
def _top_k(types, attrs):
    """The k largest entries along the last axis and their indices: two outputs."""
    t = types[0]
    check_dtype(t, NUMERIC)
    k, idx = attrs["k"], attrs["index_type"]
    if idx not in INDEX_TYPES:
        raise InferenceError(f"index_type {idx.name} is not supported; allowed: "
                             f"{', '.join(d.name for d in INDEX_TYPES)}")
    if k < 0:
        raise InferenceError(f"Need k >= 0, got {k}")
    if t.shape is None:
        return TT(t.dtype, None), TT(idx, None)
    if not t.shape:
        raise InferenceError("input must be >= 1-D, got shape []")
    if t.shape[-1] is not None and t.shape[-1] < k:
        raise InferenceError(f"input must have at least k columns. Had {t.shape[-1]}, "
                             f"needed {k}")
    shape = t.shape[:-1] + (k,)
    return TT(t.dtype, shape), TT(idx, shape)


# --- square-matrix solvers: inverse, determinant, solve, Cholesky --------------------------
SOLVER_DTYPES = (D.float16, D.float32, D.float64)


def _square(t: TT, what="Input matrix"):
    check_dtype(t, SOLVER_DTYPES)
    if t.shape is None:
        return
    if len(t.shape) < 2:
        raise InferenceError(f"Input tensor 0 must have rank >= 2, got {len(t.shape)}")
    n, m = t.shape[-2:]
    if n is not None and m is not None and n != m:
        raise InferenceError(f"{what} must be square, got shape {format_shape(t.shape)}")


@op("matrix_inverse", ("input",), attrs=(("adjoint", "bool", False),))
def _matrix_inverse(types, attrs):
    """The inverse of each innermost square matrix (of its transpose with `adjoint`)."""
    _square(types[0])
    return types[0]


@op("matrix_determinant", ("input",))
def _matrix_determinant(types, attrs):
    """The determinant of each innermost square matrix."""
    t = types[0]
    _square(t)
    return TT(t.dtype, None if t.shape is None else t.shape[:-2])


@op("cholesky", ("input",))
def _cholesky(types, attrs):
    """The lower-triangular L with L @ L^T = input, reading only the lower triangle."""
    _square(types[0])
    return types[0]


@op("matrix_solve", ("matrix", "rhs"), attrs=(("adjoint", "bool", False),))
def _matrix_solve(types, attrs):
    """X with matrix @ X = rhs (matrix^T @ X with `adjoint`); batch dims must be equal (TF's
    MatrixSolve does not broadcast)."""
    a, b = types
    _square(a)
    same_dtype(types, SOLVER_DTYPES)
    if a.shape is None or b.shape is None:
        return b
    if len(a.shape) != len(b.shape):
        raise InferenceError(f"All input tensors must have the same rank, got matrix "
                             f"{format_shape(a.shape)} and rhs {format_shape(b.shape)}")
    for da, db in zip(a.shape[:-2], b.shape[:-2]):
        if da is not None and db is not None and da != db:
            raise InferenceError(f"All input tensors must have the same outer dimensions, got "
                                 f"matrix {format_shape(a.shape)} and rhs "
                                 f"{format_shape(b.shape)}")
    if a.shape[-1] is not None and b.shape[-2] is not None and a.shape[-1] != b.shape[-2]:
        raise InferenceError(f"Input matrix and rhs are incompatible: "
                             f"{format_shape(a.shape)} and {format_shape(b.shape)}")
    return b


# --- triangular solve and log-determinant ----------------------------------------------------
@op("matrix_triangular_solve", ("matrix", "rhs"), attrs=(("lower", "bool", True),
                                                          ("adjoint", "bool", False)))
def _matrix_triangular_solve(types, attrs):
    """X with matrix @ X = rhs for triangular matrices (only the `lower` or upper triangle is
    read; matrix^T @ X with `adjoint`); the batch dims broadcast."""
    a, b = types
    dt = same_dtype(types, SOLVER_DTYPES)
    if a.shape is None or b.shape is None:
        return TT(dt, None)
    for name, t in (("In[0]", a), ("In[1]", b)):
        if len(t.shape) < 2:
            raise InferenceError(f"{name} ndims must be >= 2: {len(t.shape)}")
    n, m = a.shape[-2:]
    if n is not None and m is not None and n != m:
        raise InferenceError(f"In[0] matrices in the last dimensions must be square "
                             f"({m} =/= {n})")
    if m is not None and b.shape[-2] is not None and m != b.shape[-2]:
        raise InferenceError(f"In[0] mismatch In[1] shape: {m} vs. {b.shape[-2]}: "
                             f"{format_shape(a.shape)} {format_shape(b.shape)}")
    try:
        batch = broadcast(a.shape[:-2], b.shape[:-2])
    except InferenceError:
        raise InferenceError(f"In[0] and In[1] must have compatible batch dimensions: "
                             f"{format_shape(a.shape)} vs. {format_shape(b.shape)}") from None
    return TT(dt, batch + b.shape[-2:])


@op("log_matrix_determinant", ("input",))
def _log_matrix_determinant(types, attrs):
    """(sign, log|det|) of each innermost square matrix; sign 0 and -inf for singular ones."""
    t = types[0]
    _square(t, "Input matrix")
    out = TT(t.dtype, None if t.shape is None else t.shape[:-2])
    return out, out
