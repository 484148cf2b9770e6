"""Placeholder values of converted code: a variable not bound yet, a return not reached yet."""
from __future__ import annotations


class Undefined:
    """The value of a variable that is not bound on this path. Using it raises what Python
    would have raised (UnboundLocalError); a staged `if`/loop reports it by name."""

    __slots__ = ("symbol_name",)

    def __init__(self, symbol_name: str):
        self.symbol_name = symbol_name

    def read(self):
        e = UnboundLocalError(f"cannot access local variable '{self.symbol_name}' where it is "
                              f"not associated with a value")
        e.symbol_name = self.symbol_name    # a staged loop names it in TF's error
        raise e

    def __getattr__(self, attr):
        if attr.startswith("_"):
            raise AttributeError(attr)
        self.read()

    def __repr__(self):
        return f"Undefined({self.symbol_name!r})"

    def __bool__(self):
        self.read()

    def _op(self, *args, **kwargs):
        self.read()

    __iter__ = __len__ = __call__ = __getitem__ = __neg__ = __pos__ = __abs__ = __invert__ = _op
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = _op
    __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = _op
    __rpow__ = __matmul__ = __rmatmul__ = __lt__ = __le__ = __gt__ = __ge__ = _op
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = _op


class UndefinedReturnValue:
    """`retval_` before any `return` ran. `always` says every path of the function returns,
    so a staged branch without a return is guarded and may hold a placeholder value."""

    __slots__ = ("always",)

    def __init__(self, always: bool = False):
        self.always = always

    def __repr__(self):
        return "UndefinedReturnValue()"


def is_undefined(v) -> bool:
    return isinstance(v, (Undefined, UndefinedReturnValue))
