"""The regularized incomplete gamma and beta functions: igamma P(a, x), igammac Q(a, x),
igamma_grad_a dP/da (TF's IgammaGradA, the gradient of igamma for a) and betainc I_x(a, b).
float32 and float64 only (TF's CPU kernels); igamma's operands broadcast, betainc's must
have one shape or be scalars, as TF's kernel requires."""
from __future__ import annotations

import itertools

from .. import dtypes as D
from ..infer import binary, same_dtype
from ..registry import TT, InferenceError, op
from ..shapes import format_shape

WIDE = (D.float32, D.float64)


def _declare_binary(name, differentiable=True):
    op(name, ("a", "x"), differentiable=differentiable)(
        lambda types, attrs: binary(types, WIDE))


for _n in ("igamma", "igammac"):
    _declare_binary(_n)
_declare_binary("igamma_grad_a", differentiable=False)   # TF defines no gradient of it


@op("betainc", ("a", "b", "x"))
def _betainc(types, attrs):
    dt = same_dtype(types, WIDE)
    shapes = [t.shape for t in types]
    known = [(n, s) for n, s in zip("abx", shapes) if s is not None and len(s)]
    for (n0, s0), (n1, s1) in itertools.combinations(known, 2):
        if len(s0) != len(s1) or any(p is not None and q is not None and p != q
                                     for p, q in zip(s0, s1)):
            raise InferenceError(f"Shapes of {n0} and {n1} are inconsistent: "
                                 f"{format_shape(s0)} vs. {format_shape(s1)}")
    if any(s is None for s in shapes):
        return TT(dt, None)
    return TT(dt, known[-1][1] if known else ())
