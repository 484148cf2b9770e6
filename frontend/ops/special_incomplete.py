"""tf.math's regularized incomplete gamma and beta functions."""
from __future__ import annotations

from ..eager.dispatch import apply, convert_pair, convert_to_tensor
from ..export import runs, tf_export
from ..eager.tensor import Tensor


@tf_export("math.igamma")
@runs("igamma", "igamma_grad_a")
def igamma(a, x, name=None):
    """The lower regularized incomplete gamma function P(a, x) (NaN for a <= 0 or x < 0)."""
    return apply("igamma", convert_pair(a, x))


@tf_export("math.igammac")
@runs("igammac")
def igammac(a, x, name=None):
    """The upper regularized incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return apply("igammac", convert_pair(a, x))


@tf_export("math.betainc")
@runs("betainc")
def betainc(a, b, x, name=None):
    """The regularized incomplete beta function I_x(a, b); a, b and x have one shape or are
    scalars."""
    operands = (a, b, x)
    typed = next((v for v in operands if isinstance(v, Tensor)), None)
    dtype = convert_to_tensor(a).dtype if typed is None else typed.dtype
    return apply("betainc", tuple(v if isinstance(v, Tensor) else
                                  convert_to_tensor(v, dtype=dtype) for v in operands))
