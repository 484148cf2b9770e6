"""The op registry: every op declared once, with its inputs, attributes and type inference.

A declaration is plain Python (no xDSL objects), so eager dispatch, the tracer and the `df`
dialect all read the same table:

    @op("add", inputs=("x", "y"))
    def _add(types, attrs):
        return binary(types, NUMERIC)

`infer(types, attrs)` gets one `TT(dtype, shape)` per input and the attribute dict and returns
the result type(s); it raises `InferenceError` for bad input. Shapes are tuples of `int | None`
(or `None` for unknown rank) so the same function serves eager values and symbolic tensors.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

from . import dtypes as D
from .errors import InvalidArgumentError, ResourceExhaustedError


class TT(NamedTuple):
    """A tensor type: a DType and a shape tuple (`None` dims unknown; `None` = unknown rank)."""
    dtype: D.DType
    shape: tuple | None

    def __str__(self):
        from .shapes import format_shape
        return f"{self.dtype.name}{format_shape(self.shape)}"


class ResourceTT(NamedTuple):
    """The type of a variable handle: `dtype` is `dtypes.resource`, `value` the variable's TT."""
    dtype: D.DType
    shape: tuple
    value: TT

    @classmethod
    def of(cls, value: TT) -> "ResourceTT":
        return cls(D.resource, (), value)

    def __str__(self):
        return f"resource<{self.value}>"


class InferenceError(Exception):
    """Bad input found by an op's inference; dispatch turns it into `error_class` with context
    (what an eager kernel raises) or, while a graph is built, into `build_error_class`;
    `graph_message` is the text of TF's shape function when it differs from the kernel's."""

    def __init__(self, message: str, error_class=InvalidArgumentError, dtype_error=False,
                 graph_message=None, mismatch=None):
        super().__init__(message)
        self.error_class = error_class
        self.dtype_error = dtype_error
        self.graph_message = graph_message or message
        # (input index, expected dtype, given dtype): TF words this with the op's kernel and
        # argument names, which dispatch knows and inference does not.
        self.mismatch = mismatch

    @property
    def build_error_class(self):
        """TF's class for the same failure found while building a graph: TypeError for a dtype
        the op does not take, ValueError for shapes and values, other classes unchanged."""
        if self.dtype_error:
            return TypeError
        return ValueError if self.error_class is InvalidArgumentError else self.error_class

    def messages(self, kernel: str, arguments) -> tuple[str, str]:
        """(eager text, graph-building text) as TF words them for an op TF calls `kernel`
        with inputs named `arguments`."""
        if self.mismatch is None:
            return str(self), self.graph_message
        i, want, got = self.mismatch
        eager = (f"cannot compute {kernel} as input #{i}(zero-based) was expected to be a "
                 f"{D.runtime_name(want)} tensor but is a {D.runtime_name(got)} tensor")
        names = [a.rstrip("*") for a in arguments]
        first, this = names[0], names[min(i, len(names) - 1)]
        if this == first:   # elements of one list input: TF's graph text differs, not kept
            return eager, eager
        return eager, (f"Input '{this}' of '{kernel}' Op has type {got.name} that does not "
                       f"match type {want.name} of argument '{first}'.")


# TF's kernel names where they are not the CamelCase of the op's name (error texts name them).
TF_KERNELS = {"add": "AddV2", "div": "RealDiv", "floordiv": "FloorDiv", "floormod": "FloorMod",
              "logical_and": "LogicalAnd", "logical_or": "LogicalOr", "not_equal": "NotEqual",
              "less_equal": "LessEqual", "greater_equal": "GreaterEqual", "matmul": "MatMul",
              "atan2": "Atan2", "squared_difference": "SquaredDifference", "concat": "ConcatV2"}


def tf_kernel_name(op: str) -> str:
    return TF_KERNELS.get(op) or "".join(w.capitalize() for w in op.split("_"))


REQUIRED = object()

# The attribute kinds the `df` dialect knows how to carry.
ATTR_KINDS = ("int", "float", "bool", "str", "ints", "floats", "dtype", "shape", "array",
              "any")


@dataclass(frozen=True)
class AttrDef:
    name: str
    kind: str
    default: Any = REQUIRED

    def __post_init__(self):
        if self.kind not in ATTR_KINDS:
            raise ValueError(f"attribute {self.name}: unknown kind {self.kind!r}")


@dataclass
class OpDef:
    """One op's declaration. `inputs` names the operands; a trailing `*` makes the last one
    variadic (any number of tensors). `stateful` ops keep program order and are never folded
    or removed. `differentiable=False` marks ops without a gradient (integer outputs, ...).
    `internal` ops have no public API function: only passes create them."""
    name: str
    family: str
    inputs: tuple
    attrs: dict
    infer: Callable
    stateful: bool = False
    differentiable: bool = True
    doc: str = ""
    extra: dict = field(default_factory=dict)
    tensor_attrs: tuple = ()
    internal: bool = False

    @property
    def variadic(self) -> bool:
        return bool(self.inputs) and self.inputs[-1].endswith("*")

    def arity_ok(self, n: int) -> bool:
        fixed = len(self.inputs) - (1 if self.variadic else 0)
        if self.variadic:
            return n >= fixed
        return fixed <= n <= fixed + len(self.tensor_attrs)

    def attr_operands(self, attrs: dict) -> tuple:
        """The `tensor_attrs` fed by trailing operands: those whose static value is partial
        (see `is_partial`), in declaration order."""
        return tuple(a for a in self.tensor_attrs if is_partial(attrs.get(a)))

    def resolve_attrs(self, given: dict) -> dict:
        """Attributes in declaration order with defaults filled in; unknown names raise."""
        out = {}
        for a in self.attrs.values():
            if a.name in given:
                out[a.name] = given[a.name]
            elif a.default is REQUIRED:
                raise TypeError(f"op '{self.name}' requires attribute '{a.name}'")
            else:
                out[a.name] = a.default
        extra = set(given) - set(self.attrs)
        if extra:
            raise TypeError(f"op '{self.name}' got unknown attributes {sorted(extra)}; "
                            f"it takes {list(self.attrs)}")
        return out

    def __repr__(self):
        return f"<OpDef {self.family}.{self.name}>"


OPS: dict[str, OpDef] = {}


def is_partial(value) -> bool:
    """Whether an attribute value is only partly known at trace time: None, or a tuple with
    None entries. Such a value comes with an operand that holds it at run time."""
    return value is None or (type(value) is tuple and None in value)


def op(name: str, inputs=(), attrs=(), *, family: str | None = None, stateful=False,
       differentiable=True, tensor_attrs=(), internal=False):
    """Declare an op. `attrs` is a sequence of `(name, kind)` or `(name, kind, default)`.

    `tensor_attrs` names the attributes TF takes as tensors (shapes, sizes, bounds). When one is
    computed in the graph, its attribute holds what is known at trace time (None where not)
    and an extra trailing operand, after the declared inputs, holds the value at run time;
    inference sees only the declared inputs."""
    def deco(infer):
        if name in OPS:
            raise ValueError(f"op '{name}' is declared twice")
        fam = family or infer.__module__.rsplit(".", 1)[-1]
        adefs = {}
        for a in attrs:
            adefs[a[0]] = AttrDef(a[0], a[1], a[2] if len(a) > 2 else REQUIRED)
        OPS[name] = OpDef(name, fam, tuple(inputs), adefs, infer, stateful, differentiable,
                          (infer.__doc__ or "").strip(), tensor_attrs=tuple(tensor_attrs),
                          internal=internal)
        return infer
    return deco


def get(name: str) -> OpDef:
    try:
        return OPS[name]
    except KeyError:
        raise KeyError(f"no op named '{name}' in the registry") from None


def infer_types(opdef: OpDef, types, attrs: dict) -> tuple:
    """Run an op's inference (attribute operands left out) and normalize to a tuple of TT; a
    static result too large to exist is refused here, before NumPy or XLA try to allocate it
    (XLA aborts the process)."""
    if opdef.tensor_attrs and len(types) > len(opdef.inputs):
        types = types[:len(opdef.inputs)]
    out = opdef.infer(types, attrs)
    out = (out,) if isinstance(out, TT) else tuple(out)
    for tt in out:
        check_size(tt)
    return out


_MAX_ELEMENTS = 2**63 - 1
# TF reports OOM when an allocation fails; flowjit refuses, before allocating, a result larger
# than the machine's physical memory (NumPy would raise MemoryError, XLA abort), or than
# FLOWJIT_MAX_ALLOCATION_BYTES where that is set (the fuzzer's workers set it).
_MAX_BYTES = int(os.environ.get("FLOWJIT_MAX_ALLOCATION_BYTES") or
                 os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))


def check_size(tt) -> None:
    """Raise an InferenceError for a fully static shape with more than 2**63 - 1 elements
    (TF's InvalidArgumentError) or more bytes than memory holds (TF's ResourceExhaustedError)."""
    shape = tt.shape
    if not shape or None in shape:
        return
    check_bytes(shape, tt.dtype.size or 8, D.runtime_name(tt.dtype))


def check_bytes(shape, itemsize: int, type_name: str = "string") -> None:
    """`check_size` for a static shape whose elements take `itemsize` bytes each (a string
    op's result states its length: `as_string`'s width)."""
    n = 1
    for d in shape:
        n *= d
    if n <= 2**24 and n * itemsize <= 2**28:   # the common case: far below any limit
        return
    dims = ",".join(map(str, shape))
    if n > _MAX_ELEMENTS:
        raise InferenceError(f"Shape [{dims}] would have more than 2**63 - 1 elements")
    if n * itemsize > _MAX_BYTES:
        raise InferenceError(f"OOM when allocating tensor with shape[{dims}] and type "
                             f"{type_name}", ResourceExhaustedError)
