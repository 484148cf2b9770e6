"""Gradients of the incomplete gamma and beta functions (TF's math_grad rules): igamma's for
a is TF's IgammaGradA op, for x the gamma density, in log space (Gamma(a) overflows before
the density does); igammac's are their negations. betainc has a gradient for x only (TF
defines none for a and b)."""
from __future__ import annotations

from ..ops import math as M
from ..ops import safe_math as SM
from ..ops import special_math as S
from ..eager.dispatch import apply
from ._util import gradient, unbroadcast


def _igamma_partials(op, g):
    a, x = op.inputs
    partial_a = apply("igamma_grad_a", (a, x))
    partial_x = M.exp(M.subtract(M.add(M.negative(x), M.multiply(M.subtract(a, 1.0), M.log(x))),
                                 S.lgamma(a)))
    return unbroadcast(M.multiply(partial_a, g), a), unbroadcast(M.multiply(partial_x, g), x)


@gradient("igamma")
def _igamma_grad(op, g):
    return list(_igamma_partials(op, g))


@gradient("igammac")
def _igammac_grad(op, g):
    return [M.negative(p) for p in _igamma_partials(op, g)]


@gradient("betainc")
def _betainc_grad(op, g):
    a, b, x = op.inputs
    log_beta = M.subtract(M.add(S.lgamma(a), S.lgamma(b)), S.lgamma(M.add(a, b)))
    partial_x = M.exp(M.subtract(M.add(SM.xlog1py(M.subtract(b, 1.0), M.negative(x)),
                                       SM.xlogy(M.subtract(a, 1.0), x)), log_beta))
    return [None, None, unbroadcast(M.multiply(partial_x, g), x)]
