"""Special functions and the elementwise ops TF defines as kernels of their own: softsign,
erfinv, ndtri, lgamma, digamma, the modified Bessel functions of order 0 and 1 (plain and
exponentially scaled), polygamma, the Hurwitz zeta function and nextafter. Floating types
only (each op the ones TF has kernels for); the results have the input's type."""
from __future__ import annotations

from .. import dtypes as D
from ..infer import FLOATS, binary, unary
from ..registry import op

# name -> allowed dtypes: those TF 2.21 has CPU kernels for
WIDE = (D.float32, D.float64)
NO_BF16 = (D.float16,) + WIDE
UNARY = {"softsign": FLOATS, "erfinv": WIDE, "ndtri": WIDE,
         **{name: NO_BF16 for name in ("lgamma", "digamma", "bessel_i0", "bessel_i0e",
                                       "bessel_i1", "bessel_i1e")}}
BINARY = {"polygamma": WIDE, "zeta": WIDE, "nextafter": WIDE}
NOT_DIFFERENTIABLE = {"nextafter"}


def _declare_unary(name, allowed):
    op(name, ("x",))(lambda types, attrs: unary(types, allowed))


def _declare_binary(name, allowed):
    op(name, ("x", "y"), differentiable=name not in NOT_DIFFERENTIABLE)(
        lambda types, attrs: binary(types, allowed))


for _n, _a in UNARY.items():
    _declare_unary(_n, _a)
for _n, _a in BINARY.items():
    _declare_binary(_n, _a)
