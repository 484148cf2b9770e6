"""From an API call to a result: input conversion with TF's type rules, and op dispatch.

Eager dispatch runs the op's registry inference (the same function the tracer runs; results
are cached per input types and attributes, so a steady eager loop pays one dict lookup), then
the NumPy kernel, then wraps the result. While a graph is built (this thread's
`context().graph_hook`), the op is recorded instead.
"""
from __future__ import annotations

import numbers
import os

import numpy as np

from ...ir import dtypes as D
from ...ir import errors
from ...ir.registry import OPS, TT, InferenceError, OpDef, infer_types, tf_kernel_name
from ...ir.shapes import format_shape
from ...runtime.kernels import KERNELS
from ..function.context import context
from . import conversion_registry
from .tensor import Tensor

_CTX = context()


class _NeverRaised(Exception):
    pass


# Set by frontend/distribute/dtensor.py: (the exception a DTensor operand raises when a kernel would
# read it, the function running the op as a sharded program instead).
sharded_hook = (_NeverRaised, None)

# Set by frontend/distribute/dtensor.py while a `default_mesh` is active: [the function that
# lays an eager op's results out on the thread's default mesh] (None otherwise).
mesh_results_hook: list = [None]

# Set by frontend/ops/array.py: [autopack(value, dtype, dtype_hint)], the conversion of a
# (nested) list that holds tensors.
LIST_PACKER: list = [None]

# Tests set FLOWJIT_CHECK_KERNELS=1: every eager result is checked against its inferred type.
CHECK_KERNELS = os.environ.get("FLOWJIT_CHECK_KERNELS") == "1"

_INFER_CACHE: dict = {}
_INFER_CACHE_MAX = 1 << 16


# --- conversion ---------------------------------------------------------------------------
def _is_tensor_like(v) -> bool:
    return isinstance(v, Tensor) or hasattr(v, "_as_tensor") or hasattr(v, "__tf_tensor__") \
        or conversion_registry.is_registered(v)


def _nested_has_tensor(v) -> bool:
    if isinstance(v, (list, tuple)):
        return any(_nested_has_tensor(x) for x in v)
    return _is_tensor_like(v)


def _default_dtype(value) -> D.DType:
    """TF's dtype for a Python value: bool, int32 (int64 if out of range), float32,
    complex128."""
    flat = np.asarray(value, dtype=object).ravel() if isinstance(value, (list, tuple)) \
        else [value]
    kind = "b"
    if any(isinstance(x, (str, bytes)) for x in flat):
        if all(isinstance(x, (str, bytes)) for x in flat):
            return D.string
        raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
    for x in flat:
        if isinstance(x, (bool, np.bool_)):
            continue
        if isinstance(x, numbers.Integral):
            if kind == "b":
                kind = "i"
        elif isinstance(x, numbers.Real):
            kind = "c" if kind == "c" else "f"
        elif isinstance(x, numbers.Complex):
            kind = "c"
        elif isinstance(x, (list, tuple)):  # a nested list of the wrong length
            raise ValueError("Can't convert non-rectangular Python sequence to Tensor.")
        elif x is None:
            raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
        else:
            raise TypeError(f"Cannot convert {value!r} to a Tensor: element {x!r} of type "
                            f"{type(x).__name__} is not a number")
    if kind == "b":
        return D.bool_ if len(flat) else D.float32
    if kind == "f":
        return D.float32
    if kind == "c":
        return D.complex128
    ints = [int(x) for x in flat]
    if ints and (max(ints) > 2**63 - 1 or min(ints) < -2**63):
        raise ValueError("Can't convert Python sequence with out-of-range integer to Tensor.")
    if ints and (max(ints) > 2**31 - 1 or min(ints) < -2**31):
        return D.int64
    return D.int32


def _to_array(value, dt: D.DType, strict: bool):
    """Convert a Python/NumPy value to an array of `dt`. `strict` refuses lossy Python
    float->int and out-of-range conversions, as TF does for `convert_to_tensor`."""
    if dt is D.string:
        return _bytes_array(value)
    if isinstance(value, (np.ndarray, np.generic)):
        return np.array(value, dtype=dt.np)
    try:
        arr = np.array(value, dtype=dt.np)
    except (OverflowError, ValueError, TypeError) as e:
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dt.name}: "
                        f"{e}") from None
    if dt.kind == "f" and arr.ndim and np.isnan(arr).any() and any(
            x is None for x in np.asarray(value, dtype=object).ravel()):
        raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
    if strict and dt.kind not in "fc":
        ref = np.asarray(value, dtype=object if dt.kind == "b" else np.float64)
        # TF takes no Python float as an integer, and only bools as bool, whatever the value
        refused = (lambda x: not isinstance(x, (bool, np.bool_))) if dt.kind == "b" else \
            (lambda x: isinstance(x, float))
        if ref.shape != arr.shape or np.any(ref != arr) or any(
                refused(x) for x in np.asarray(value, dtype=object).ravel()):
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dt.name}")
    return arr


def _bytes_array(value):
    """A string tensor's storage: an object array of `bytes` (`str` encoded as UTF-8)."""
    try:
        arr = np.array(value, dtype=object)
    except ValueError:
        raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None
    out = np.empty(arr.shape, dtype=object)
    for i, x in enumerate(arr.flat):
        if isinstance(x, str):
            x = x.encode()
        elif not isinstance(x, bytes):
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype string")
        out.flat[i] = bytes(x)
    return out


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """TF's `convert_to_tensor`: Tensors pass through (a requested dtype must match); Python
    values take `dtype`, else `dtype_hint` when representable, else TF's defaults; NumPy values
    keep their dtype unless one is requested. A refusal notes the user's line."""
    if dtype is None and type(value) is Tensor:   # the common case, without the wrapper
        return value
    try:
        return _convert(value, dtype, dtype_hint)
    except (TypeError, ValueError) as e:
        errors.noted(e)
        raise


def _convert(value, dtype, dtype_hint):
    if isinstance(value, Tensor):
        if dtype is not None and D.as_dtype(dtype) is not value._dtype:
            raise ValueError(f"Tensor conversion requested dtype {D.as_dtype(dtype).name} for "
                             f"Tensor with dtype {value._dtype.name}: {value!r}")
        return value
    conv = getattr(value, "_as_tensor", None)
    if conv is not None:  # Variables and symbolic tensors
        return convert_to_tensor(conv(), dtype=dtype)
    conv = getattr(value, "__tf_tensor__", None)
    if conv is not None:  # TF's protocol for objects that convert themselves (Keras variables)
        return convert_to_tensor(conv(dtype, None), dtype=dtype)
    if conversion_registry.is_registered(value):
        out = conversion_registry.convert_registered(
            value, None if dtype is None else D.as_dtype(dtype), Tensor)
        if out is not None:
            return out
    if value is None:   # NumPy would make it NaN under a float dtype
        raise ValueError("None values not supported." if _CTX.graph_hook is not None else
                         "Attempt to convert a value (None) with an unsupported type "
                         "(<class 'NoneType'>) to a Tensor.")
    if isinstance(value, (list, tuple)) and _nested_has_tensor(value):
        # a list holding tensors packs them, as TF does (ops/array.py's `stack`)
        return LIST_PACKER[0](value, dtype=dtype, dtype_hint=dtype_hint)
    if dtype is not None:
        dt = D.as_dtype(dtype)
        return _constant(_to_array(value, dt, strict=not isinstance(
            value, (np.ndarray, np.generic))), dt)
    if isinstance(value, (np.ndarray, np.generic)):
        dt = D.from_numpy(value.dtype)
        return _constant(_bytes_array(value) if dt is D.string else np.array(value), dt)
    if dtype_hint is not None:
        try:
            dt = D.as_dtype(dtype_hint)
            return _constant(_to_array(value, dt, strict=True), dt)
        except TypeError:
            pass
    dt = _default_dtype(value)
    return _constant(_to_array(value, dt, strict=False), dt)


def _constant(arr, dt: D.DType):
    """An eager Tensor, or while tracing a `const` node (Python values are embedded in the
    graph; only tensors created outside are captured)."""
    hook = _CTX.graph_hook
    if hook is not None:
        return hook(OPS["const"], (), {"value": arr, "dtype": dt})
    return Tensor._wrap(arr, dt)


def convert_pair(x, y):
    """Operands of a binary op: a non-tensor takes the tensor operand's dtype (TF's rule);
    between two non-tensors the first decides."""
    if isinstance(x, Tensor) and isinstance(y, Tensor):
        return x, y
    if not _is_tensor_like(x) and _is_tensor_like(y):
        y = convert_to_tensor(y)
        return _operand(x, y._dtype), y
    x = convert_to_tensor(x)
    return x, _operand(y, x._dtype)


def _operand(v, dt):
    if _is_tensor_like(v):
        return convert_to_tensor(v)
    return convert_to_tensor(v, dtype=dt)


# --- dispatch -----------------------------------------------------------------------------
def apply(opname: str, inputs, attrs: dict | None = None):
    """Run (or, while tracing, record) the op `opname` on Tensors `inputs`."""
    opdef = OPS[opname]
    attrs = attrs or {}
    if len(attrs) != len(opdef.attrs):   # the public API passes them all; fill the defaults
        attrs = opdef.resolve_attrs(attrs)
    ctx = _CTX
    hook = ctx.graph_hook
    out = hook(opdef, inputs, attrs) if hook is not None else execute(opdef, inputs, attrs)
    hook = ctx.tape_hook
    if hook is not None:
        hook(opdef, inputs, attrs, out)
    return out


def execute(opdef: OpDef, inputs, attrs: dict):
    try:
        out_types = _INFER_CACHE[(opdef.name, *[(t._dtype, t._value.shape) for t in inputs],
                                  *attrs.values())]
    except (KeyError, TypeError):
        out_types = infer_cached(opdef, [TT(t._dtype, tuple(t._value.shape)) for t in inputs],
                                 attrs)
    try:
        # An input passed to a jit_compile=True function keeps a device copy as its value;
        # kernels take NumPy arrays (`_host` copies it back once).
        res = KERNELS[opdef.name](*[t._value if type(t._value) is np.ndarray else t._host()
                                    for t in inputs], **attrs)
    except errors.OpError as e:
        raise errors.noted(type(e)(None, opdef.name, f"{e.message} [Op:{opdef.name}]")) \
            from None
    except sharded_hook[0]:   # a DTensor input: the op runs as a sharded program
        return sharded_hook[1](opdef, inputs, attrs)
    if len(out_types) == 1:
        if CHECK_KERNELS:
            _check_result(opdef, res, out_types[0])
        out = Tensor._wrap(res, out_types[0].dtype)
    else:
        if CHECK_KERNELS:
            for r, t in zip(res, out_types):
                _check_result(opdef, r, t)
        out = tuple(Tensor._wrap(r, t.dtype) for r, t in zip(res, out_types))
    return out if mesh_results_hook[0] is None else mesh_results_hook[0](out)


def infer_cached(opdef: OpDef, types, attrs: dict, building=False):
    """`infer_or_raise`, memoized on the op, its input types (a TT equals its
    `(dtype, shape)` tuple, so eager ops and tracing share entries) and its attribute values;
    an unhashable attribute value (a constant's array) is inferred without caching."""
    key = (opdef.name, *types, *attrs.values())
    try:
        return _INFER_CACHE[key]
    except KeyError:
        out_types = infer_or_raise(opdef, types, attrs, building)
        if len(_INFER_CACHE) > _INFER_CACHE_MAX:
            _INFER_CACHE.clear()
        _INFER_CACHE[key] = out_types
        return out_types
    except TypeError:
        return infer_or_raise(opdef, types, attrs, building)


def infer_or_raise(opdef: OpDef, types, attrs: dict, building=False):
    """Run inference; turn an InferenceError into the op's TF error naming op, types and the
    user's source line: the eager kernel's class, or TF's graph-building class (TypeError for
    dtypes, ValueError for shapes) when `building`."""
    if not opdef.arity_ok(len(types)):
        raise TypeError(f"{opdef.name}: expected {len(opdef.inputs)} inputs "
                        f"({', '.join(opdef.inputs)}), got {len(types)}")
    try:
        return infer_types(opdef, types, attrs)
    except InferenceError as e:
        eager, graph = e.messages(tf_kernel_name(opdef.name), opdef.inputs)
        msg = describe_failure(opdef, types, attrs, graph if building else eager, building)
        cls = e.build_error_class if building else e.error_class
        if issubclass(cls, errors.OpError):
            raise errors.noted(cls(None, opdef.name, msg)) from None
        raise errors.noted(cls(msg)) from None


def op_error(opname: str, message: str, dtype_error=False) -> Exception:
    """TF's class for bad input an op's API wrapper finds: InvalidArgumentError eagerly (what
    the kernel raises), and while a graph is built what TF's shape functions raise: TypeError
    for a dtype, ValueError otherwise."""
    msg = f"{message} [Op:{opname}]"
    if _CTX.graph_hook is not None:
        return errors.noted(TypeError(msg) if dtype_error else ValueError(msg))
    return errors.noted(errors.InvalidArgumentError(None, opname, msg))


def describe_failure(opdef: OpDef, types, attrs: dict, why: str, building=False) -> str:
    """TF's text first and unchanged (code matches on it), then the op as TF names it (eager:
    `[Op:name]`; building a graph: the node), then the inputs' dtypes and shapes."""
    names = list(opdef.inputs)
    if opdef.variadic:
        names = names[:-1] + [f"{names[-1][:-1]}[{i}]" for i in range(len(types) - len(names) + 1)]
    ins = ", ".join(f"{n}: {t.dtype.name}{format_shape(t.shape)}" for n, t in zip(names, types))
    shown = {k: v for k, v in attrs.items() if not isinstance(v, np.ndarray)}
    at = f" and attributes {shown}" if shown else ""
    where = f"for '{{{{node {opdef.name}}}}}'" if building else f"[Op:{opdef.name}]"
    return f"{why} {where} with inputs {ins}{at}"


def _check_result(opdef, value, tt: TT):
    shape = tuple(np.shape(value))
    dt = getattr(value, "dtype", None)
    if dt != tt.dtype.np or (tt.shape is not None and (len(shape) != len(tt.shape) or any(
            d is not None and d != s for d, s in zip(tt.shape, shape)))):
        raise AssertionError(f"kernel for '{opdef.name}' returned {dt}{list(shape)}, inference "
                             f"said {tt}")
