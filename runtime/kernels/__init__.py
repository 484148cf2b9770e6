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


from ...ir.families import load_families  # noqa: E402

# `special` holds functions NumPy lacks, for the families' kernels.
FAMILIES = load_families(__name__, __path__, not_families=("special",))

def _attr_value(value, kind):
    """A run-time attribute operand as the kernel takes the attribute: a tuple of ints for a
    list attribute (flattened: paddings arrive as a matrix), else a Python scalar."""
    if kind in ("ints", "shape"):
        return tuple(int(v) for v in value.reshape(-1))
    return value.item()


def bind_attr_operands(opdef, fn, attrs: dict):
    """`fn` for one op instance whose partial `tensor_attrs` (see `ir.registry.op`) arrive as
    trailing operands: they are written into the attributes before each call. Bound once,
    when a plan is built; ops without such operands keep their kernel as is."""
    n = len(opdef.inputs)
    names = opdef.attr_operands(attrs)
    kinds = [opdef.attrs[name].kind for name in names]

    def run(*args, **given):
        for name, kind, value in zip(names, kinds, args[n:]):
            given[name] = _attr_value(value, kind)
        return fn(*args[:n], **given)
    return run
