"""Variable ops: reads and writes through a resource handle. All are stateful, so tracing
chains them in program order and `df` threads a token through them."""
from __future__ import annotations

from .. import dtypes as D
from ..registry import InferenceError, ResourceTT, op


def _resource(t, opname):
    if not isinstance(t, ResourceTT):
        raise InferenceError(f"{opname} needs a variable handle, got a {t.dtype.name} tensor")
    return t.value


def _compatible(a, b) -> bool:
    if a is None or b is None:
        return True
    return len(a) == len(b) and all(x is None or y is None or x == y for x, y in zip(a, b))


@op("read_variable", ("resource",), stateful=True, differentiable=False)  # the tape tracks reads
def _read(types, attrs):
    return _resource(types[0], "read_variable")


def _declare_update(name):
    @op(name, ("resource", "value"), stateful=True, differentiable=False)
    def _update(types, attrs):
        var = _resource(types[0], name)
        val = types[1]
        if val.dtype is not var.dtype:
            raise InferenceError(f"{name}: value has dtype {val.dtype.name}, the variable "
                                 f"{var.dtype.name}")
        if not _compatible(var.shape, val.shape):
            raise InferenceError(f"{name}: cannot assign a value of shape {list(val.shape)} "
                                 f"to a variable of shape {list(var.shape)}")
        if name != "assign_variable" and var.dtype not in D.NUMERIC:
            raise InferenceError(f"{name} needs a numeric variable, got {var.dtype.name}")
        return ()


for _n in ("assign_variable", "assign_add_variable", "assign_sub_variable"):
    _declare_update(_n)
