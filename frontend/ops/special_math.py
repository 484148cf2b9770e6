"""tf.math's special functions (softsign, erfinv, ndtri, lgamma, digamma, the Bessel
functions I0 and I1, polygamma, zeta, nextafter) and those TF composes from them (erfcinv,
lbeta)."""
from __future__ import annotations

import math

from ..eager.dispatch import apply, convert_pair, convert_to_tensor
from ..export import runs, tf_export
from . import math as M
from . import reduce as R


def _unary(opname, doc):
    def fn(x, name=None):
        return apply(opname, (convert_to_tensor(x),))
    fn.__name__, fn.__doc__ = opname, doc
    return runs(opname)(fn)


@tf_export("math.softsign", "nn.softsign")
@runs("softsign")
def softsign(features, name=None):
    """features / (1 + |features|) elementwise."""
    return apply("softsign", (convert_to_tensor(features),))


erfinv = tf_export("math.erfinv")(_unary("erfinv", "The inverse of erf on (-1, 1)."))
ndtri = tf_export("math.ndtri")(
    _unary("ndtri", "The inverse of the standard normal CDF on (0, 1)."))
lgamma = tf_export("math.lgamma")(_unary("lgamma", "log |Gamma(x)| elementwise."))
digamma = tf_export("math.digamma")(
    _unary("digamma", "Psi, the derivative of lgamma, elementwise."))
bessel_i0 = tf_export("math.bessel_i0")(
    _unary("bessel_i0", "The modified Bessel function of order 0."))
bessel_i0e = tf_export("math.bessel_i0e")(
    _unary("bessel_i0e", "exp(-|x|) I0(x), the exponentially scaled I0."))
bessel_i1 = tf_export("math.bessel_i1")(
    _unary("bessel_i1", "The modified Bessel function of order 1."))
bessel_i1e = tf_export("math.bessel_i1e")(
    _unary("bessel_i1e", "exp(-|x|) I1(x), the exponentially scaled I1."))


@tf_export("math.nextafter")
@runs("nextafter")
def nextafter(x1, x2, name=None):
    """The next representable value after x1 towards x2."""
    return apply("nextafter", convert_pair(x1, x2))


@tf_export("math.polygamma")
@runs("polygamma")
def polygamma(a, x, name=None):
    """The a-th derivative of digamma at x (NaN unless a is a non-negative integer)."""
    return apply("polygamma", convert_pair(a, x))


@tf_export("math.zeta")
@runs("zeta")
def zeta(x, q, name=None):
    """The Hurwitz zeta function: sum over n >= 0 of (n + q) ** -x."""
    return apply("zeta", convert_pair(x, q))


@tf_export("math.erfcinv")
def erfcinv(x, name=None):
    """The inverse of erfc on (0, 2): -ndtri(x / 2) / sqrt(2), as TF composes it."""
    x = convert_to_tensor(x)
    return M.multiply(ndtri(M.multiply(x, 0.5)), -math.sqrt(0.5))


@tf_export("math.lbeta")
def lbeta(x, name=None):
    """log |B(x)| along the last axis: sum(lgamma(x)) - lgamma(sum(x)) (TF's composition)."""
    x = convert_to_tensor(x)
    return M.subtract(R.reduce_sum(lgamma(x), axis=-1), lgamma(R.reduce_sum(x, axis=-1)))
