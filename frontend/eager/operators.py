"""Python operators on tensor-like classes, as TF 2 defines them.

`install(cls)` gives a class (eager Tensor, Variable, later the symbolic tensor) `+ - * / // %
** @`, unary `-`, `abs`, comparisons, `& | ^ ~` on bool, elementwise `==`/`!=` and `[]`.
"""
from __future__ import annotations

from . import dispatch
from ..ops import array, linalg, math


def _bool_only(opname, fn):
    def op(x, y):
        x, y = dispatch.convert_pair(x, y)
        if not x.dtype.is_bool:
            raise TypeError(f"operator '{opname}' is only defined on bool tensors here, got "
                            f"{x.dtype.name}")
        return fn(x, y)
    return op


def _equality(opname):
    fn = math.equal if opname == "equal" else math.not_equal

    def op(x, y):
        # TF 2: comparing with None, or with an incompatible shape/dtype, gives a Python bool
        # (as `incompatible_shape_error=False` does) instead of raising.
        if y is None:
            return opname == "not_equal"
        try:
            return fn(x, y)
        except (TypeError, ValueError, dispatch.errors.InvalidArgumentError):
            return opname == "not_equal"
    return op


def _flip(fn):
    return lambda x, y: fn(y, x)


def _invert(x):
    x = dispatch.convert_to_tensor(x)
    if not x.dtype.is_bool:
        raise TypeError(f"operator '~' is only defined on bool tensors here, got {x.dtype.name}")
    return math.logical_not(x)


def install(cls):
    binary = {
        "add": math.add, "sub": math.subtract, "mul": math.multiply,
        "truediv": math.truediv, "floordiv": math.floordiv, "mod": math.floormod,
        "pow": math.pow, "matmul": linalg.matmul,
        "and": _bool_only("&", math.logical_and), "or": _bool_only("|", math.logical_or),
        "xor": _bool_only("^", math.logical_xor),
    }
    for name, fn in binary.items():
        setattr(cls, f"__{name}__", fn)
        setattr(cls, f"__r{name}__", _flip(fn))
    cls.__lt__ = math.less
    cls.__le__ = math.less_equal
    cls.__gt__ = math.greater
    cls.__ge__ = math.greater_equal
    cls.__eq__ = _equality("equal")
    cls.__ne__ = _equality("not_equal")
    cls.__neg__ = math.negative
    cls.__pos__ = lambda x: x
    cls.__abs__ = math.abs
    cls.__invert__ = _invert
    cls.__getitem__ = array.slice_helper
