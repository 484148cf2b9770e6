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


from . import math, reduce, linalg, array, nn, random, state, logging, fused  # noqa: E402,F401


def _attr_value(array, static):
    """A run-time attribute operand as the kernel takes the attribute: a tuple of ints for a
    list attribute (flattened: paddings arrive as a matrix), else a Python scalar."""
    if static is None:
        return array.item()
    return tuple(int(v) for v in array.reshape(-1))


def _binding_attr_operands(opdef, fn):
    """`fn` taking `opdef.tensor_attrs` given as trailing operands (see `ir.registry.op`);
    a call without them costs one length test."""
    n = len(opdef.inputs)

    def run(*args, **attrs):
        if len(args) > n:
            for name, value in zip(opdef.attr_operands(attrs), args[n:]):
                attrs[name] = _attr_value(value, attrs[name])
            args = args[:n]
        return fn(*args, **attrs)
    run.__name__, run.__doc__ = fn.__name__, fn.__doc__
    return run


def _bind_attr_operands():
    from ...ir import ops  # noqa: F401  (declares every op)
    from ...ir.registry import OPS
    for name, opdef in OPS.items():
        if opdef.tensor_attrs and name in KERNELS:
            KERNELS[name] = _binding_attr_operands(opdef, KERNELS[name])


_bind_attr_operands()
