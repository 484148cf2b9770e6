"""NumPy kernels keyed by registry op name. Eager dispatch, the graph executor and constant
folding all run these. A kernel takes the input arrays positionally and the op's attributes
as keywords, and returns an array (or a tuple of arrays for multi-output ops) of exactly the
inferred dtype and shape; it never mutates its inputs."""
import warnings

KERNELS: dict = {}

# Floating-point RuntimeWarnings (overflow to inf, 0/0 -> NaN, log(0)) raised from flowjit's
# own frames are IEEE results that TF returns silently; users' NumPy code keeps its warnings.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"flowjit(\.|$)")


def kernel(*names):
    def deco(fn):
        for n in names:
            if n in KERNELS:
                raise ValueError(f"kernel '{n}' registered twice")
            KERNELS[n] = fn
        return fn
    return deco


def register(name, fn):
    """Register an existing callable (a NumPy ufunc, say) as the kernel of `name`."""
    kernel(name)(fn)
    return fn


from . import math, reduce, linalg, array, nn, random, state, logging, fused, checks, script  # noqa: E402,F401
