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


def check_allocation(opname: str, dtype, shape, what: str = "tensor") -> None:
    """For a kernel whose result size comes from input values (no inference sized it):
    refuse, before NumPy allocates, a working set memory cannot hold (TF's
    ResourceExhaustedError); the process would be killed instead."""
    from ...ir.errors import ResourceExhaustedError
    from ...ir.registry import TT, InferenceError, check_size
    try:
        check_size(TT(dtype, tuple(int(d) for d in shape)))
    except InferenceError:
        raise ResourceExhaustedError(None, opname, f"OOM when allocating {what} with shape "
                                     f"{[int(d) for d in shape]} and type {dtype.name}") \
            from None


def register(name, fn):
    """Register an existing callable (a NumPy ufunc, say) as the kernel of `name`."""
    kernel(name)(fn)
    return fn


from . import (math, reduce, linalg, array, nn, random, state, logging, fused,  # noqa: E402,F401
               strings, segment, counting, checks, script, collective, signal)



def _attr_value(value, static):
    """A run-time attribute operand as the kernel takes the attribute: a tuple of ints for a
    list attribute (flattened: paddings arrive as a matrix), else a Python scalar."""
    if static is None:
        return value.item()
    return tuple(int(v) for v in value.reshape(-1))


def bind_attr_operands(opdef, fn, attrs: dict):
    """`fn` for one op instance whose partial `tensor_attrs` (see `ir.registry.op`) arrive as
    trailing operands: they are written into the attributes before each call. Bound once,
    when a plan is built; ops without such operands keep their kernel as is."""
    n = len(opdef.inputs)
    names = opdef.attr_operands(attrs)

    def run(*args, **given):
        for name, value in zip(names, args[n:]):
            given[name] = _attr_value(value, given[name])
        return fn(*args[:n], **given)
    return run
