"""Side-effect ops: `print` and `assert`. Stateful (kept, and kept in program order); they
produce no values."""
from __future__ import annotations

from .. import dtypes as D
from ..registry import InferenceError, op


@op("print", ("inputs*",), attrs=(("template", "str"), ("stream", "str", "stderr"),
                                  ("summarize", "int", 3), ("end", "str", "\n")),
    stateful=True, differentiable=False)
def _print(types, attrs):
    """Formats `template` (one `{}` per input tensor) and writes it to the named stream."""
    if attrs["template"].count("{}") != len(types):
        raise InferenceError(f"print template has {attrs['template'].count('{}')} slots for "
                             f"{len(types)} tensors")
    return ()


@op("assert", ("condition", "data*"), attrs=(("message", "str", ""), ("summarize", "int", 3)),
    stateful=True, differentiable=False)
def _assert(types, attrs):
    """Raises InvalidArgumentError with `message` and the data tensors when condition is false."""
    c = types[0]
    if c.dtype is not D.bool_ or (c.shape is not None and len(c.shape) != 0):
        raise InferenceError(f"assert condition must be a bool scalar, got {c}")
    return ()
